// The network description loader (tools/weft/Network.h): format 1 chains and format 2 graphs,
// the shapes each op gives, the errors bad files get, and the NNAPI model built from a graph,
// run on the CPU reference device against values worked out here.
#include <gtest/gtest.h>

#include <algorithm>
#include <ostream>
#include <string>
#include <vector>

#include "Network.h"
#include "NetworkModel.h"
#include "ToolTestPaths.h"

using weft::tool::test::sourceDir;
using weft::tool::test::testDir;

namespace weft::tool {
namespace {

using Shape = std::vector<uint32_t>;

// A format 2 network on a 1x8x8x4 input, with `layers` (a JSON array's elements) as its layers.
std::string graph(const std::string& layers, int format = 2) {
  return R"({"name": "g", "format": )" + std::to_string(format) + R"(,
    "input": {"shape": [1, 8, 8, 4], "type": "TENSOR_QUANT8_ASYMM", "scale": 0.5, "zeroPoint": 10, "seed": 3},
    "layers": [)" + layers + "]}";
}

// Layer snippets: the fields every op needs, with the output quantization given.
const std::string kQuant = R"("output": {"scale": 0.5, "zeroPoint": 10})";
std::string conv(const std::string& name, int filters, const std::string& more = "") {
  return R"({"name": ")" + name + R"(", "op": "CONV_2D", "stride": 1, "padding": "SAME", "activation": "RELU",
    "weights": {"shape": [)" + std::to_string(filters) + R"(, 3, 3, 4], "seed": 5, "scale": 0.01, "zeroPoint": 128},
    "bias": {"seed": 6, "bound": 100}, "output": {"scale": 0.25, "zeroPoint": 0})" + more + "}";
}
std::string layer(const std::string& name, const std::string& op, const std::string& fields) {
  return R"({"name": ")" + name + R"(", "op": ")" + op + R"(", )" + fields + "}";
}

// A format 3 network (unless `format` says otherwise) with one extra input `extra` (a JSON
// object) and `layers`, by default a GELU of the input.
std::string withExtra(const std::string& extra, int format = 3, const std::string& layers = "") {
  return R"({"name": "g", "format": )" + std::to_string(format) + R"(,
    "input": {"shape": [1, 8, 8, 4], "type": "TENSOR_QUANT8_ASYMM", "scale": 0.5, "zeroPoint": 10, "seed": 3},
    "extraInputs": [)" + extra + R"(],
    "layers": [)" + (layers.empty() ? R"({"name": "g", "op": "GELU", )" + kQuant + "}" : layers) + "]}";
}

// A signed (TENSOR_QUANT8_ASYMM_SIGNED) network on a [4, 16] input.
std::string signedGraph(const std::string& layers) {
  return R"({"name": "s", "format": 3,
    "input": {"shape": [4, 16], "type": "TENSOR_QUANT8_ASYMM_SIGNED", "scale": 0.25, "zeroPoint": -3, "seed": 3},
    "layers": [)" + layers + "]}";
}

std::string errorOf(const std::string& text) {
  try {
    parseNetwork(text, "net.json");
  } catch (const NetworkError& e) {
    return e.what();
  }
  return "(no error)";
}

const std::string kNetworks = sourceDir() + "/traces/networks/";

TEST(NetworkLoader, FormatOneIsAChain) {
  const Network net = loadNetwork(testDir() + "/small_net.json");
  ASSERT_EQ(net.layers.size(), 6u);
  EXPECT_EQ(net.layers[0].inputs, std::vector<int>{kNetworkInput});
  for (size_t i = 1; i < net.layers.size(); ++i) EXPECT_EQ(net.layers[i].inputs, std::vector<int>{int(i) - 1});
  EXPECT_EQ(net.layers[1].outputShape, (Shape{1, 28, 28, 64}));
  EXPECT_EQ(net.layers[3].outputShape, (Shape{1, 1, 1, 40}));
  EXPECT_EQ(net.layers[5].outputShape, (Shape{1, 10}));
}

TEST(NetworkLoader, BundledNetworksHaveTheirStructure) {
  auto count = [](const Network& n, LayerOp op) {
    return std::count_if(n.layers.begin(), n.layers.end(), [op](const Layer& l) { return l.op == op; });
  };
  const Network mobilenet = loadNetwork(kNetworks + "mobilenet_v1_224_quant.json");
  EXPECT_EQ(mobilenet.layers.size(), 30u);
  EXPECT_EQ(mobilenet.layers.back().outputShape, (Shape{1, 1001}));

  const Network resnet = loadNetwork(kNetworks + "resnet18_224_quant.json");
  EXPECT_EQ(count(resnet, LayerOp::kConv2d), 20);  // 1 + 8 blocks x 2 + 3 downsamples
  EXPECT_EQ(count(resnet, LayerOp::kAdd), 8);
  EXPECT_EQ(count(resnet, LayerOp::kMaxPool2d), 1);
  EXPECT_EQ(count(resnet, LayerOp::kMean), 1);
  EXPECT_EQ(resnet.layers[1].outputShape, (Shape{1, 56, 56, 64}));  // torchvision's max pool
  EXPECT_EQ(resnet.layers.back().outputShape, (Shape{1, 1000}));

  const Network squeezenet = loadNetwork(kNetworks + "squeezenet1_1_224_quant.json");
  EXPECT_EQ(count(squeezenet, LayerOp::kConcatenation), 8);
  EXPECT_EQ(count(squeezenet, LayerOp::kMaxPool2d), 3);
  EXPECT_EQ(squeezenet.layers.back().outputShape, (Shape{1, 1000}));
  const auto last = std::find_if(squeezenet.layers.rbegin(), squeezenet.layers.rend(),
                                 [](const Layer& l) { return l.op == LayerOp::kConcatenation; });
  EXPECT_EQ(last->outputShape, (Shape{1, 13, 13, 512}));
}

// The transformers (format 3, signed): BERT-base's 12 post-norm layers over 128 tokens, ViT-B/16's
// 197 tokens with its class token and position embeddings as inputs, GPT-2's decode step against
// a 512-token KV cache per layer and a mask.
TEST(NetworkLoader, BundledTransformersHaveTheirStructure) {
  auto count = [](const Network& n, LayerOp op) {
    return std::count_if(n.layers.begin(), n.layers.end(), [op](const Layer& l) { return l.op == op; });
  };
  const Network bert = loadNetwork(kNetworks + "bert_base_seq128_quant.json");
  EXPECT_TRUE(bert.isSigned);
  EXPECT_EQ(count(bert, LayerOp::kFullyConnected), 12 * 6 + 1);
  EXPECT_EQ(count(bert, LayerOp::kBatchMatmul), 12 * 2);
  EXPECT_EQ(count(bert, LayerOp::kLayerNorm), 12 * 2 + 1);
  EXPECT_EQ(count(bert, LayerOp::kGelu), 12);
  EXPECT_EQ(bert.layers[10].outputShape, (Shape{1, 12, 128, 128}));  // layer 0's attention scores
  uint64_t macs = 0;
  for (const Layer& l : bert.layers) macs += l.macs;
  EXPECT_NEAR(double(macs), 11.17e9, 0.01e9);  // 12 x (128 x 7.08 M + 2 x 12 x 128 x 128 x 64) + the pooler

  const Network vit = loadNetwork(kNetworks + "vit_b16_224_quant.json");
  ASSERT_EQ(vit.inputCount(), 3u);
  EXPECT_EQ(vit.sourceName(networkInput(2)), "pos_embedding");
  EXPECT_EQ(vit.sourceShape(networkInput(2)), (Shape{1, 197, 768}));
  EXPECT_EQ(count(vit, LayerOp::kLayerNorm), 12 * 2 + 1);
  EXPECT_EQ(vit.layers.back().outputShape, (Shape{1, 1000}));

  const Network gpt2 = loadNetwork(kNetworks + "gpt2_small_decode_past512_quant.json");
  ASSERT_EQ(gpt2.inputCount(), 1u + 1 + 12 * 2);  // the token, the mask, each layer's past K and V
  EXPECT_EQ(gpt2.sourceShape(networkInput(2)), (Shape{1, 12, 512, 64}));
  EXPECT_EQ(count(gpt2, LayerOp::kGelu), 12);
  EXPECT_TRUE(std::all_of(gpt2.layers.begin(), gpt2.layers.end(),
                          [](const Layer& l) { return l.op != LayerOp::kGelu || l.geluTanh; }));
  EXPECT_EQ(gpt2.layers.back().outputShape, (Shape{1, 50257}));
}

TEST(NetworkLoader, ResidualAddReadsTwoLayers) {
  const Network net = parseNetwork(
      graph(conv("a", 4) + "," + conv("b", 4) + "," +
            layer("sum", "ADD", R"("inputs": ["b", "input"], "activation": "RELU", )" + kQuant)),
      "net.json");
  EXPECT_EQ(net.layers[2].inputs, (std::vector<int>{1, kNetworkInput}));
  EXPECT_EQ(net.layers[2].outputShape, (Shape{1, 8, 8, 4}));
  EXPECT_EQ(net.sourceName(kNetworkInput), "input");
  EXPECT_EQ(net.sourceQuant(1).scale, 0.25f);
}

TEST(NetworkLoader, ConcatenationAddsUpTheAxis) {
  const Network net = parseNetwork(
      graph(conv("a", 6) + "," + conv("b", 2, R"(, "inputs": ["input"])") + "," +
            layer("cat", "CONCATENATION", R"("inputs": ["a", "b", "input"], "axis": -1, )" + kQuant)),
      "net.json");
  EXPECT_EQ(net.layers[2].outputShape, (Shape{1, 8, 8, 12}));
  EXPECT_EQ(net.layers[2].axis, 3);  // resolved as NNAPI resolves it
}

TEST(NetworkLoader, PoolsMeanAndReshapeShapes) {
  const std::string pool = R"("filter": [3, 3], "stride": 2, "activation": "NONE", "output": {"scale": 0.5, "zeroPoint": 10}, "padding": )";
  const Network net = parseNetwork(
      graph(layer("explicit", "MAX_POOL_2D", pool + R"({"top": 1, "bottom": 1, "left": 1, "right": 1})") + "," +
            layer("same", "MAX_POOL_2D", pool + R"("SAME", "inputs": ["input"])") + "," +
            layer("valid", "AVERAGE_POOL_2D", pool + R"("VALID", "inputs": ["input"])") + "," +
            layer("kept", "MEAN", R"("axes": [1, 2], "keepDims": true, )" + kQuant) + "," +
            layer("dropped", "MEAN", R"("inputs": ["input"], "axes": [-3, 2], "keepDims": false, )" + kQuant) + "," +
            layer("flat", "RESHAPE", R"("inputs": ["kept"], "shape": [1, -1], )" + kQuant)),
      "net.json");
  EXPECT_EQ(net.layers[0].outputShape, (Shape{1, 4, 4, 4}));  // (8 + 2 - 3) / 2 + 1
  EXPECT_EQ(net.layers[0].padding.scheme, Padding::Scheme::kExplicit);
  EXPECT_EQ(net.layers[1].outputShape, (Shape{1, 4, 4, 4}));
  EXPECT_EQ(net.layers[2].outputShape, (Shape{1, 3, 3, 4}));  // (8 - 3) / 2 + 1
  EXPECT_EQ(net.layers[3].outputShape, (Shape{1, 1, 1, 4}));
  EXPECT_EQ(net.layers[4].outputShape, (Shape{1, 4}));
  EXPECT_EQ(net.layers[5].outputShape, (Shape{1, 4}));
}

// Format 3: named extra inputs (drawn from a seed or filled), read by name; a signed network's
// data and weights are int8 bytes.
TEST(NetworkLoader, ExtraInputsAreNamedAndFilled) {
  const Network net = parseNetwork(
      R"({"name": "t", "format": 3,
          "input": {"shape": [2, 8], "type": "TENSOR_QUANT8_ASYMM_SIGNED", "scale": 0.25, "zeroPoint": -3, "seed": 3},
          "extraInputs": [
            {"name": "mask", "shape": [1, 8], "type": "TENSOR_QUANT8_ASYMM_SIGNED", "scale": 0.5, "zeroPoint": 127, "fill": -128},
            {"name": "cache", "shape": [2, 8], "type": "TENSOR_QUANT8_ASYMM_SIGNED", "scale": 0.25, "zeroPoint": 0, "seed": 9}],
          "layers": [
            {"name": "masked", "op": "ADD", "inputs": ["input", "mask"], "activation": "NONE", "output": {"scale": 1, "zeroPoint": 0}},
            {"name": "both", "op": "ADD", "inputs": ["masked", "cache"], "activation": "NONE", "output": {"scale": 1, "zeroPoint": 0}},
            {"name": "fc", "op": "FULLY_CONNECTED", "activation": "NONE", "weights": {"shape": [4, 8], "seed": 5, "scale": 0.01, "zeroPoint": -2}, "bias": {"seed": 6, "bound": 10}, "output": {"scale": 0.5, "zeroPoint": 1}},
            {"name": "gelu", "op": "GELU", "approximate": "tanh", "output": {"scale": 0.5, "zeroPoint": -100}}]})",
      "t.json");
  EXPECT_TRUE(net.isSigned);
  ASSERT_EQ(net.inputCount(), 3u);
  EXPECT_EQ(net.sourceName(networkInput(1)), "mask");
  EXPECT_EQ(net.sourceName(networkInput(2)), "cache");
  EXPECT_EQ(net.layers[0].inputs, (std::vector<int>{kNetworkInput, networkInput(1)}));
  EXPECT_EQ(net.layers[1].inputs, (std::vector<int>{0, networkInput(2)}));
  EXPECT_EQ(net.layers[0].outputShape, (Shape{2, 8}));  // broadcast over the mask's rows
  EXPECT_EQ(net.inputData(1), std::vector<uint8_t>(8, 0x80));  // -128 as an int8 byte
  EXPECT_EQ(net.inputData(2), drawInput(9, 16));
  EXPECT_EQ(net.layers[2].weights, drawSignedWeights(5, 32, -2));
  EXPECT_TRUE(net.layers[3].geluTanh);
  EXPECT_EQ(net.layers[3].outputShape, (Shape{2, 4}));
}

struct BadFile {
  const char* what;
  std::string text;
  std::vector<std::string> expected;  // each must appear in the error
};

// Names the case in ctest's test names (gtest would print the struct's bytes).
void PrintTo(const BadFile& file, std::ostream* out) { *out << file.what; }

class NetworkLoaderError : public ::testing::TestWithParam<BadFile> {};

TEST_P(NetworkLoaderError, NamesTheLayerAndField) {
  const std::string error = errorOf(GetParam().text);
  for (const std::string& part : GetParam().expected) EXPECT_NE(error.find(part), std::string::npos) << error;
}

const std::string kAdd = R"("activation": "NONE", )" + kQuant;

INSTANTIATE_TEST_SUITE_P(
    BadFiles, NetworkLoaderError,
    ::testing::Values(
        BadFile{"UnknownInput", graph(conv("a", 4) + "," + layer("s", "ADD", R"("inputs": ["a", "nope"], )" + kAdd)),
                {"layer 1 (s)", "\"inputs\"", "'nope'", "neither a network input nor a layer"}},
        BadFile{"Cycle",
                graph(conv("a", 4, R"(, "inputs": ["b"])") + "," + conv("b", 4, R"(, "inputs": ["a"])")),
                {"layer 0 (a)", "cycle (a -> b -> a"}},
        BadFile{"SelfCycle", graph(conv("a", 4, R"(, "inputs": ["a"])")), {"layer 0 (a)", "cycle (a -> a"}},
        BadFile{"ListedTooEarly",
                graph(conv("a", 4, R"(, "inputs": ["b"])") + "," + conv("b", 4, R"(, "inputs": ["input"])")),
                {"layer 0 (a)", "'b', listed after it"}},
        BadFile{"AddShapes",
                graph(conv("a", 6) + "," + layer("s", "ADD", R"("inputs": ["a", "input"], )" + kAdd)),
                {"layer 1 (s)", "'a' [1, 8, 8, 6]", "'input' [1, 8, 8, 4]", "do not broadcast"}},
        BadFile{"AddNeedsTwo", graph(conv("a", 4) + "," + layer("s", "ADD", kAdd)),
                {"layer 1 (s)", "ADD takes 2 input(s), \"inputs\" names 1"}},
        BadFile{"ConcatenationShapes",
                graph(layer("p", "MAX_POOL_2D", R"("filter": [2, 2], "stride": 2, "padding": "VALID", "activation": "NONE", )" + kQuant) +
                      "," + layer("c", "CONCATENATION", R"("inputs": ["p", "input"], "axis": 3, )" + kQuant)),
                {"layer 1 (c)", "'p' [1, 4, 4, 4]", "'input' [1, 8, 8, 4]", "outside axis 3"}},
        BadFile{"ConcatenationNeedsTwo", graph(layer("c", "CONCATENATION", R"("axis": 3, )" + kQuant)),
                {"layer 0 (c)", "CONCATENATION takes at least 2 input(s)"}},
        BadFile{"ConcatenationAxis",
                graph(layer("c", "CONCATENATION", R"("inputs": ["input", "input"], "axis": 7, )" + kQuant)),
                {"layer 0 (c)", "\"axis\" is 7"}},
        BadFile{"UnknownOp", graph(layer("x", "CONV_3D", kQuant)),
                {"layer 0 (x)", "\"CONV_3D\"", "MAX_POOL_2D", "CONCATENATION", "MEAN"}},
        BadFile{"MissingAxis", graph(layer("c", "CONCATENATION", R"("inputs": ["input", "input"], )" + kQuant)),
                {"layer 0 (c)", "missing \"axis\""}},
        BadFile{"MissingFilter",
                graph(layer("p", "MAX_POOL_2D", R"("stride": 1, "padding": "SAME", "activation": "NONE", )" + kQuant)),
                {"layer 0 (p)", "missing \"filter\""}},
        BadFile{"MissingOutput", graph(layer("m", "MEAN", R"("axes": [1], "keepDims": true)")),
                {"layer 0 (m)", "missing \"output\""}},
        BadFile{"InputsNeedFormat2", graph(conv("a", 4, R"(, "inputs": ["input"])"), 1),
                {"layer 0 (a)", "\"inputs\" needs format 2"}},
        BadFile{"UnknownFormat", graph(conv("a", 4), 4), {"format 4 is not 1, 2 or 3"}},
        BadFile{"ExtraInputsNeedFormat3", withExtra(R"({"name": "m", "shape": [4], "type": "TENSOR_QUANT8_ASYMM", "scale": 1, "zeroPoint": 0, "fill": 0})", 2),
                {"\"extraInputs\" needs format 3"}},
        BadFile{"ExtraInputSeedAndFill", withExtra(R"({"name": "m", "shape": [4], "type": "TENSOR_QUANT8_ASYMM", "scale": 1, "zeroPoint": 0, "fill": 0, "seed": 3})"),
                {"extraInputs[0]", "either \"seed\" or \"fill\""}},
        BadFile{"ExtraInputNeitherSeedNorFill", withExtra(R"({"name": "m", "shape": [4], "type": "TENSOR_QUANT8_ASYMM", "scale": 1, "zeroPoint": 0})"),
                {"extraInputs[0]", "either \"seed\" or \"fill\""}},
        BadFile{"ExtraInputNamedInput", withExtra(R"({"name": "input", "shape": [4], "type": "TENSOR_QUANT8_ASYMM", "scale": 1, "zeroPoint": 0, "fill": 0})"),
                {"extraInputs[0]", "names another input"}},
        BadFile{"ExtraInputType", withExtra(R"({"name": "m", "shape": [4], "type": "TENSOR_QUANT8_ASYMM_SIGNED", "scale": 1, "zeroPoint": 0, "fill": 0})"),
                {"extraInputs[0]", "the type must be the input's"}},
        BadFile{"ExtraInputFillRange", withExtra(R"({"name": "m", "shape": [4], "type": "TENSOR_QUANT8_ASYMM", "scale": 1, "zeroPoint": 0, "fill": -1})"),
                {"extraInputs[0]", "\"fill\" is -1"}},
        BadFile{"ExtraInputUnknownField", withExtra(R"({"name": "m", "shape": [4], "type": "TENSOR_QUANT8_ASYMM", "scale": 1, "zeroPoint": 0, "fill": 0, "value": 2})"),
                {"extraInputs[0]", "unknown field \"value\""}},
        BadFile{"LayerNamedAsExtraInput", withExtra(R"({"name": "conv", "shape": [4], "type": "TENSOR_QUANT8_ASYMM", "scale": 1, "zeroPoint": 0, "fill": 0})", 3, conv("conv", 4)),
                {"layer 0 (conv)", "names a network input"}},
        BadFile{"SignedZeroPointRange",
                signedGraph(layer("g", "GELU", R"("output": {"scale": 0.5, "zeroPoint": 200})")),
                {"layer 0 (g) output", "zeroPoint in [-128, 127]"}},
        BadFile{"GeluForm", graph(layer("g", "GELU", R"("approximate": "fast", )" + kQuant)),
                {"layer 0 (g)", "\"approximate\" must be \"none\" or \"tanh\""}},
        BadFile{"InputType", R"({"name": "g", "format": 2, "input": {"shape": [4], "type": "TENSOR_FLOAT32", "scale": 1, "zeroPoint": 0, "seed": 1}, "layers": []})",
                {"\"type\" \"TENSOR_FLOAT32\" is not TENSOR_QUANT8_ASYMM or TENSOR_QUANT8_ASYMM_SIGNED"}},
        BadFile{"DuplicateName", graph(conv("a", 4) + "," + conv("a", 4)), {"layer 1 (a)", "layer 0 has the same name"}},
        BadFile{"ReservedName", graph(conv("input", 4)), {"layer 0 (input)", "names a network input, not a layer"}},
        BadFile{"PoolKeepsQuantization",
                graph(layer("p", "MAX_POOL_2D", R"("filter": [2, 2], "stride": 2, "padding": "VALID", "activation": "NONE", "output": {"scale": 0.25, "zeroPoint": 10})")),
                {"layer 0 (p)", "output scale 0.25", "must be 0.5 and 10", "keeps its input's quantization"}},
        BadFile{"SoftmaxQuantization", graph(layer("s", "SOFTMAX", R"("beta": 1.0, )" + kQuant)),
                {"layer 0 (s)", "must be 0.00390625 and 0"}},
        BadFile{"ReshapeCount", graph(layer("r", "RESHAPE", R"("shape": [1, 100], )" + kQuant)),
                {"layer 0 (r)", "[1, 100] does not hold the 256 elements"}},
        BadFile{"ReshapeTwoStretches", graph(layer("r", "RESHAPE", R"("shape": [-1, -1], )" + kQuant)),
                {"layer 0 (r)", "-1 once"}},
        BadFile{"MeanAxis", graph(layer("m", "MEAN", R"("axes": [4], "keepDims": true, )" + kQuant)),
                {"layer 0 (m)", "axis 4 is outside a rank-4 input"}},
        BadFile{"ExplicitPaddingSide",
                graph(layer("p", "MAX_POOL_2D", R"("filter": [2, 2], "stride": 1, "padding": {"top": 1, "bottom": 1, "right": 1}, "activation": "NONE", )" + kQuant)),
                {"layer 0 (p) padding", "missing \"left\""}},
        BadFile{"NegativePadding",
                graph(layer("p", "MAX_POOL_2D", R"("filter": [2, 2], "stride": 1, "padding": {"top": -1, "bottom": 0, "left": 0, "right": 0}, "activation": "NONE", )" + kQuant)),
                {"layer 0 (p) padding", "\"top\" is -1"}},
        BadFile{"NegativeWeightDimension",
                graph(R"({"name": "c", "op": "FULLY_CONNECTED", "activation": "NONE", "weights": {"shape": [-1, 256], "seed": 1, "scale": 0.1, "zeroPoint": 0}, "bias": {"seed": 2, "bound": 9}, )" + kQuant + "}"),
                {"layer 0 (c) weights", "\"shape\" must be a list of dimensions"}},
        BadFile{"HugeWeights",
                graph(R"({"name": "c", "op": "FULLY_CONNECTED", "activation": "NONE", "weights": {"shape": [1000000, 1000000], "seed": 1, "scale": 0.1, "zeroPoint": 0}, "bias": {"seed": 2, "bound": 9}, )" + kQuant + "}"),
                {"layer 0 (c) weights", "more than 2^31 elements"}},
        BadFile{"HugeOutput",
                graph(R"({"name": "c", "op": "CONV_2D", "stride": 1, "padding": "SAME", "activation": "NONE", "weights": {"shape": [100000000, 1, 1, 4], "seed": 1, "scale": 0.1, "zeroPoint": 0}, "bias": {"seed": 2, "bound": 9}, )" + kQuant + "}"),
                {"layer 0 (c)", "the output [1, 8, 8, 100000000] has more than 2^31 elements"}},
        // Numbers out of their field's range are refused, not cast (a cast would be undefined
        // behaviour: found by tests/fuzz/network_fuzzer).
        BadFile{"ZeroPointOutOfIntRange",
                graph(layer("p", "MAX_POOL_2D", R"("filter": [2, 2], "stride": 1, "padding": "VALID", "activation": "NONE", "output": {"scale": 0.5, "zeroPoint": 2.0e20})")),
                {"layer 0 (p)", "\"zeroPoint\" must be an integer in [-2147483648, 2147483647]"}},
        BadFile{"FractionalZeroPoint",
                graph(layer("p", "MAX_POOL_2D", R"("filter": [2, 2], "stride": 1, "padding": "VALID", "activation": "NONE", "output": {"scale": 0.5, "zeroPoint": 10.5})")),
                {"layer 0 (p)", "\"zeroPoint\" must be an integer"}},
        BadFile{"ScaleOutOfFloatRange",
                graph(layer("p", "MAX_POOL_2D", R"("filter": [2, 2], "stride": 1, "padding": "VALID", "activation": "NONE", "output": {"scale": 1e300, "zeroPoint": 10})")),
                {"layer 0 (p)", "\"scale\" is 1e+300, out of the range of a 32-bit float"}},
        BadFile{"NegativeSeed",
                graph(R"({"name": "c", "op": "FULLY_CONNECTED", "activation": "NONE", "weights": {"shape": [4, 256], "seed": -1, "scale": 0.1, "zeroPoint": 0}, "bias": {"seed": 2, "bound": 9}, )" + kQuant + "}"),
                {"layer 0 (c) weights", "\"seed\" must be an integer in [0, 18446744073709551615]"}},
        BadFile{"WindowLargerThanInput",
                graph(layer("p", "AVERAGE_POOL_2D", R"("filter": [9, 2], "stride": 1, "padding": "VALID", "activation": "NONE", )" + kQuant)),
                {"layer 0 (p)", "window 9 larger than the (padded) input 8"}}),
    [](const ::testing::TestParamInfo<BadFile>& info) { return std::string(info.param.what); });

// The graph's NNAPI model on the CPU reference device, against values worked out here: a max
// pool with a tall window and padding only on top (operands in NNAPI's order, or the shapes
// would not agree), the input and the pool concatenated on channels, their spatial MEAN
// (quant8: the truncated mean of the raw values), flattened.
TEST(NetworkModel, GraphRunsAsDescribed) {
  const Network net = parseNetwork(
      graph(layer("pool", "MAX_POOL_2D", R"("filter": [3, 1], "stride": 1, "activation": "NONE", "padding": {"top": 2, "bottom": 0, "left": 0, "right": 0}, )" + kQuant) + "," +
            layer("cat", "CONCATENATION", R"("inputs": ["input", "pool"], "axis": 3, )" + kQuant) + "," +
            layer("mean", "MEAN", R"("axes": [1, 2], "keepDims": true, )" + kQuant) + "," +
            layer("flat", "RESHAPE", R"("shape": [1, -1], )" + kQuant)),
      "net.json");
  ASSERT_EQ(net.layers[0].outputShape, (Shape{1, 8, 8, 4}));
  ModelPtr model = buildModel(net);
  ANeuralNetworksDevice* cpu = findDevice(ANEURALNETWORKS_DEVICE_CPU);
  ANeuralNetworksCompilation* rawCompilation = nullptr;
  ASSERT_EQ(ANeuralNetworksCompilation_createForDevices(model.get(), &cpu, 1, &rawCompilation), 0);
  CompilationPtr compilation(rawCompilation);
  ASSERT_EQ(ANeuralNetworksCompilation_finish(rawCompilation), 0);
  ANeuralNetworksExecution* rawExecution = nullptr;
  ASSERT_EQ(ANeuralNetworksExecution_create(rawCompilation, &rawExecution), 0);
  ExecutionPtr execution(rawExecution);
  ASSERT_EQ(ANeuralNetworksExecution_setInput(rawExecution, 0, nullptr, net.input.data(), net.input.size()), 0);
  std::vector<std::vector<uint8_t>> out = {std::vector<uint8_t>(256), std::vector<uint8_t>(512),
                                           std::vector<uint8_t>(8), std::vector<uint8_t>(8)};
  for (int32_t i = 0; i < 4; ++i) {
    ASSERT_EQ(ANeuralNetworksExecution_setOutput(rawExecution, i, nullptr, out[i].data(), out[i].size()), 0);
  }
  ASSERT_EQ(ANeuralNetworksExecution_compute(rawExecution), 0);

  auto in = [&](int y, int x, int c) { return net.input[(y * 8 + x) * 4 + c]; };
  std::vector<uint8_t> pool(256), cat(512);
  for (int y = 0; y < 8; ++y)
    for (int x = 0; x < 8; ++x)
      for (int c = 0; c < 4; ++c) {
        uint8_t m = in(y, x, c);
        for (int dy = 1; dy <= 2 && y - dy >= 0; ++dy) m = std::max(m, in(y - dy, x, c));
        pool[(y * 8 + x) * 4 + c] = m;
        cat[(y * 8 + x) * 8 + c] = in(y, x, c);
        cat[(y * 8 + x) * 8 + 4 + c] = m;
      }
  EXPECT_EQ(out[0], pool);
  EXPECT_EQ(out[1], cat);
  std::vector<uint8_t> mean(8);
  for (int c = 0; c < 8; ++c) {
    int sum = 0;
    for (int p = 0; p < 64; ++p) sum += cat[p * 8 + c];
    mean[c] = static_cast<uint8_t>(sum / 64);
  }
  EXPECT_EQ(out[2], mean);
  EXPECT_EQ(out[3], mean);
}

}  // namespace
}  // namespace weft::tool
