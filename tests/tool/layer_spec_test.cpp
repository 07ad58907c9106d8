// Layer set entries of the vector-unit operations (tools/weft/LayerSpec.h) and layer sets as
// loadLayerTable reads them: the shapes, quantization and data each entry gets, the errors bad
// entries get (naming the entry, the layer and the field), bundled networks' layers of any op
// run alone, and the NNAPI models built from entries running on the CPU reference device.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "LayerSpec.h"
#include "LayerTable.h"
#include "NetworkModel.h"
#include "ToolTestPaths.h"

using weft::tool::test::sourceDir;

namespace weft::tool {
namespace {

using Shape = std::vector<uint32_t>;

LayerSpec spec(const std::string& entry) { return parseLayerSpec(nlohmann::json::parse(entry), 3); }

std::string errorOf(const std::string& entry) {
  try {
    spec(entry);
  } catch (const NetworkError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(LayerSpec, DepthwiseShapesAndData) {
  const LayerSpec s = spec(R"({"name": "dw", "op": "DEPTHWISE_CONV_2D", "input": [1, 9, 7, 5], "kernel": [3, 3],
      "depthMultiplier": 2, "stride": 2, "dilation": 2, "padding": "SAME", "activation": "RELU6"})");
  const Layer& l = s.network.layers.front();
  EXPECT_EQ(l.weightShape, (Shape{1, 3, 3, 10}));
  EXPECT_EQ(l.outputShape, (Shape{1, 5, 4, 10}));
  EXPECT_EQ(l.depthMultiplier, 2);
  EXPECT_EQ(l.dilation, 2);
  EXPECT_EQ(l.activation, 3);
  EXPECT_EQ(s.seed, 1000u + 16 * 3);  // the default: 1000 + 16 x the entry's position
  EXPECT_EQ(s.network.inputQuant.zeroPoint, 128);
  const Network net = buildLayer(s);
  EXPECT_EQ(net.input.size(), 9u * 7 * 5);
  EXPECT_EQ(net.layers.front().weights.size(), 3u * 3 * 10);
  EXPECT_EQ(net.layers.front().bias.size(), 10u);
  EXPECT_EQ(buildLayer(s).input, net.input) << "the data is deterministic";
}

// The three ways of filling a built layer: drawn data, zero pages (the timing backend), nothing
// (sizing); the shapes, and so tensorBytes, are the same for all three.
TEST(LayerSpec, ZeroPageAndShapeOnlyBuildsKeepTheShapes) {
  const LayerSpec s = spec(R"({"name": "dw", "op": "DEPTHWISE_CONV_2D", "input": [1, 9, 7, 5], "kernel": [3, 3],
      "depthMultiplier": 2, "padding": "SAME", "weightZeroPoint": 7})");
  const Network drawn = buildLayer(s, TensorValues::kDrawn), zero = buildLayer(s, TensorValues::kZeroPages),
                none = buildLayer(s, TensorValues::kNone);
  // 315 input bytes, 90 weights, 10 int32 biases, 630 output bytes.
  for (const Network* net : {&drawn, &zero, &none}) EXPECT_EQ(tensorBytes(*net), 315u + 90 + 40 + 630);
  EXPECT_EQ(drawn.input.size(), 315u);
  EXPECT_EQ(drawn.layers.front().weights.size(), 90u);
  // Zero pages: no bytes held, zeros given in their place (and the biases, small, as zeros).
  EXPECT_TRUE(zero.input.empty());
  EXPECT_TRUE(zero.layers.front().weights.empty());
  EXPECT_EQ(zero.layers.front().bias, std::vector<int32_t>(10, 0));
  EXPECT_EQ(zero.inputBytes(0), 315u);
  const uint8_t* pages = bytesOrZeroPages(zero.input, zero.inputBytes(0));
  ASSERT_NE(pages, nullptr);
  EXPECT_TRUE(std::all_of(pages, pages + 315, [](uint8_t b) { return b == 0; }));
  EXPECT_EQ(bytesOrZeroPages(drawn.input, 315), drawn.input.data());
  // A larger request than any before gets a mapping of its size, all zeros.
  const uint8_t* large = zeroPages(3u << 20);
  EXPECT_EQ(large[0], 0);
  EXPECT_EQ(large[(3u << 20) - 1], 0);
  EXPECT_TRUE(none.input.empty());
  EXPECT_TRUE(none.layers.front().weights.empty());
}

TEST(LayerSpec, SignedTensorsGetSignedZeroPointsAndWeights) {
  const LayerSpec s = spec(R"({"name": "dw", "op": "DEPTHWISE_CONV_2D", "type": "TENSOR_QUANT8_ASYMM_SIGNED",
      "input": [1, 4, 4, 3], "kernel": [2, 2], "weightZeroPoint": -100})");
  EXPECT_TRUE(s.network.isSigned);
  EXPECT_EQ(s.network.inputQuant.zeroPoint, 0);
  EXPECT_EQ(s.network.layers.front().outputQuant.zeroPoint, 0);
  const Network net = buildLayer(s);
  // Weights are drawn around their zero point -100: as int8, most are far below 0.
  int below = 0;
  for (uint8_t w : net.layers.front().weights) below += static_cast<int8_t>(w) < -50;
  EXPECT_GT(below, 6);
}

TEST(LayerSpec, BinaryOpsBroadcastAndEachInputHasItsQuantization) {
  const LayerSpec s = spec(R"({"name": "m", "op": "MUL", "inputs": [{"shape": [1, 6, 6, 8], "scale": 0.5, "zeroPoint": 3},
      {"shape": [8], "scale": 0.25}], "activation": "RELU"})");
  const Network& net = s.network;
  ASSERT_EQ(net.inputCount(), 2u);
  EXPECT_EQ(net.extraInputs[0].shape, (Shape{8}));
  EXPECT_EQ(net.extraInputs[0].quant.scale, 0.25f);
  EXPECT_EQ(net.extraInputs[0].quant.zeroPoint, 128);
  EXPECT_EQ(net.inputQuant.zeroPoint, 3);
  EXPECT_EQ(net.layers.front().outputShape, (Shape{1, 6, 6, 8}));
  EXPECT_EQ(net.layers.front().inputs, (std::vector<int>{networkInput(0), networkInput(1)}));
  EXPECT_EQ(buildLayer(s).extraInputs[0].data.size(), 8u);
}

// LAYER_NORM's gamma and beta: one per element of a row, drawn from the seed (the same seed the
// same values, another seed others), of both signs.
TEST(LayerSpec, LayerNormAffineFromItsSeed) {
  auto draw = [](int seed) {
    return spec(fmt::format(R"({{"name": "n", "op": "LAYER_NORM", "input": [2, 64], "affineSeed": {}}})", seed)).network;
  };
  const Network a = draw(5), b = draw(5), c = draw(6);
  const Layer& l = a.layers.front();
  ASSERT_EQ(l.affineGamma.size(), 64u);
  ASSERT_EQ(l.affineBeta.size(), 64u);
  EXPECT_EQ(l.affineGamma, b.layers.front().affineGamma);
  EXPECT_NE(l.affineGamma, c.layers.front().affineGamma);
  EXPECT_TRUE(std::any_of(l.affineGamma.begin(), l.affineGamma.end(), [](float g) { return g < 0; }));
  EXPECT_TRUE(std::any_of(l.affineGamma.begin(), l.affineGamma.end(), [](float g) { return g > 0; }));
  EXPECT_FLOAT_EQ(l.epsilon, 1e-5f);
}

TEST(LayerSpec, FixedAndKeptOutputQuantizations) {
  EXPECT_EQ(spec(R"({"name": "t", "op": "TANH", "input": [10]})").network.layers[0].outputQuant.zeroPoint, 128);
  const auto signedTanh = spec(R"({"name": "t", "op": "TANH", "type": "TENSOR_QUANT8_ASYMM_SIGNED", "input": [10]})");
  EXPECT_EQ(signedTanh.network.layers[0].outputQuant.scale, 1.0f / 128);
  EXPECT_EQ(signedTanh.network.layers[0].outputQuant.zeroPoint, 0);
  const auto logistic = spec(R"({"name": "s", "op": "LOGISTIC", "type": "TENSOR_QUANT8_ASYMM_SIGNED", "input": [10]})");
  EXPECT_EQ(logistic.network.layers[0].outputQuant.zeroPoint, -128);
  const auto pad = spec(R"({"name": "p", "op": "PAD_V2", "input": [2, 3], "inputScale": 0.5, "inputZeroPoint": 7,
      "paddings": [[1, 0], [0, 2]], "value": 9})");
  EXPECT_EQ(pad.network.layers[0].outputShape, (Shape{3, 5}));
  EXPECT_EQ(pad.network.layers[0].outputQuant.scale, 0.5f);
  EXPECT_EQ(pad.network.layers[0].outputQuant.zeroPoint, 7);
  const auto mean = spec(R"({"name": "m", "op": "MEAN", "input": [2, 3], "axes": [0, -1]})");
  EXPECT_EQ(mean.network.layers[0].outputShape, (Shape{1}));
  const auto cat = spec(R"({"name": "c", "op": "CONCATENATION", "axis": -1, "inputs": [{"shape": [2, 3]},
      {"shape": [2, 1]}, {"shape": [2, 4], "scale": 2}], "output": {"scale": 0.1, "zeroPoint": 5}})");
  EXPECT_EQ(cat.network.layers[0].outputShape, (Shape{2, 8}));
  EXPECT_EQ(cat.network.layers[0].outputQuant.zeroPoint, 5);
}

struct BadEntry {
  const char* what;
  std::string entry;
  std::vector<std::string> expected;  // each must appear in the error
};
void PrintTo(const BadEntry& e, std::ostream* out) { *out << e.what; }

class LayerSpecError : public ::testing::TestWithParam<BadEntry> {};

TEST_P(LayerSpecError, NamesTheEntryTheLayerAndTheField) {
  const std::string error = errorOf(GetParam().entry);
  for (const std::string& part : GetParam().expected) EXPECT_NE(error.find(part), std::string::npos) << error;
}

INSTANTIATE_TEST_SUITE_P(
    BadEntries, LayerSpecError,
    ::testing::Values(
        BadEntry{"UnknownField", R"({"name": "p", "op": "MAX_POOL_2D", "input": [1, 4, 4, 2], "window": [2, 2], "strides": 2})",
                 {"layer set entry 3 (p)", "unknown field \"strides\"", "stride", "window"}},
        BadEntry{"UnknownOp", R"({"name": "x", "op": "CONV_3D", "input": [4]})", {"entry 3 (x)", "\"CONV_3D\"", "PAD_V2"}},
        BadEntry{"BadType", R"({"name": "r", "op": "RELU", "input": [4], "type": "TENSOR_FLOAT32"})",
                 {"entry 3 (r)", "\"type\" \"TENSOR_FLOAT32\"", "TENSOR_QUANT8_ASYMM_SIGNED"}},
        BadEntry{"InputsForOneInputOp", R"({"name": "r", "op": "RELU", "inputs": [{"shape": [4]}]})",
                 {"entry 3 (r)", "unknown field \"inputs\""}},
        BadEntry{"InputForTwoInputOp", R"({"name": "a", "op": "ADD", "input": [4]})",
                 {"entry 3 (a)", "unknown field \"input\""}},
        BadEntry{"OneInputForAdd", R"({"name": "a", "op": "ADD", "inputs": [{"shape": [4]}]})",
                 {"entry 3 (a)", "\"inputs\" must list 2 tensors for ADD"}},
        BadEntry{"NoBroadcast", R"({"name": "a", "op": "SUB", "inputs": [{"shape": [2, 4]}, {"shape": [3]}]})",
                 {"entry 3 (a)", "SUB inputs 'input' [2, 4] and 'input1' [3] do not broadcast"}},
        BadEntry{"InputFieldOfAnInput", R"({"name": "a", "op": "ADD", "inputs": [{"shape": [4]}, {"shape": [4], "zp": 3}]})",
                 {"entry 3 (a) inputs[1]", "unknown field \"zp\""}},
        BadEntry{"SignedZeroPoint", R"({"name": "r", "op": "RELU6", "type": "TENSOR_QUANT8_ASYMM_SIGNED", "input": [4], "inputZeroPoint": 200})",
                 {"entry 3 (r)", "\"inputZeroPoint\" is 200, not in [-128, 127]"}},
        BadEntry{"RankFive", R"({"name": "r", "op": "RELU", "input": [1, 2, 3, 4, 5]})",
                 {"entry 3 (r)", "\"input\" must have 1 to 4 dimensions"}},
        BadEntry{"PoolNeedsRank4", R"({"name": "p", "op": "AVERAGE_POOL_2D", "input": [4, 4], "window": [2, 2]})",
                 {"entry 3 (p)", "needs a 4-D NHWC input"}},
        BadEntry{"MissingWindow", R"({"name": "p", "op": "AVERAGE_POOL_2D", "input": [1, 4, 4, 1]})",
                 {"entry 3 (p)", "missing \"window\""}},
        BadEntry{"WindowTooLarge", R"({"name": "p", "op": "MAX_POOL_2D", "input": [1, 4, 4, 1], "window": [5, 1]})",
                 {"entry 3 (p)", "window 5 larger than the (padded) input 4"}},
        BadEntry{"DilatedKernelTooLarge", R"({"name": "d", "op": "DEPTHWISE_CONV_2D", "input": [1, 4, 4, 1], "kernel": [3, 3], "dilation": 2})",
                 {"entry 3 (d)", "window 5 larger than the (padded) input 4"}},
        BadEntry{"BadPadding", R"({"name": "d", "op": "DEPTHWISE_CONV_2D", "input": [1, 4, 4, 1], "kernel": [3, 3], "padding": "FULL"})",
                 {"entry 3 (d)", "padding must be SAME, VALID or"}},
        BadEntry{"BadMultiplier", R"({"name": "d", "op": "DEPTHWISE_CONV_2D", "input": [1, 4, 4, 1], "kernel": [1, 1], "depthMultiplier": 0})",
                 {"entry 3 (d)", "\"depthMultiplier\" is 0"}},
        BadEntry{"PaddingsRank", R"({"name": "p", "op": "PAD", "input": [2, 2], "paddings": [[1, 1]]})",
                 {"entry 3 (p)", "\"paddings\" has 1 pairs for a rank-2 input"}},
        BadEntry{"PaddingsForm", R"({"name": "p", "op": "PAD", "input": [2, 2], "paddings": [1, 1, 1, 1]})",
                 {"entry 3 (p)", "\"paddings\" must be [[before, after], ...]"}},
        BadEntry{"PadValueRange", R"({"name": "p", "op": "PAD_V2", "type": "TENSOR_QUANT8_ASYMM_SIGNED", "input": [2], "paddings": [[1, 1]], "value": 200})",
                 {"entry 3 (p)", "\"value\" is 200, not in [-128, 127]"}},
        BadEntry{"SoftmaxOutput", R"({"name": "s", "op": "SOFTMAX", "input": [4], "output": {"scale": 0.5, "zeroPoint": 0}})",
                 {"entry 3 (s)", "must be 0.00390625 and 0", "fixed output quantization"}},
        BadEntry{"ReluKeepsQuantization", R"({"name": "r", "op": "RELU", "input": [4], "output": {"scale": 0.5, "zeroPoint": 0}})",
                 {"entry 3 (r)", "keeps its input's quantization"}},
        BadEntry{"OutputZeroPoint", R"({"name": "a", "op": "ADD", "inputs": [{"shape": [4]}, {"shape": [4]}], "output": {"scale": 0.5, "zeroPoint": 300}})",
                 {"entry 3 (a)", "output zeroPoint 300 is outside [0, 255]"}},
        BadEntry{"BadBeta", R"({"name": "s", "op": "SOFTMAX", "input": [4], "beta": -1})",
                 {"entry 3 (s)", "\"beta\" must be a positive number"}},
        BadEntry{"MeanWithoutAxes", R"({"name": "m", "op": "MEAN", "input": [4]})", {"entry 3 (m)", "missing \"axes\""}},
        BadEntry{"ConcatenationShapes", R"({"name": "c", "op": "CONCATENATION", "axis": 0, "inputs": [{"shape": [2, 3]}, {"shape": [2, 4]}]})",
                 {"entry 3 (c)", "'input' [2, 3] and 'input1' [2, 4] differ outside axis 0"}},
        BadEntry{"ReshapeCount", R"({"name": "r", "op": "RESHAPE", "input": [2, 3], "shape": [4]})",
                 {"entry 3 (r)", "[4] does not hold the 6 elements"}},
        BadEntry{"LayerNormEpsilon", R"({"name": "n", "op": "LAYER_NORM", "input": [2, 8], "epsilon": -1})",
                 {"entry 3 (n)", "\"epsilon\" must be a finite number >= 0"}},
        BadEntry{"LayerNormField", R"({"name": "n", "op": "LAYER_NORM", "input": [2, 8], "gamma": [1]})",
                 {"entry 3 (n)", "unknown field \"gamma\"", "affineSeed"}}),
    [](const ::testing::TestParamInfo<BadEntry>& info) { return std::string(info.param.what); });

std::string writeSet(const std::string& name, const std::string& text) {
  const std::string dir = sourceDir() + "/traces/validation";
  const std::string path = ::testing::TempDir() + "layer_spec_test_" + name + ".json";
  std::ofstream(path) << text;
  return path;
}

// A `networks` entry takes any op, "all" of them, and a prefix; layers that read several tensors
// (ResNet's ADDs) run alone on inputs of their own.
TEST(LayerSet, NetworkLayersOfEveryOpRunAlone) {
  const std::string nets = sourceDir() + "/traces/networks/";
  const std::string path = writeSet("nets", R"({"format": 1, "name": "n", "networks": [
      {"path": ")" + nets + R"(resnet18_224_quant.json", "ops": ["ADD", "SOFTMAX"], "prefix": "r/"},
      {"path": ")" + nets + R"(squeezenet1_1_224_quant.json", "ops": "all", "prefix": "s/"}]})");
  const LayerTable table = loadLayerTable(path);
  ASSERT_EQ(table.layers.size(), 9u + 40u);
  EXPECT_EQ(table.layers[0].name, "r/layer1.0.add");
  EXPECT_EQ(table.layers[8].name, "r/softmax");
  const Network add = table.layers[0].build(TensorValues::kDrawn);
  ASSERT_EQ(add.inputCount(), 2u);
  EXPECT_EQ(add.inputShape, (Shape{1, 56, 56, 64}));
  EXPECT_EQ(add.extraInputs[0].shape, (Shape{1, 56, 56, 64}));
  EXPECT_NE(add.input, add.extraInputs[0].data) << "each input has data of its own";
  EXPECT_EQ(table.layers[9].name, "s/conv1");
}

TEST(LayerSet, BadNetworkOpsAndEntriesAreClearErrors) {
  const std::string nets = sourceDir() + "/traces/networks/";
  auto error = [](const std::string& path) {
    try {
      loadLayerTable(path);
    } catch (const NetworkError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  const std::string badOp = writeSet("bad_op", R"({"format": 1, "name": "n", "networks": [
      {"path": ")" + nets + R"(resnet18_224_quant.json", "ops": ["ADDD"]}]})");
  EXPECT_NE(error(badOp).find("networks ops: op \"ADDD\" is not one of"), std::string::npos) << error(badOp);
  const std::string badEntry = writeSet("bad_entry", R"({"format": 1, "name": "n", "layers": [
      {"name": "ok", "op": "RELU", "input": [3]}, {"name": "bad", "op": "RELU", "input": [3], "beta": 1}]})");
  EXPECT_NE(error(badEntry).find("layer set entry 1 (bad): unknown field \"beta\""), std::string::npos)
      << error(badEntry);
}

// Convolution and fully-connected entries take a type too, and name unknown fields.
TEST(LayerSet, SignedConvolutionsAndTheirErrors) {
  const std::string path = writeSet("conv", R"({"format": 1, "name": "n", "layers": [
      {"name": "c", "op": "CONV_2D", "type": "TENSOR_QUANT8_ASYMM_SIGNED", "input": [1, 5, 5, 3], "filters": 4, "kernel": [3, 3], "weightZeroPoint": -3},
      {"name": "f", "op": "FULLY_CONNECTED", "type": "TENSOR_QUANT8_ASYMM_SIGNED", "input": [2, 7], "units": 3}]})");
  const LayerTable table = loadLayerTable(path);
  const Network conv = table.layers[0].build(TensorValues::kDrawn);
  EXPECT_TRUE(conv.isSigned);
  EXPECT_EQ(conv.inputQuant.zeroPoint, 0);
  EXPECT_EQ(conv.layers[0].weightQuant.zeroPoint, -3);
  EXPECT_EQ(conv.layers[0].outputQuant.zeroPoint, 0);
  int below = 0;  // weights drawn around -3 as int8: about half below it
  for (uint8_t w : conv.layers[0].weights) below += static_cast<int8_t>(w) < -3;
  EXPECT_GT(below, 20);
  EXPECT_LT(below, 88);
  EXPECT_TRUE(table.layers[1].build(TensorValues::kDrawn).isSigned);
  auto error = [](const std::string& p) {
    try {
      loadLayerTable(p);
    } catch (const NetworkError& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  const std::string typo = writeSet("conv_typo", R"({"format": 1, "name": "n", "layers": [
      {"name": "c", "op": "CONV_2D", "input": [1, 5, 5, 3], "filters": 4, "kernel": [3, 3], "strides": 2}]})");
  EXPECT_NE(error(typo).find("layer set entry 0 (c): unknown field \"strides\""), std::string::npos) << error(typo);
  const std::string zp = writeSet("conv_zp", R"({"format": 1, "name": "n", "layers": [
      {"name": "f", "op": "FULLY_CONNECTED", "type": "TENSOR_QUANT8_ASYMM_SIGNED", "input": [2, 7], "units": 3, "inputZeroPoint": 128}]})");
  EXPECT_NE(error(zp).find("layer set entry 0 (f): \"inputZeroPoint\" is 128, not in [-128, 127]"), std::string::npos)
      << error(zp);
}

// Every vector op's entry builds a model the CPU reference compiles and runs, signed and with
// several inputs: the operands follow NNAPI's signatures.
TEST(LayerSet, EntriesRunOnTheReferenceDevice) {
  const std::string path = writeSet("run", R"({"format": 1, "name": "n", "layers": [
      {"name": "dw", "op": "DEPTHWISE_CONV_2D", "input": [1, 6, 6, 3], "kernel": [3, 3], "depthMultiplier": 2, "dilation": 2, "padding": "SAME"},
      {"name": "avg", "op": "AVERAGE_POOL_2D", "type": "TENSOR_QUANT8_ASYMM_SIGNED", "input": [2, 5, 5, 3], "window": [2, 2], "stride": 3},
      {"name": "sub", "op": "SUB", "type": "TENSOR_QUANT8_ASYMM_SIGNED", "inputs": [{"shape": [2, 5]}, {"shape": [1], "scale": 0.1}]},
      {"name": "relu1", "op": "RELU1", "input": [7]},
      {"name": "tanh", "op": "TANH", "input": [2, 9], "inputScale": 0.05},
      {"name": "soft", "op": "SOFTMAX", "input": [2, 1001], "beta": 0.5},
      {"name": "mean", "op": "MEAN", "input": [1, 3, 3, 4], "axes": [1, 2], "keepDims": true},
      {"name": "pad", "op": "PAD_V2", "input": [1, 2, 2, 1], "paddings": [[0, 0], [1, 1], [1, 1], [0, 0]], "value": 3},
      {"name": "cat", "op": "CONCATENATION", "axis": 1, "inputs": [{"shape": [1, 2, 3]}, {"shape": [1, 1, 3], "scale": 0.3}, {"shape": [1, 4, 3]}]},
      {"name": "flat", "op": "RESHAPE", "input": [2, 3, 4], "shape": [-1]},
      {"name": "conv", "op": "CONV_2D", "type": "TENSOR_QUANT8_ASYMM_SIGNED", "input": [1, 5, 5, 3], "filters": 4, "kernel": [3, 3], "padding": "SAME"},
      {"name": "fc", "op": "FULLY_CONNECTED", "type": "TENSOR_QUANT8_ASYMM_SIGNED", "input": [2, 7], "units": 3}]})");
  const LayerTable table = loadLayerTable(path);
  ANeuralNetworksDevice* cpu = findDevice(ANEURALNETWORKS_DEVICE_CPU);
  for (const LayerEntry& entry : table.layers) {
    SCOPED_TRACE(entry.name);
    const Network net = entry.build(TensorValues::kDrawn);
    ModelPtr model = buildModel(net);
    ANeuralNetworksCompilation* raw = nullptr;
    ASSERT_EQ(ANeuralNetworksCompilation_createForDevices(model.get(), &cpu, 1, &raw), 0);
    CompilationPtr compilation(raw);
    ASSERT_EQ(ANeuralNetworksCompilation_finish(raw), 0);
    ANeuralNetworksExecution* rawExecution = nullptr;
    ASSERT_EQ(ANeuralNetworksExecution_create(raw, &rawExecution), 0);
    ExecutionPtr execution(rawExecution);
    for (size_t i = 0; i < net.inputCount(); ++i) {
      const auto& data = net.inputData(i);
      ASSERT_EQ(ANeuralNetworksExecution_setInput(rawExecution, static_cast<int32_t>(i), nullptr, data.data(), data.size()), 0);
    }
    size_t bytes = 1;
    for (uint32_t d : net.layers.front().outputShape) bytes *= d;
    std::vector<uint8_t> out(bytes);
    ASSERT_EQ(ANeuralNetworksExecution_setOutput(rawExecution, 0, nullptr, out.data(), out.size()), 0);
    ASSERT_EQ(ANeuralNetworksExecution_compute(rawExecution), 0);
  }
}

}  // namespace
}  // namespace weft::tool
