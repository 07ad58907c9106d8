// The transformer layers the importer maps onto org.weft.accel (tools/onnx/Fusion.h,
// ops/Transformer.cpp): the GELU and layer-norm chains exporters write become one WEFT_GELU or
// WEFT_LAYER_NORM, in each grouping they are written in; a chain whose values are read elsewhere,
// whose constants are not the formula's or whose axis is not the last is left alone (converted
// node by node, or refused naming Erf); LayerNormalization itself maps where the extension
// applies and is composed otherwise; without the extension nothing is fused. Then `weft run` on
// such a model as a user runs it: the values are the formulas', and quantized the GELU runs on
// the accelerator.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "ImportError.h"
#include "Importer.h"
#include "Npy.h"
#include "OnnxTestGraph.h"
#include "RunWeft.h"
#include "ToolTestPaths.h"
#include "weft/WeftExtension.h"

namespace weft::onnx {
namespace {

namespace fs = std::filesystem;
using graphs::Graph;
using graphs::importError;
using tool::test::runWeft;

// The org.weft.accel code of each operation of `m` (-1 for NNAPI's own).
std::vector<int> weftCodes(const ImportedModel& m) {
  std::vector<int> codes;
  for (const auto& op : m.model.main.operations) {
    auto code = nn::extensionOperationCode(m.model.extensionNameToPrefix, op.type, WEFT_EXTENSION_NAME);
    codes.push_back(code ? *code : -1);
  }
  return codes;
}

void scalar(Graph& m, const std::string& name, float v) { m.floats(name, {}, {v}); }

void intAttribute(::onnx::NodeProto* n, const std::string& name, int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::INT);
  a->set_i(v);
}

// x [2, 8] -> GELU (exact) in one of the groupings exporters write -> y.
Graph erfGelu(int grouping, float sqrt2 = 1.4142135f) {
  Graph m;
  m.input("x", {"2", "8"});
  scalar(m, "sqrt2", sqrt2);
  scalar(m, "one", 1.0f);
  scalar(m, "half", 0.5f);
  m.node("Div", {"x", "sqrt2"}, {"d"});
  m.node("Erf", {"d"}, {"e"});
  m.node("Add", {"e", "one"}, {"a"});
  if (grouping == 0) {  // torch.nn.GELU: (x * a) * 0.5
    m.node("Mul", {"x", "a"}, {"xa"});
    m.node("Mul", {"xa", "half"}, {"y"}, "gelu_out");
  } else if (grouping == 1) {  // BERT: (x * 0.5) * a
    m.node("Mul", {"x", "half"}, {"xh"});
    m.node("Mul", {"xh", "a"}, {"y"}, "gelu_out");
  } else {  // x * (a * 0.5)
    m.node("Mul", {"half", "a"}, {"ah"});
    m.node("Mul", {"ah", "x"}, {"y"}, "gelu_out");
  }
  m.output("y", 2);
  return m;
}

// GELU's tanh form, x^3 as Pow (GPT-2's gelu_new) or as two Muls (torch's approximate='tanh').
Graph tanhGelu(bool pow) {
  Graph m;
  m.input("x", {"3", "5"});
  scalar(m, "three", 3.0f);
  scalar(m, "c", 0.044715f);
  scalar(m, "k", 0.7978845608f);
  scalar(m, "one", 1.0f);
  scalar(m, "half", 0.5f);
  if (pow) {
    m.node("Pow", {"x", "three"}, {"cube"});
  } else {
    m.node("Mul", {"x", "x"}, {"sq"});
    m.node("Mul", {"sq", "x"}, {"cube"});
  }
  m.node("Mul", {"cube", "c"}, {"cc"});
  m.node("Add", {"x", "cc"}, {"u"});
  m.node("Mul", {"u", "k"}, {"t"});
  m.node("Tanh", {"t"}, {"th"});
  m.node("Add", {"th", "one"}, {"a"});
  m.node("Mul", {"x", "a"}, {"xa"});
  m.node("Mul", {"xa", "half"}, {"y"});
  m.output("y", 2);
  return m;
}

// x [2, 3, 8] -> layer norm over the last axis as exporters before opset 17 write it.
Graph layerNormChain(bool squareAsMul, bool affine, std::vector<int64_t> axes = {-1}) {
  Graph m;
  m.input("x", {"2", "3", "8"});
  scalar(m, "two", 2.0f);
  scalar(m, "eps", 1e-5f);
  std::vector<float> gamma(8), beta(8);
  for (int c = 0; c < 8; ++c) {
    gamma[c] = 0.5f + 0.1f * static_cast<float>(c);
    beta[c] = -0.2f * static_cast<float>(c);
  }
  m.floats("gamma", {8}, gamma);
  m.floats("beta", {8}, beta);
  m.ints(m.node("ReduceMean", {"x"}, {"mean"}), "axes", axes);
  m.node("Sub", {"x", "mean"}, {"d"});
  if (squareAsMul) {
    m.node("Mul", {"d", "d"}, {"sq"});
  } else {
    m.node("Pow", {"d", "two"}, {"sq"});
  }
  m.ints(m.node("ReduceMean", {"sq"}, {"var"}), "axes", axes);
  m.node("Add", {"var", "eps"}, {"ve"});
  m.node("Sqrt", {"ve"}, {"sd"});
  m.node("Div", {"d", "sd"}, {affine ? "n" : "y"});
  if (affine) {
    m.node("Mul", {"n", "gamma"}, {"g"});
    m.node("Add", {"g", "beta"}, {"y"}, "ln_out");
  }
  m.output("y", 3);
  return m;
}

TEST(OnnxTransformer, EachGroupingOfTheErfGeluIsOneWeftGelu) {
  for (int grouping = 0; grouping < 3; ++grouping) {
    SCOPED_TRACE(grouping);
    const ImportedModel m = erfGelu(grouping).import();
    ASSERT_EQ(weftCodes(m), std::vector<int>{WEFT_GELU});
    const auto& op = m.model.main.operations[0];
    ASSERT_EQ(op.inputs.size(), 2u);
    EXPECT_EQ(m.model.main.operands[op.inputs[1]].data.at<int32_t>(0), WEFT_GELU_EXACT);
    EXPECT_EQ(m.model.extensionNameToPrefix.at(0).name, WEFT_EXTENSION_NAME);
    int folded = 0;
    for (const auto& n : m.nodes) folded += n.folded ? 1 : 0;
    EXPECT_EQ(folded, 4);  // the other nodes of the chain, lowered with its last
  }
}

TEST(OnnxTransformer, BothSpellingsOfTheTanhGeluAreOneWeftGelu) {
  for (const bool pow : {true, false}) {
    const ImportedModel m = tanhGelu(pow).import();
    ASSERT_EQ(weftCodes(m), std::vector<int>{WEFT_GELU}) << "pow " << pow;
    EXPECT_EQ(m.model.main.operands[m.model.main.operations[0].inputs[1]].data.at<int32_t>(0), WEFT_GELU_TANH);
  }
}

TEST(OnnxTransformer, ChainsThatAreNotExactlyGeluAreLeftAlone) {
  // Another constant: erf(x / 2) is not GELU, and Erf alone has no NNAPI operation.
  EXPECT_NE(importError(erfGelu(0, 2.0f)).find("operator Erf is not supported"), std::string::npos);
  // A value inside the chain read elsewhere (here a second output).
  Graph shared = erfGelu(0);
  shared.output("e", 2);
  EXPECT_NE(importError(shared).find("operator Erf is not supported"), std::string::npos);
  // Without the extension nothing is fused.
  ImportOptions plain;
  plain.weftExtensions = false;
  EXPECT_NE(importError(erfGelu(1), plain).find("operator Erf is not supported"), std::string::npos);
  const ImportedModel tanhOps = tanhGelu(false).import(plain);
  EXPECT_GT(tanhOps.model.main.operations.size(), 5u);
  EXPECT_TRUE(tanhOps.model.extensionNameToPrefix.empty());
}

TEST(OnnxTransformer, TheExportersLayerNormIsOneWeftLayerNorm) {
  for (const bool mul : {false, true}) {
    for (const bool affine : {true, false}) {
      SCOPED_TRACE(fmt::format("square as Mul {}, gamma and beta {}", mul, affine));
      const ImportedModel m = layerNormChain(mul, affine).import();
      ASSERT_EQ(weftCodes(m), std::vector<int>{WEFT_LAYER_NORM});
      const auto& op = m.model.main.operations[0];
      ASSERT_EQ(op.inputs.size(), 4u);
      const auto& gamma = m.model.main.operands[op.inputs[1]];
      EXPECT_EQ(gamma.dimensions, (std::vector<uint32_t>{8}));
      EXPECT_FLOAT_EQ(gamma.data.at<float>(3), affine ? 0.8f : 1.0f);
      EXPECT_FLOAT_EQ(m.model.main.operands[op.inputs[2]].data.at<float>(2), affine ? -0.4f : 0.0f);
      EXPECT_FLOAT_EQ(m.model.main.operands[op.inputs[3]].data.at<float>(0), 1e-5f);
    }
  }
  // Over another axis it is not WEFT_LAYER_NORM's: converted node by node.
  const ImportedModel middle = layerNormChain(false, true, {1}).import();
  for (int code : weftCodes(middle)) EXPECT_EQ(code, -1);
  EXPECT_GT(middle.model.main.operations.size(), 5u);
}

TEST(OnnxTransformer, LayerNormalizationMapsWhereTheExtensionAppliesAndIsComposedElsewhere) {
  auto graph = [](int64_t axis, bool statistics) {
    Graph m(17);
    m.input("x", {"2", "3", "8"});
    m.floats("gamma", axis == -1 ? std::vector<int64_t>{8} : std::vector<int64_t>{3, 8}, std::vector<float>(axis == -1 ? 8 : 24, 1.5f));
    auto* n = m.node("LayerNormalization", {"x", "gamma"}, statistics ? std::vector<std::string>{"y", "mean"}
                                                                       : std::vector<std::string>{"y"});
    intAttribute(n, "axis", axis);
    m.output("y", 3);
    if (statistics) m.output("mean", 3);
    return m;
  };
  EXPECT_EQ(weftCodes(graph(-1, false).import()), std::vector<int>{WEFT_LAYER_NORM});
  for (const auto& [axis, statistics] : {std::pair{int64_t{1}, false}, std::pair{int64_t{-1}, true}}) {
    const ImportedModel m = graph(axis, statistics).import();
    for (int code : weftCodes(m)) EXPECT_EQ(code, -1) << "axis " << axis << " statistics " << statistics;
  }
  ImportOptions plain;
  plain.weftExtensions = false;
  for (int code : weftCodes(graph(-1, false).import(plain))) EXPECT_EQ(code, -1);
}

// PyTorch's GroupNorm: a Reshape to [N, groups, -1], InstanceNormalization of scale 1 and bias 0
// over rank 3, a Reshape back, then the affine. The InstanceNormalization is one WEFT_LAYER_NORM
// over [N, groups, L] (no reshape, no identity affine); other ranks are seen as such rows; without
// the extension NNAPI's INSTANCE_NORMALIZATION reads them as an [N, C, L, 1] image.
TEST(OnnxTransformer, InstanceNormsOfAnyRankAreLayerNormsOverTheirRows) {
  const auto graph = [](const std::vector<std::string>& dims, float scale) {
    Graph m;
    m.input("x", dims);
    const int64_t c = std::stoll(dims[1]);
    m.floats("scale", {c}, std::vector<float>(static_cast<size_t>(c), scale));
    m.floats("bias", {c}, std::vector<float>(static_cast<size_t>(c), 0.0f));
    m.node("InstanceNormalization", {"x", "scale", "bias"}, {"y"});
    m.output("y", static_cast<int>(dims.size()));
    return m;
  };
  EXPECT_EQ(weftCodes(graph({"2", "4", "6"}, 1.0f).import()), std::vector<int>{WEFT_LAYER_NORM});
  const ImportedModel affine = graph({"2", "4", "6"}, 0.5f).import();
  EXPECT_EQ(weftCodes(affine), (std::vector<int>{WEFT_LAYER_NORM, -1, -1}));  // then MUL, ADD by channel
  const ImportedModel rank5 = graph({"1", "2", "3", "2", "2"}, 1.0f).import();
  EXPECT_EQ(weftCodes(rank5), (std::vector<int>{-1, WEFT_LAYER_NORM, -1}));  // RESHAPE to [1, 2, 12] and back
  EXPECT_EQ(rank5.model.main.operands[rank5.model.main.operations[1].inputs[0]].dimensions,
            (std::vector<uint32_t>{1, 2, 12}));
  ImportOptions plain;
  plain.weftExtensions = false;
  const ImportedModel image = graph({"2", "4", "6"}, 1.0f).import(plain);
  ASSERT_EQ(image.model.main.operations.size(), 3u);
  const auto& norm = image.model.main.operations[1];
  EXPECT_EQ(norm.type, nn::OperationType::INSTANCE_NORMALIZATION);
  EXPECT_EQ(image.model.main.operands[norm.inputs[0]].dimensions, (std::vector<uint32_t>{2, 4, 6, 1}));
  EXPECT_NE(importError(graph({"2", "4"}, 1.0f)).find("an input of rank below 3"), std::string::npos);
}

double gelu(double x) { return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0))); }

// Layer norm then GELU, as `weft run` runs them: float values are the formulas', and with
// --quantize int8 on weft8 the GELU runs on the accelerator through its lookup table.
TEST(WeftRunTransformerOnnx, LayerNormThenGeluAreTheFormulasAndQuantizedRunOnTheAccelerator) {
  Graph m = layerNormChain(false, true);
  scalar(m, "sqrt2", 1.4142135f);
  scalar(m, "one", 1.0f);
  scalar(m, "half", 0.5f);
  m.g->mutable_output()->Clear();
  m.node("Div", {"y", "sqrt2"}, {"gd"});
  m.node("Erf", {"gd"}, {"ge"});
  m.node("Add", {"ge", "one"}, {"ga"});
  m.node("Mul", {"y", "ga"}, {"gm"});
  m.node("Mul", {"gm", "half"}, {"out"}, "gelu");
  m.output("out", 3);
  const std::string model = testing::TempDir() + "ln_gelu.onnx", input = testing::TempDir() + "ln_gelu_x.npy",
                    outputs = testing::TempDir() + "ln_gelu_out", json = testing::TempDir() + "ln_gelu.json";
  m.save(model);
  HostTensor x(DType::kFloat, {2, 3, 8});
  for (int64_t i = 0; i < x.size(); ++i) x.setDouble(i, std::sin(0.7 * static_cast<double>(i)) * 3.0);
  writeNpy(input, x);
  fs::remove_all(outputs);
  auto r = runWeft("--backend approx --hw weft8 run " + model + " --quiet --input x=" + input + " --save-outputs " +
                       outputs + " --json " + json + " --csv " + json + ".csv",
                   "WEFT_YOSYS=none");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  const HostTensor y = readNpy(outputs + "/out.npy");
  ASSERT_EQ(y.shape, (Shape{2, 3, 8}));
  for (int64_t row = 0; row < 6; ++row) {
    double mean = 0, var = 0;
    for (int c = 0; c < 8; ++c) mean += x.asDouble(row * 8 + c) / 8;
    for (int c = 0; c < 8; ++c) var += std::pow(x.asDouble(row * 8 + c) - mean, 2) / 8;
    for (int c = 0; c < 8; ++c) {
      const double n = (x.asDouble(row * 8 + c) - mean) / std::sqrt(var + 1e-5) * (0.5 + 0.1 * c) - 0.2 * c;
      EXPECT_NEAR(y.asDouble(row * 8 + c), gelu(n), 1e-5) << "row " << row << " channel " << c;
    }
  }
  r = runWeft("--backend approx --hw weft8 run " + model + " --quiet --quantize int8 --input x=" + input + " --json " +
                  json + " --csv " + json + ".csv",
              "WEFT_YOSYS=none");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  const auto report = nlohmann::json::parse(std::ifstream(json));
  bool geluOnTheAccelerator = false;
  for (const auto& layer : report.at("layers")) {
    if (layer.at("name") == "gelu") geluOnTheAccelerator = layer.at("device") == "weft-accel";
  }
  EXPECT_TRUE(geluOnTheAccelerator) << report.at("layers").dump(1);
}

}  // namespace
}  // namespace weft::onnx
