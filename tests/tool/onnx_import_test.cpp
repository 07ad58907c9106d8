// The ONNX importer (tools/onnx) on models built here: shape arithmetic folds away, symbolic
// dimensions bind, batch norms and reshapes become what NNAPI runs, and every kind of bad input
// is an ImportError naming what is wrong. Then `weft run` on ONNX files as a user runs it: a model
// with seeded inputs passes its reference check and saves its outputs; files that are not ONNX,
// truncated ones, bad inputs and options exit with code 2 and write nothing.
#include <gtest/gtest.h>

#include <cstring>
#include <onnx/onnx_pb.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>
#include <fstream>
#include <set>

#include "ImportError.h"
#include "Importer.h"
#include "Npy.h"
#include "OnnxTestGraph.h"
#include "RunWeft.h"
#include "ToolTestPaths.h"

namespace weft::onnx {
namespace {

namespace fs = std::filesystem;
using tool::test::runWeft;
using graphs::Graph;
using graphs::importError;


std::multiset<nn::OperationType> operationsOf(const ImportedModel& m) {
  std::multiset<nn::OperationType> ops;
  for (const auto& op : m.model.main.operations) ops.insert(op.type);
  return ops;
}

// An exporter's flatten: Shape -> Gather -> Unsqueeze -> Concat -> Reshape, all folded into
// one RESHAPE with a constant shape.
TEST(OnnxImport, ShapeArithmeticFoldsIntoOneReshape) {
  Graph m;
  m.input("x", {"N", "3", "4", "5"});
  m.node("Shape", {"x"}, {"shape"});
  m.int64s("zero", {0});
  m.node("Gather", {"shape", "zero"}, {"batch"});
  m.int64s("minus_one", {-1});
  m.node("Concat", {"batch", "minus_one"}, {"target"})->add_attribute()->set_name("axis");
  m.g->mutable_node(2)->mutable_attribute(0)->set_type(::onnx::AttributeProto::INT);
  m.g->mutable_node(2)->mutable_attribute(0)->set_i(0);
  m.node("Reshape", {"x", "target"}, {"flat"});
  m.node("Relu", {"flat"}, {"y"});
  m.output("y", 2);
  const ImportedModel imported = m.import();
  EXPECT_EQ(operationsOf(imported), (std::multiset<nn::OperationType>{nn::OperationType::RESHAPE, nn::OperationType::RELU}));
  ASSERT_EQ(imported.outputs.size(), 1u);
  EXPECT_EQ(imported.outputs[0].shape, (Shape{1, 60}));
  // The symbolic batch dimension defaulted to 1, and the user is told.
  ASSERT_EQ(imported.notes.size(), 1u);
  EXPECT_NE(imported.notes[0].find("'N'"), std::string::npos) << imported.notes[0];
  EXPECT_EQ(imported.nodes.size(), 5u);
  EXPECT_TRUE(imported.nodes[0].folded);
  EXPECT_FALSE(imported.nodes[3].folded);
}

// torchvision's VisionTransformer: the class token expanded by a shape only folding can compute
// (ConstantOfShape, Mul, Equal, Where: torch's expand(n, -1, -1)), then concatenated to the
// patches. The first round of shape inference leaves the concatenation's length symbolic; once
// folded, it is known.
TEST(OnnxImport, ShapesLeftSymbolicBeforeFoldingAreInferredAfterIt) {
  Graph m;
  m.input("patches", {"1", "4", "8"});
  m.floats("token", {1, 1, 8}, std::vector<float>(8, 0.5f));
  m.int64s("three", {3});
  m.int64s("requested", {1, -1, -1});
  m.g->add_initializer()->CopyFrom([] {
    ::onnx::TensorProto t;
    t.set_name("minus_one");
    t.set_data_type(::onnx::TensorProto::INT64);
    t.add_int64_data(-1);
    return t;
  }());
  auto* ones = m.node("ConstantOfShape", {"three"}, {"ones"});
  auto* value = ones->add_attribute();
  value->set_name("value");
  value->set_type(::onnx::AttributeProto::TENSOR);
  value->mutable_t()->set_data_type(::onnx::TensorProto::INT64);
  value->mutable_t()->add_dims(1);
  value->mutable_t()->add_int64_data(1);
  m.node("Mul", {"ones", "minus_one"}, {"negative"});
  m.node("Equal", {"requested", "negative"}, {"keep"});
  m.node("Where", {"keep", "ones", "requested"}, {"shape"});
  m.node("Expand", {"token", "shape"}, {"tokens"});
  auto* concat = m.node("Concat", {"tokens", "patches"}, {"sequence"});
  auto* axis = concat->add_attribute();
  axis->set_name("axis");
  axis->set_type(::onnx::AttributeProto::INT);
  axis->set_i(1);
  m.node("Relu", {"sequence"}, {"y"});
  m.output("y", 3);
  const ImportedModel imported = m.import();
  EXPECT_EQ(imported.outputs.at(0).shape, (Shape{1, 5, 8}));
}

TEST(OnnxImport, ShapeOptionBindsAnInputOrADimension) {
  Graph m;
  m.input("x", {"batch", "8"});
  m.node("Relu", {"x"}, {"y"});
  m.output("y", 2);
  ImportOptions byInput;
  byInput.shapes["x"] = {4, 8};
  EXPECT_EQ(m.import(byInput).inputs[0].shape, (Shape{4, 8}));
  ImportOptions byDimension;
  byDimension.shapes["batch"] = {3};
  EXPECT_EQ(m.import(byDimension).inputs[0].shape, (Shape{3, 8}));
  EXPECT_TRUE(m.import(byDimension).notes.empty());
  ImportOptions wrongRank;
  wrongRank.shapes["x"] = {1, 2, 3};
  EXPECT_NE(importError(m, wrongRank).find("rank"), std::string::npos);
  ImportOptions contradicting;
  contradicting.shapes["x"] = {1, 9};
  EXPECT_NE(importError(m, contradicting).find("fixes at 8"), std::string::npos);
  ImportOptions unknown;
  unknown.shapes["nosuch"] = {1};
  EXPECT_NE(importError(m, unknown).find("no input and no symbolic dimension"), std::string::npos);
}

TEST(OnnxImport, ConvolutionsKeepNchwAndRearrangeTheirWeights) {
  Graph m;
  m.input("x", {"1", "2", "5", "5"});
  m.floats("w", {3, 2, 3, 3}, std::vector<float>(54, 0.5f));
  m.floats("b", {3}, {1, 2, 3});
  auto* conv = m.node("Conv", {"x", "w", "b"}, {"c"}, "conv1");
  m.ints(conv, "pads", {1, 1, 1, 1});
  m.floats("dw", {3, 1, 3, 3}, std::vector<float>(27, 0.25f));
  auto* dw = m.node("Conv", {"c", "dw"}, {"d"}, "dw1");
  auto* group = dw->add_attribute();
  group->set_name("group");
  group->set_type(::onnx::AttributeProto::INT);
  group->set_i(3);
  m.output("d", 4);
  const ImportedModel imported = m.import();
  EXPECT_EQ(operationsOf(imported),
            (std::multiset<nn::OperationType>{nn::OperationType::CONV_2D, nn::OperationType::DEPTHWISE_CONV_2D}));
  const auto& convOp = imported.model.main.operations[0];
  const auto& filter = imported.model.main.operands[convOp.inputs[1]];
  EXPECT_EQ(filter.dimensions, (std::vector<uint32_t>{3, 3, 3, 2}));  // OHWI
  // The layout flag (NCHW) is set: no TRANSPOSE anywhere.
  EXPECT_EQ(imported.model.main.operands[convOp.inputs[10]].data.at<uint8_t>(0), 1);
  EXPECT_EQ(imported.nodes[0].operations.size(), 1u);
  EXPECT_EQ(imported.nodes[0].name, "conv1");
}

// A batch norm after a convolution folds into its weights and bias: one CONV_2D.
TEST(OnnxImport, BatchNormFoldsIntoThePrecedingConvolution) {
  Graph m;
  m.input("x", {"1", "1", "3", "3"});
  m.floats("w", {2, 1, 1, 1}, {1.0f, 2.0f});
  m.floats("b", {2}, {0.0f, 1.0f});
  m.node("Conv", {"x", "w", "b"}, {"c"}, "conv");
  m.floats("scale", {2}, {2.0f, 1.0f});
  m.floats("shift", {2}, {1.0f, 0.0f});
  m.floats("mean", {2}, {0.5f, 1.0f});
  m.floats("var", {2}, {3.0f, 0.0f});
  auto* bn = m.node("BatchNormalization", {"c", "scale", "shift", "mean", "var"}, {"y"}, "bn");
  auto* eps = bn->add_attribute();
  eps->set_name("epsilon");
  eps->set_type(::onnx::AttributeProto::FLOAT);
  eps->set_f(1.0f);
  m.output("y", 4);
  const ImportedModel imported = m.import();
  ASSERT_EQ(operationsOf(imported), (std::multiset<nn::OperationType>{nn::OperationType::CONV_2D}));
  EXPECT_TRUE(imported.nodes[1].folded);
  const auto& conv = imported.model.main.operations[0];
  const auto& filter = imported.model.main.operands[conv.inputs[1]];
  const auto& bias = imported.model.main.operands[conv.inputs[2]];
  // Channel 0: a = 2 / sqrt(3 + 1) = 1, bias (0 - 0.5) * 1 + 1 = 0.5. Channel 1: a = 1 / sqrt(0 + 1)
  // = 1, weight 2, bias (1 - 1) * 1 + 0 = 0.
  EXPECT_FLOAT_EQ(filter.data.at<float>(0), 1.0f);
  EXPECT_FLOAT_EQ(filter.data.at<float>(1), 2.0f);
  EXPECT_FLOAT_EQ(bias.data.at<float>(0), 0.5f);
  EXPECT_FLOAT_EQ(bias.data.at<float>(1), 0.0f);
  // The convolution writes the batch norm's output, the model's.
  EXPECT_EQ(imported.model.main.operands[conv.outputs[0]].name, "y");
}

// A small QDQ model as ONNX Runtime's quantizer writes one: x -> Q -> DQ -> Conv (per-channel
// int8 weights, int32 bias) -> Relu -> Q -> DQ -> y.
struct QdqConv : Graph {
  explicit QdqConv(int32_t act = ::onnx::TensorProto::UINT8) {
    input("x", {"1", "2", "4", "4"});
    scalar("s_x", 0.05f);
    zero("z_x", act, act == ::onnx::TensorProto::UINT8 ? 128 : 0);
    node("QuantizeLinear", {"x", "s_x", "z_x"}, {"x_q"}, "quantize_x");
    node("DequantizeLinear", {"x_q", "s_x", "z_x"}, {"x_dq"}, "dequantize_x");
    int8s("w", {3, 2, 1, 1}, {1, -2, 3, -4, 5, -6});
    floats("s_w", {3}, {0.01f, 0.02f, 0.03f});
    int8s("z_w", {3}, {0, 0, 0});
    auto* dw = node("DequantizeLinear", {"w", "s_w", "z_w"}, {"w_dq"}, "dequantize_w");
    axis(dw, 0);
    int32s("b", {3}, {10, -20, 30});
    floats("s_b", {3}, {0.05f * 0.01f, 0.05f * 0.02f, 0.05f * 0.03f});
    auto* db = node("DequantizeLinear", {"b", "s_b"}, {"b_dq"}, "dequantize_b");
    axis(db, 0);
    node("Conv", {"x_dq", "w_dq", "b_dq"}, {"c"}, "conv");
    node("Relu", {"c"}, {"r"}, "relu");
    scalar("s_y", 0.1f);
    zero("z_y", act, act == ::onnx::TensorProto::UINT8 ? 0 : -128);
    node("QuantizeLinear", {"r", "s_y", "z_y"}, {"y_q"}, "quantize_y");
    node("DequantizeLinear", {"y_q", "s_y", "z_y"}, {"y"}, "dequantize_y");
    output("y", 4);
  }
  void scalar(const std::string& name, float v) { floats(name, {}, {v}); }
  void zero(const std::string& name, int32_t type, int32_t v) {
    auto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(type);
    t->add_int32_data(v);
  }
  void int8s(const std::string& name, const std::vector<int64_t>& dims, const std::vector<int32_t>& v) {
    auto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(::onnx::TensorProto::INT8);
    for (int64_t d : dims) t->add_dims(d);
    for (int32_t x : v) t->add_int32_data(x);
  }
  void int32s(const std::string& name, const std::vector<int64_t>& dims, const std::vector<int32_t>& v) {
    auto* t = g->add_initializer();
    t->set_name(name);
    t->set_data_type(::onnx::TensorProto::INT32);
    for (int64_t d : dims) t->add_dims(d);
    for (int32_t x : v) t->add_int32_data(x);
  }
  static void axis(::onnx::NodeProto* n, int64_t a) {
    auto* attr = n->add_attribute();
    attr->set_name("axis");
    attr->set_type(::onnx::AttributeProto::INT);
    attr->set_i(a);
  }
};

// The QDQ pattern becomes one quantized CONV_2D with the Relu fused, between the QUANTIZE of the
// float input and the DEQUANTIZE of the float output: no float between them.
TEST(OnnxImport, QdqModelsBecomeQuantizedOperationsWithNoFloatBetween) {
  for (int32_t act : {::onnx::TensorProto::UINT8, ::onnx::TensorProto::INT8}) {
    const ImportedModel imported = QdqConv(act).import();
    const auto& main = imported.model.main;
    ASSERT_EQ(main.operations.size(), 3u);
    EXPECT_EQ(main.operations[0].type, nn::OperationType::QUANTIZE);
    EXPECT_EQ(main.operations[1].type, nn::OperationType::CONV_2D);
    EXPECT_EQ(main.operations[2].type, nn::OperationType::DEQUANTIZE);
    const auto& conv = main.operations[1];
    const auto& in = main.operands[conv.inputs[0]];
    const auto& filter = main.operands[conv.inputs[1]];
    const auto& bias = main.operands[conv.inputs[2]];
    const auto& out = main.operands[conv.outputs[0]];
    const auto quant8 = act == ::onnx::TensorProto::UINT8 ? nn::OperandType::TENSOR_QUANT8_ASYMM
                                                         : nn::OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
    EXPECT_EQ(in.type, quant8);
    EXPECT_FLOAT_EQ(in.scale, 0.05f);
    EXPECT_EQ(filter.type, nn::OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL);
    EXPECT_EQ(filter.channelQuant.scales, (std::vector<float>{0.01f, 0.02f, 0.03f}));
    EXPECT_EQ(filter.dimensions, (std::vector<uint32_t>{3, 1, 1, 2}));
    EXPECT_EQ(bias.type, nn::OperandType::TENSOR_INT32);
    EXPECT_EQ(bias.data.at<int32_t>(1), -20);
    EXPECT_EQ(out.type, quant8);
    EXPECT_FLOAT_EQ(out.scale, 0.1f);
    EXPECT_EQ(out.zeroPoint, act == ::onnx::TensorProto::UINT8 ? 0 : -128);
    EXPECT_EQ(main.operands[conv.inputs[9]].data.at<int32_t>(0), 1);  // RELU fused
    EXPECT_EQ(imported.outputQuanta, (std::vector<double>{0.1f}));
  }
}

// QLinearConv carries the same model in one node: the same operations.
TEST(OnnxImport, QLinearConvImportsLikeItsQdqForm) {
  Graph m;
  m.input("x", {"1", "2", "4", "4"});
  m.floats("s_x", {}, {0.05f});
  auto addZero = [&](const std::string& name, int32_t v) {
    auto* t = m.g->add_initializer();
    t->set_name(name);
    t->set_data_type(::onnx::TensorProto::UINT8);
    t->add_int32_data(v);
  };
  addZero("z_x", 128);
  m.node("QuantizeLinear", {"x", "s_x", "z_x"}, {"x_q"}, "quantize_x");
  auto* w = m.g->add_initializer();
  w->set_name("w");
  w->set_data_type(::onnx::TensorProto::UINT8);
  for (int64_t d : {3, 2, 1, 1}) w->add_dims(d);
  for (int v : {130, 120, 128, 140, 100, 128}) w->add_int32_data(v);
  m.floats("s_w", {}, {0.02f});
  addZero("z_w", 128);
  m.floats("s_y", {}, {0.1f});
  addZero("z_y", 10);
  m.node("QLinearConv", {"x_q", "s_x", "z_x", "w", "s_w", "z_w", "s_y", "z_y"}, {"y_q"}, "qconv");
  m.node("DequantizeLinear", {"y_q", "s_y", "z_y"}, {"y"}, "dequantize_y");
  m.output("y", 4);
  const ImportedModel imported = m.import();
  const auto& main = imported.model.main;
  ASSERT_EQ(main.operations.size(), 3u);
  EXPECT_EQ(main.operations[1].type, nn::OperationType::CONV_2D);
  const auto& filter = main.operands[main.operations[1].inputs[1]];
  EXPECT_EQ(filter.type, nn::OperandType::TENSOR_QUANT8_ASYMM);  // uint8 weights beside uint8 input
  EXPECT_EQ(filter.zeroPoint, 128);
  const auto& bias = main.operands[main.operations[1].inputs[2]];
  EXPECT_FLOAT_EQ(bias.scale, 0.05f * 0.02f);
}

// What NNAPI cannot say is refused, naming the node; what it cannot run quantized runs in float
// between a DEQUANTIZE and a QUANTIZE (and the report shows it).
TEST(OnnxImport, QuantizationNnapiCannotExpressIsRefusedOrLeftInFloat) {
  QdqConv computed;
  computed.g->mutable_node(0)->set_input(1, "x");  // the scale is the input itself
  computed.g->mutable_node(1)->set_input(1, "x");
  EXPECT_NE(importError(computed).find("computed at run time"), std::string::npos) << importError(computed);

  QdqConv twice;
  twice.scalar("s_other", 0.5f);
  twice.g->mutable_node(1)->set_input(1, "s_other");  // DQ reads x_q with another scale
  EXPECT_NE(importError(twice).find("other quantization parameters"), std::string::npos) << importError(twice);

  // Zero points of no element, or of a count other than one or the scales': refused before any
  // is read (an empty one was read past its end: onnx_fuzzer).
  QdqConv emptyZero;
  emptyZero.int8s("z_none", {0}, {});
  emptyZero.g->mutable_node(2)->set_input(2, "z_none");
  EXPECT_NE(importError(emptyZero).find("a zero point of 0 elements for 3 scales"), std::string::npos)
      << importError(emptyZero);
  QdqConv twoZeros;
  twoZeros.int8s("z_two", {2}, {0, 0});
  twoZeros.g->mutable_node(2)->set_input(2, "z_two");
  EXPECT_NE(importError(twoZeros).find("a zero point of 2 elements for 3 scales"), std::string::npos)
      << importError(twoZeros);

  QdqConv sigmoid;
  sigmoid.g->mutable_node(5)->set_op_type("Sigmoid");  // its output scale is not NNAPI's 1/256
  const ImportedModel imported = sigmoid.import();
  std::multiset<nn::OperationType> ops = operationsOf(imported);
  EXPECT_EQ(ops.count(nn::OperationType::LOGISTIC), 1u);
  EXPECT_EQ(ops.count(nn::OperationType::QUANTIZE), 2u);
  EXPECT_EQ(ops.count(nn::OperationType::CONV_2D), 1u);
}

// A float read where an integer is expected (a quantized tensor given as float) is truncated, and
// one no int64 holds is refused instead of cast (NaN was: UBSan, onnx_fuzzer).
TEST(OnnxImport, FloatsReadAsIntegersMustFitOne) {
  HostTensor t(DType::kFloat, {4});
  t.data<float>()[0] = -2.75f;
  t.data<float>()[1] = std::nanf("");
  t.data<float>()[2] = std::numeric_limits<float>::infinity();
  t.data<float>()[3] = 1e19f;
  EXPECT_EQ(t.asInt(0), -2);
  for (int64_t i : {1, 2, 3}) {
    try {
      (void)t.asInt(i);
      ADD_FAILURE() << "element " << i << " was read as an integer";
    } catch (const ImportError& e) {
      EXPECT_NE(std::string(e.what()).find("where an integer is read"), std::string::npos) << e.what();
    }
  }
}

TEST(OnnxImport, UnsupportedOperatorsAreNamedWithTheirNode) {
  Graph m;
  m.input("x", {"4"});
  m.node("Round", {"x"}, {"y"}, "rounding");
  m.output("y", 1);
  const std::string e = importError(m);
  EXPECT_NE(e.find("node 'rounding' (Round)"), std::string::npos) << e;
  EXPECT_NE(e.find("operator Round is not supported"), std::string::npos) << e;
}

TEST(OnnxImport, UnsupportedAttributesAndTypesAreRefused) {
  Graph pool;
  pool.input("x", {"1", "1", "4", "4"});
  auto* p = pool.node("MaxPool", {"x"}, {"y"}, "pool");
  pool.ints(p, "kernel_shape", {2, 2});
  pool.ints(p, "dilations", {2, 2});
  pool.output("y", 4);
  EXPECT_NE(importError(pool).find("dilated pooling"), std::string::npos);

  Graph dbl;
  dbl.input("x", {"4"}, ::onnx::TensorProto::DOUBLE);
  dbl.node("Relu", {"x"}, {"y"});
  dbl.value(dbl.g->add_output(), "y", ::onnx::TensorProto::DOUBLE, {"4"});
  EXPECT_NE(importError(dbl).find("element type double"), std::string::npos);

  Graph domain;
  domain.input("x", {"4"});
  domain.node("FusedGemm", {"x"}, {"y"})->set_domain("com.microsoft");
  domain.model.add_opset_import()->set_domain("com.microsoft");
  domain.model.mutable_opset_import(1)->set_version(1);
  domain.output("y", 1);
  EXPECT_NE(importError(domain).find("domain 'com.microsoft'"), std::string::npos);
}

TEST(OnnxImport, OpsetsAboveSeventeenAreRefusedAndOlderOnesConverted) {
  Graph newer(18);
  newer.input("x", {"4"});
  newer.node("Relu", {"x"}, {"y"});
  newer.output("y", 1);
  EXPECT_NE(importError(newer).find("opset 18"), std::string::npos) << importError(newer);
  Graph older(6);
  older.input("x", {"4"});
  older.node("Relu", {"x"}, {"y"});
  older.output("y", 1);
  const ImportedModel imported = older.import();
  EXPECT_EQ(imported.opset, 7);
  ASSERT_EQ(imported.notes.size(), 1u);
  EXPECT_NE(imported.notes[0].find("opset 6 converted to opset 7"), std::string::npos);
}

// PyTorch's nn.PReLU(C) at opset 6: a slope of C values along axis 1 of an image (what ONNX's
// own test data expects). From opset 7 on a slope broadcasts from the last axis, so the converted
// model's slope is laid out [C, 1, 1]; a slope that already broadcasts, and one of a rank-2
// input (axis 1 is the last), are left as they are.
TEST(OnnxImport, AnOpsetSixPReluSlopeOfChannelsGoesAlongAxisOne) {
  const auto prelu = [](std::vector<std::string> x, std::vector<int64_t> slope) {
    Graph m(6);
    m.input("x", x);
    std::vector<float> values(static_cast<size_t>(slope.empty() ? 1 : slope[0]), 0.25f);
    m.floats("slope", slope, values);
    m.node("PRelu", {"x", "slope"}, {"y"}, "act");
    m.output("y", static_cast<int>(x.size()));
    const ImportedModel imported = m.import();
    // A slope by channel: relu(x) + alpha * (x - relu(x)), alpha the MUL's second operand.
    const auto& op = imported.model.main.operations.at(2);
    EXPECT_EQ(operationsOf(imported), (std::multiset<nn::OperationType>{nn::OperationType::RELU, nn::OperationType::SUB,
                                                                        nn::OperationType::MUL, nn::OperationType::ADD}));
    EXPECT_EQ(op.type, nn::OperationType::MUL);
    return std::make_pair(imported.model.main.operands[op.inputs[1]].dimensions, imported.notes);
  };
  const auto [image, notes] = prelu({"2", "3", "4", "5"}, {3});
  EXPECT_EQ(image, (nn::Dimensions{3, 1, 1}));
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_NE(notes[0].find("PRelu 'act': its opset-6 slope of 3 channels laid along axis 1"), std::string::npos)
      << notes[0];
  EXPECT_EQ(prelu({"2", "3", "4", "5"}, {5}).first, (nn::Dimensions{5}));  // broadcasts as it is
  EXPECT_EQ(prelu({"2", "3"}, {3}).first, (nn::Dimensions{3}));
}

// Add, Sub, Mul, Div and Pow of opset 6 broadcast B from A's axis `axis`; ONNX's converter
// unsqueezes B to A's rank whatever the axis (a bias of 3 channels became [3, 1, 1, 1], which
// its shape inference then refused). B is laid out to rank(A) - axis first: an initializer
// reshaped, a model input through an Unsqueeze (a RESHAPE). The numbers: test_api.LegacyBroadcast.
TEST(OnnxImport, AnOpsetSixBroadcastFromAnAxisKeepsItsMeaning) {
  const auto legacy = [](const char* op, std::vector<std::string> a, std::vector<int64_t> b, int64_t axis,
                         bool constant) {
    Graph m(6);
    m.input("x", a);
    std::vector<std::string> bDims;
    size_t count = 1;
    for (int64_t d : b) bDims.push_back(std::to_string(d)), count *= static_cast<size_t>(d);
    if (constant) {
      m.floats("b", b, std::vector<float>(count, 2.0f));
    } else {
      m.input("b", bDims);
    }
    auto* n = m.node(op, {"x", "b"}, {"y"}, "bias");
    m.integer(n, "broadcast", 1);
    m.integer(n, "axis", axis);
    m.output("y", static_cast<int>(a.size()));
    return m.import();
  };
  const auto operandDims = [](const ImportedModel& imported) {
    const auto& ops = imported.model.main.operations;
    const auto& op = ops.back();  // the arithmetic, after any RESHAPE of B
    return imported.model.main.operands[op.inputs[1]].dimensions;
  };
  const ImportedModel bias = legacy("Add", {"2", "3", "4", "5"}, {3}, 1, true);
  EXPECT_EQ(bias.model.main.operations.back().type, nn::OperationType::ADD);
  EXPECT_EQ(operandDims(bias), (nn::Dimensions{3, 1, 1}));
  ASSERT_EQ(bias.notes.size(), 2u);
  EXPECT_NE(bias.notes[0].find("Add 'bias': its opset-6 operand 'b' broadcast from axis 1 laid out as rank 3"),
            std::string::npos)
      << bias.notes[0];
  EXPECT_EQ(operandDims(legacy("Mul", {"2", "3", "4", "5"}, {2}, 0, true)), (nn::Dimensions{2, 1, 1, 1}));
  EXPECT_EQ(operandDims(legacy("Div", {"2", "3", "4", "5"}, {3, 4}, 1, true)), (nn::Dimensions{3, 4, 1}));
  const ImportedModel input = legacy("Sub", {"2", "3", "4", "5"}, {3}, 1, false);
  EXPECT_EQ(input.model.main.operations.back().type, nn::OperationType::SUB);
  EXPECT_EQ(operandDims(input), (nn::Dimensions{3, 1, 1}));
  // B on A's last axes is the converter's own case, left as it is; so is an axis no B fits,
  // which it refuses.
  const ImportedModel trailing = legacy("Add", {"2", "3", "4", "5"}, {5}, 3, true);
  EXPECT_EQ(operandDims(trailing), (nn::Dimensions{5}));
  EXPECT_EQ(trailing.notes.size(), 1u);
  EXPECT_THROW(legacy("Add", {"2", "3", "4", "5"}, {3, 4}, 3, true), ImportError);
}

// HardSigmoid is relu6(6 alpha x + 6 beta) / 6: a MUL, an ADD with the fused RELU6 and a MUL by
// 1/6, which int8 quantizes and the accelerator runs (MobileNetV3's); the first MUL goes when
// 6 alpha is 1 (PyTorch's alpha 1/6).
TEST(OnnxImport, HardSigmoidIsAnAddWithAFusedRelu6) {
  const auto hardSigmoid = [](float alpha, float beta) {
    Graph m;
    m.input("x", {"2", "3"});
    auto* n = m.node("HardSigmoid", {"x"}, {"y"}, "hs");
    m.real(n, "alpha", alpha);
    m.real(n, "beta", beta);
    m.output("y", 2);
    return m.import().model;
  };
  const auto fuseCode = [](const test::TestModel& model, const test::TestOperation& op) {
    return model.main.operands[op.inputs[2]].data.at<int32_t>(0);
  };
  const test::TestModel general = hardSigmoid(0.2f, 0.5f);
  const auto& ops = general.main.operations;
  ASSERT_EQ(ops.size(), 3u);
  EXPECT_EQ(ops[0].type, nn::OperationType::MUL);
  EXPECT_EQ(ops[1].type, nn::OperationType::ADD);
  EXPECT_EQ(fuseCode(general, ops[1]), 3);  // ANEURALNETWORKS_FUSED_RELU6
  EXPECT_EQ(ops[2].type, nn::OperationType::MUL);
  const test::TestModel torch = hardSigmoid(1.0f / 6.0f, 0.5f);
  ASSERT_EQ(torch.main.operations.size(), 2u);
  EXPECT_EQ(torch.main.operations[0].type, nn::OperationType::ADD);
  EXPECT_EQ(fuseCode(torch, torch.main.operations[0]), 3);
}

// A Transpose of a rank-6 value a Reshape made (a window partition) becomes rank-4 TRANSPOSEs
// between RESHAPEs of the rank-4 input: no operation reads an operand of rank above 4, the
// rank-6 RESHAPEs nothing reads are gone, and each node's record names operations that exist.
TEST(OnnxImport, AHighRankTransposeIsRankFourTransposesOfTheValueItWasReshapedFrom) {
  Graph m;
  m.input("x", {"1", "8", "8", "6"});
  m.int64s("view", {1, 2, 4, 2, 4, 6});
  m.int64s("windows", {4, 4, 4, 6});
  m.node("Reshape", {"x", "view"}, {"v"}, "partition");
  m.ints(m.node("Transpose", {"v"}, {"t"}, "swap"), "perm", {0, 1, 3, 2, 4, 5});
  m.node("Reshape", {"t", "windows"}, {"y"}, "merge");
  m.output("y", 4);
  const ImportedModel imported = m.import();
  const auto& main = imported.model.main;
  size_t transposes = 0;
  for (const auto& op : main.operations) {
    transposes += op.type == nn::OperationType::TRANSPOSE;
    for (uint32_t i : op.inputs) EXPECT_LE(main.operands[i].dimensions.size(), 4u) << nn::toString(op.type);
    for (uint32_t o : op.outputs) EXPECT_LE(main.operands[o].dimensions.size(), 4u) << nn::toString(op.type);
  }
  EXPECT_EQ(transposes, 1u);  // [1*2, 4, 2, 4*6] -> [2, 2, 4, 24]: one swap
  for (const auto& record : imported.nodes) {
    for (size_t k : record.operations) EXPECT_LT(k, main.operations.size()) << record.name;
  }
}

// Einsum is the matrix products its equation spells: attention's q @ k^T is one BATCH_MATMUL with
// adj_y (no TRANSPOSE), with its batch dimensions as they are; MaxViT's rank-5 form merges them;
// a constant operand with nothing batched is FULLY_CONNECTED's weights; ONNX 1.12 infers only the
// output's rank, so its sizes come from the equation for the nodes after it.
TEST(OnnxImport, EinsumIsTheMatrixProductsItsEquationSpells) {
  const auto einsum = [](const std::string& equation, const std::vector<std::vector<std::string>>& shapes,
                         bool constantSecond = false, const std::vector<int64_t>& view = {}) {
    Graph m;
    std::vector<std::string> names;
    if (!view.empty()) m.int64s("view", view);
    for (size_t i = 0; i < shapes.size(); ++i) {
      std::string name = "x" + std::to_string(i);
      if (constantSecond && i == 1) {
        std::vector<int64_t> dims;
        for (const auto& d : shapes[i]) dims.push_back(std::stoll(d));
        int64_t n = 1;
        for (int64_t d : dims) n *= d;
        m.floats(name, dims, std::vector<float>(static_cast<size_t>(n), 0.5f));
      } else {
        m.input(name, shapes[i]);
      }
      if (!view.empty()) {  // seen as another shape (MaxViT's rank-5 values) by a Reshape
        m.node("Reshape", {name, "view"}, {name + "_view"});
        name += "_view";
      }
      names.push_back(name);
    }
    auto* n = m.node("Einsum", names, {"e"}, "einsum");
    auto* a = n->add_attribute();
    a->set_name("equation");
    a->set_type(::onnx::AttributeProto::STRING);
    a->set_s(equation);
    m.node("Relu", {"e"}, {"y"});  // reads the inferred shape
    const size_t arrow = equation.find("->");
    int rank = 0;
    for (size_t i = arrow + 2; arrow != std::string::npos && i < equation.size(); ++i) {
      rank += std::isalpha(static_cast<unsigned char>(equation[i])) ? 1 : 0;
    }
    m.output("y", rank);
    return m;
  };
  using Op = nn::OperationType;
  const ImportedModel qk = einsum("bhid,bhjd->bhij", {{"2", "3", "4", "8"}, {"2", "3", "5", "8"}}).import();
  EXPECT_EQ(operationsOf(qk), (std::multiset<Op>{Op::BATCH_MATMUL, Op::RELU}));
  const auto& bmm = qk.model.main.operations.at(0);
  EXPECT_EQ(qk.model.main.operands[bmm.inputs[3]].data.at<uint8_t>(0), 1);  // adj_y
  EXPECT_EQ(qk.model.main.operands[bmm.outputs[0]].dimensions, (std::vector<uint32_t>{2, 3, 4, 5}));
  // MaxViT's spelling (spaces, capitals) on rank-5 values made by a Reshape.
  const Graph maxvit = einsum("B G H I D, B G H J D -> B G H I J", {{"1", "8", "4", "8"}, {"1", "8", "4", "8"}},
                              false, {1, 4, 2, 4, 8});
  const ImportedModel five = maxvit.import();
  size_t bmms = 0;
  for (const auto& op : five.model.main.operations) {
    if (op.type != Op::BATCH_MATMUL) continue;
    ++bmms;
    EXPECT_EQ(five.model.main.operands[op.outputs[0]].dimensions, (std::vector<uint32_t>{8, 4, 4}));
  }
  EXPECT_EQ(bmms, 1u);
  const ImportedModel fc = einsum("bid,nd->bin", {{"2", "5", "8"}, {"6", "8"}}, true).import();
  EXPECT_EQ(operationsOf(fc).count(Op::FULLY_CONNECTED), 1u);
  EXPECT_EQ(operationsOf(fc).count(Op::BATCH_MATMUL), 0u);
  // A label one operand alone has is summed by the array (a FULLY_CONNECTED of ones), not REDUCE_SUM.
  const ImportedModel summed = einsum("ij->i", {{"3", "4"}}).import();
  EXPECT_EQ(operationsOf(summed).count(Op::FULLY_CONNECTED), 1u);

  const auto refused = [&](const std::string& equation, const std::vector<std::vector<std::string>>& shapes) {
    return importError(einsum(equation, shapes));
  };
  EXPECT_NE(refused("ii->i", {{"3", "3"}}).find("'i' twice in operand 0 (a diagonal"), std::string::npos)
      << refused("ii->i", {{"3", "3"}});
  // ONNX's own inference refuses these first.
  EXPECT_NE(refused("ij,jk->ik", {{"3", "4"}}).find("Number of input tensors does not match the operands"),
            std::string::npos);
  EXPECT_NE(refused("ijk->i", {{"3", "4"}}).find("Rank of input 0 does not match the equation"), std::string::npos);
  // Refused before any inference (libonnx 1.12's Einsum inference crashes on an implicit output
  // with capitals: onnx_fuzzer found it).
  EXPECT_NE(refused("i2->i", {{"3", "4"}}).find("equation 'i2->i' is not letters, commas, '...' and one '->'"),
            std::string::npos);
  EXPECT_NE(refused("bi#->bj", {{"3", "4"}}).find("is not letters"), std::string::npos);
  EXPECT_NE(refused("iJ", {{"3", "4"}}).find("leaves the output implicit and has capital letters"), std::string::npos);
  EXPECT_NE(refused("ij->iq", {{"3", "4"}}).find("the output's 'q' is in no operand"), std::string::npos);
  EXPECT_NE(refused("ij,jk->ik", {{"3", "4"}, {"5", "6"}}).find("'j' is 5 in operand 1 and 4"), std::string::npos)
      << refused("ij,jk->ik", {{"3", "4"}, {"5", "6"}});
  EXPECT_NE(refused("ij->i->j", {{"3", "4"}}), "(imported)");
}

// Split is a SLICE a part (the accelerator copies slices; int8 quantizes them), and a rank-5 input
// (attention's q, k, v unbound from [3, B, H, T, D]) is split as [before, axis, after]: every
// operand NNAPI sees of rank 4 or less, the parts reshaped back.
TEST(OnnxImport, SplitIsSlicesAndTakesRankFive) {
  Graph m;
  m.input("x", {"2", "12", "5"});
  m.int64s("five", {2, 3, 2, 2, 5});
  m.node("Reshape", {"x", "five"}, {"v"}, "view");
  auto* split = m.node("Split", {"v"}, {"a", "b", "c"}, "unbind");
  m.integer(split, "axis", 1);
  m.int64s("back", {2, 20});
  for (const char* part : {"a", "b", "c"}) m.node("Reshape", {part, "back"}, {std::string(part) + "2"});
  m.node("Sum", {"a2", "b2", "c2"}, {"y"}, "sum");
  m.output("y", 2);
  const ImportedModel imported = m.import();
  const auto& main = imported.model.main;
  EXPECT_EQ(operationsOf(imported).count(nn::OperationType::SLICE), 3u);
  EXPECT_EQ(operationsOf(imported).count(nn::OperationType::SPLIT), 0u);
  for (const auto& op : main.operations) {
    if (op.type != nn::OperationType::SLICE) continue;
    EXPECT_EQ(main.operands[op.inputs[0]].dimensions, (std::vector<uint32_t>{2, 3, 20}));
    EXPECT_EQ(main.operands[op.outputs[0]].dimensions, (std::vector<uint32_t>{2, 1, 20}));
  }
}

// GPT-2's causal mask, torch.where(causal, w, finfo.min): a Where of a constant condition between
// a computed value and a constant of one value of magnitude 1e30 or more (or infinite) is an ADD
// of a constant (0 where the value is kept; exact: x + v is v), which int8 quantizes as a mask.
// A smaller constant (-1e4: x + v is not v) stays a SELECT.
TEST(OnnxImport, AWhereOfAConstantMaskIsAnAddOfIt) {
  const auto where = [](float value, bool maskWhenTrue) {
    Graph m;
    m.input("w", {"1", "2", "2", "2"});
    auto* c = m.g->add_initializer();
    c->set_name("causal");
    c->set_data_type(::onnx::TensorProto::BOOL);
    for (int64_t d : {1, 1, 2, 2}) c->add_dims(d);
    for (int32_t v : {1, 0, 1, 1}) c->add_int32_data(v);
    m.floats("fill", {}, {value});
    m.node("Where", {"causal", maskWhenTrue ? "fill" : "w", maskWhenTrue ? "w" : "fill"}, {"y"}, "mask");
    m.output("y", 4);
    return m.import();
  };
  const float lowest = -std::numeric_limits<float>::max();
  for (bool maskWhenTrue : {false, true}) {
    const ImportedModel imported = where(lowest, maskWhenTrue);
    const auto& main = imported.model.main;
    ASSERT_EQ(main.operations.size(), 1u);
    ASSERT_EQ(main.operations[0].type, nn::OperationType::ADD);
    const auto& mask = main.operands[main.operations[0].inputs[1]];
    std::vector<float> values;
    for (size_t i = 0; i < 8; ++i) values.push_back(mask.data.at<float>(i));
    const float k = maskWhenTrue ? lowest : 0.0f, x = maskWhenTrue ? 0.0f : lowest;  // condition true, false
    EXPECT_EQ(values, (std::vector<float>{k, x, k, k, k, x, k, k})) << maskWhenTrue;
  }
  EXPECT_EQ(operationsOf(where(-std::numeric_limits<float>::infinity(), false)).count(nn::OperationType::ADD), 1u);
  EXPECT_EQ(operationsOf(where(-1e4f, false)).count(nn::OperationType::SELECT), 1u);
}

// Edge padding (NNAPI has none): along each padded axis the first and last slices concatenated
// before and after the value, as often as it is padded; the last axis writes the output.
TEST(OnnxImport, EdgePaddingIsSlicesConcatenated) {
  Graph m(13);
  m.input("x", {"1", "2", "3", "4"});
  m.int64s("pads", {0, 0, 2, 0, 0, 0, 1, 3});
  auto* pad = m.node("Pad", {"x", "pads"}, {"y"}, "replicate");
  auto* a = pad->add_attribute();
  a->set_name("mode");
  a->set_type(::onnx::AttributeProto::STRING);
  a->set_s("edge");
  m.output("y", 4);
  const ImportedModel imported = m.import();
  using Op = nn::OperationType;
  // Rows: a first and a last slice; columns: only a last one (padded after).
  EXPECT_EQ(operationsOf(imported),
            (std::multiset<Op>{Op::SLICE, Op::SLICE, Op::CONCATENATION, Op::SLICE, Op::CONCATENATION}));
  const auto& main = imported.model.main;
  EXPECT_EQ(main.operations.back().inputs.size(), 1u + 3u + 1u);  // the value, the last column three times, the axis
  EXPECT_EQ(main.operands[main.outputIndexes.at(0)].dimensions, (std::vector<uint32_t>{1, 2, 6, 7}));
  pad->mutable_attribute(0)->set_s("wrap");
  EXPECT_NE(importError(m).find("mode 'wrap'"), std::string::npos);
}

// masked_fill(mask, -1e4 or -1e9) before a softmax over the masked axis is an ADD of the mask
// (its exp underflows to 0 either way); a row masked whole, or another reader, keeps SELECT.
TEST(OnnxImport, AMaskedFillBeforeASoftmaxIsAnAddOfTheMask) {
  const auto masked = [](const std::vector<int32_t>& causal, float fill, const std::string& reader) {
    Graph m;
    m.input("w", {"2", "3", "3"});
    auto* c = m.g->add_initializer();
    c->set_name("mask");
    c->set_data_type(::onnx::TensorProto::BOOL);
    for (int64_t d : {1, 3, 3}) c->add_dims(d);
    for (int32_t v : causal) c->add_int32_data(v);
    m.floats("fill", {}, {fill});
    m.node("Where", {"mask", "fill", "w"}, {"filled"}, "masked_fill");
    auto* r = m.node(reader, {"filled"}, {"y"});
    if (reader == "Softmax") m.integer(r, "axis", -1);
    m.output("y", 3);
    return operationsOf(m.import());
  };
  using Op = nn::OperationType;
  const std::vector<int32_t> causal = {0, 1, 1, 0, 0, 1, 0, 0, 0};
  EXPECT_EQ(masked(causal, -1e4f, "Softmax"), (std::multiset<Op>{Op::ADD, Op::SOFTMAX}));
  EXPECT_EQ(masked(causal, -1e9f, "Softmax"), (std::multiset<Op>{Op::ADD, Op::SOFTMAX}));
  EXPECT_EQ(masked(causal, -100.0f, "Softmax").count(Op::SELECT), 1u);            // exp(-100) is not 0
  EXPECT_EQ(masked({1, 1, 1, 0, 0, 1, 0, 0, 0}, -1e4f, "Softmax").count(Op::SELECT), 1u);  // a row masked whole
  EXPECT_EQ(masked(causal, -1e4f, "Relu").count(Op::SELECT), 1u);
}

// q @ k^T as exporters write it, MatMul(q, Transpose(k)), where the transpose brings k's innermost
// axis second-to-last: the swap back is BATCH_MATMUL's adj_y (a matrix transpose the accelerator
// would copy a value at a time), the rest of the permutation stays (GPT-2's (0, 2, 3, 1) becomes
// its head split (0, 2, 1, 3)), and a bare k.transpose(-1, -2) goes entirely. A transpose that
// keeps the innermost axis (attention's v) is left alone.
TEST(OnnxImport, AMatMulByATransposedOperandIsABatchMatmulWithAdjY) {
  const auto attention = [](std::vector<int64_t> perm, const std::vector<std::string>& kShape) {
    Graph m;
    m.input("q", {"1", "2", "4", "8"});
    m.input("k", kShape);
    m.ints(m.node("Transpose", {"k"}, {"kt"}, "transpose"), "perm", perm);
    m.node("MatMul", {"q", "kt"}, {"y"}, "scores");
    m.output("y", 4);
    return m.import();
  };
  using Op = nn::OperationType;
  const auto bmmAdjY = [](const ImportedModel& m) {
    for (const auto& op : m.model.main.operations) {
      if (op.type == Op::BATCH_MATMUL) return m.model.main.operands[op.inputs[3]].data.at<uint8_t>(0) != 0;
    }
    return false;
  };
  const ImportedModel gpt2 = attention({0, 2, 3, 1}, {"1", "4", "2", "8"});  // k as [B, T, H, D]
  EXPECT_TRUE(bmmAdjY(gpt2));
  for (const auto& op : gpt2.model.main.operations) {
    if (op.type != Op::TRANSPOSE) continue;
    std::vector<int32_t> perm;
    for (size_t i = 0; i < 4; ++i) perm.push_back(gpt2.model.main.operands[op.inputs[1]].data.at<int32_t>(i));
    EXPECT_EQ(perm, (std::vector<int32_t>{0, 2, 1, 3}));
  }
  EXPECT_EQ(operationsOf(gpt2).count(Op::TRANSPOSE), 1u);
  const ImportedModel bare = attention({0, 1, 3, 2}, {"1", "2", "4", "8"});  // k.transpose(-1, -2)
  EXPECT_TRUE(bmmAdjY(bare));
  EXPECT_EQ(operationsOf(bare).count(Op::TRANSPOSE), 0u);
  const ImportedModel v = attention({0, 2, 1, 3}, {"1", "8", "2", "4"});  // the innermost axis stays
  EXPECT_FALSE(bmmAdjY(v));
  EXPECT_EQ(operationsOf(v).count(Op::TRANSPOSE), 1u);
}

// Pow by a constant 2 is MUL(x, x) and a float Neg a MUL by -1 (both exact), which run where POW
// and NEG do not (RMSNorm's square, rotary embeddings' rotate_half); another exponent stays a POW,
// an int32 Neg a NEG.
TEST(OnnxImport, SquaresAndNegationsAreMultiplications) {
  const auto model = [](float exponent, int32_t type) {
    Graph m;
    m.input("x", {"2", "3"});
    m.input("i", {"2", "3"}, type);
    m.floats("e", {}, {exponent});
    m.node("Pow", {"x", "e"}, {"p"}, "power");
    m.node("Neg", {"p"}, {"y"}, "negate");
    m.node("Neg", {"i"}, {"j"}, "negate_int");
    m.output("y", 2);
    auto* j = m.g->add_output();
    m.value(j, "j", type, {"2", "3"});
    return m.import();
  };
  using Op = nn::OperationType;
  const ImportedModel square = model(2.0f, ::onnx::TensorProto::INT32);
  EXPECT_EQ(operationsOf(square), (std::multiset<Op>{Op::MUL, Op::MUL, Op::NEG}));
  const auto& first = square.model.main.operations.front();
  ASSERT_EQ(first.type, Op::MUL);
  EXPECT_EQ(first.inputs[0], first.inputs[1]);  // x * x
  EXPECT_EQ(operationsOf(model(3.0f, ::onnx::TensorProto::INT32)).count(Op::POW), 1u);
}

// Dropout in training mode with a ratio of 0 drops nothing (Swin's attention dropout as
// torchvision exports it): the identity. With a ratio above 0 it would draw masks: refused.
TEST(OnnxImport, ATrainingDropoutOfRatioZeroIsTheIdentity) {
  const auto dropout = [](float ratio) {
    Graph m;
    m.input("x", {"2", "3"});
    m.floats("ratio", {}, {ratio});
    auto* t = m.g->add_initializer();
    t->set_name("training");
    t->set_data_type(::onnx::TensorProto::BOOL);
    t->add_int32_data(1);
    m.node("Dropout", {"x", "ratio", "training"}, {"d"}, "drop");
    m.node("Relu", {"d"}, {"y"});
    m.output("y", 2);
    return m;
  };
  const ImportedModel zero = dropout(0.0f).import();
  ASSERT_EQ(zero.model.main.operations.size(), 1u);
  EXPECT_EQ(zero.model.main.operations[0].type, nn::OperationType::RELU);
  EXPECT_NE(importError(dropout(0.1f)).find("training_mode=1 with a ratio above 0"), std::string::npos)
      << importError(dropout(0.1f));
}

// ScatterND of constants folds at import (Swin's shifted-window mask is built so): the slices the
// indices name replaced, or added to with reduction "add"; a bad index is refused by name.
TEST(OnnxImport, ScatterNdOfConstantsFolds) {
  const auto scatter = [](const char* reduction, std::vector<int64_t> index) {
    Graph m(16);  // ScatterND's reduction: opset 16
    m.input("x", {"2", "3"});
    m.floats("data", {2, 3}, {1, 2, 3, 4, 5, 6});
    m.int64s("flat_index", index);
    m.int64s("index_shape", {2, 1});
    m.floats("updates", {2, 3}, {10, 20, 30, 40, 50, 60});
    m.node("Reshape", {"flat_index", "index_shape"}, {"indices"});
    auto* n = m.node("ScatterND", {"data", "indices", "updates"}, {"mask"}, "scatter");
    if (reduction != nullptr) {
      auto* a = n->add_attribute();
      a->set_name("reduction");
      a->set_type(::onnx::AttributeProto::STRING);
      a->set_s(reduction);
    }
    m.node("Add", {"x", "mask"}, {"y"});
    m.output("y", 2);
    return m;
  };
  const auto maskOf = [](const ImportedModel& imported) {
    const auto& main = imported.model.main;
    EXPECT_EQ(main.operations.size(), 1u);
    const auto& mask = main.operands[main.operations.at(0).inputs[1]];
    std::vector<float> values;
    for (size_t i = 0; i < 6; ++i) values.push_back(mask.data.at<float>(i));
    return values;
  };
  EXPECT_EQ(maskOf(scatter(nullptr, {1, 0}).import()), (std::vector<float>{40, 50, 60, 10, 20, 30}));
  EXPECT_EQ(maskOf(scatter("add", {1, 1}).import()), (std::vector<float>{1, 2, 3, 54, 75, 96}));
  EXPECT_NE(importError(scatter(nullptr, {0, 2})).find("ScatterND index is out of range"), std::string::npos);
}

// Converting an old Gemm needs its operands as matrices (libonnx's adapter indexes them blindly:
// the fuzzer's allocation of a pointer-sized string). One found by inference converts.
TEST(OnnxImport, OldGemmsConvertOnlyWithMatrixOperands) {
  Graph vectorB(6);
  vectorB.input("a", {"2", "3"});
  vectorB.input("b", {"3"});
  vectorB.input("c", {});
  vectorB.node("Gemm", {"a", "b", "c"}, {"y"}, "fc");
  vectorB.output("y", 2);
  EXPECT_NE(importError(vectorB).find("node 'fc' (Gemm): operand 'b' must be a matrix of known shape to convert this "
                                      "opset-6 model to opset 7 (its rank is 1)"),
            std::string::npos)
      << importError(vectorB);
  Graph flattened(6);
  flattened.input("x", {"1", "2", "3", "1"});
  flattened.input("w", {"6", "4"});
  flattened.input("c", {"4"});
  flattened.node("Flatten", {"x"}, {"f"});
  flattened.node("Gemm", {"f", "w", "c"}, {"y"});
  flattened.output("y", 2);
  EXPECT_EQ(flattened.import().opset, 7);
}

// ShuffleNet's channel shuffle (Reshape to rank 5, Transpose of the group axes, Reshape back)
// is one CHANNEL_SHUFFLE; another transpose of the rank-5 value is not.
TEST(OnnxImport, TheExportersChannelShuffleIsOneChannelShuffle) {
  const auto shuffle = [](std::vector<int64_t> perm) {
    Graph m;
    m.input("x", {"1", "6", "2", "2"});
    m.int64s("split", {1, 3, 2, 2, 2});
    m.int64s("merged", {1, 6, 2, 2});
    m.node("Reshape", {"x", "split"}, {"s"}, "view");
    m.ints(m.node("Transpose", {"s"}, {"t"}, "transpose"), "perm", perm);
    m.node("Reshape", {"t", "merged"}, {"y"}, "reshape");
    m.output("y", 4);
    return m;
  };
  const ImportedModel imported = shuffle({0, 2, 1, 3, 4}).import();
  const auto& main = imported.model.main;
  ASSERT_EQ(main.operations.size(), 1u);
  const auto& op = main.operations[0];
  EXPECT_EQ(op.type, nn::OperationType::CHANNEL_SHUFFLE);
  EXPECT_EQ(main.operands[op.inputs[1]].data.at<int32_t>(0), 3);  // groups
  EXPECT_EQ(main.operands[op.inputs[2]].data.at<int32_t>(0), 1);  // NCHW's channel axis
  EXPECT_EQ(imported.nodes.at(0).operations, std::vector<size_t>{0});
  EXPECT_TRUE(imported.nodes.at(1).folded);
  const ImportedModel other = shuffle({0, 1, 2, 4, 3}).import();
  EXPECT_EQ(operationsOf(other).count(nn::OperationType::CHANNEL_SHUFFLE), 0u);
  EXPECT_EQ(operationsOf(other).count(nn::OperationType::TRANSPOSE), 1u);
}

// PyTorch's PixelShuffle exports DepthToSpace in CRD order (channel c * b * b + i * b + j to block
// position (i, j) of channel c); NNAPI moves blocks in DCR order ((i * b + j) * C + c): a
// CHANNEL_SHUFFLE in C groups along the channels first brings the one into the other. DCR imports
// as one DEPTH_TO_SPACE; SpaceToDepth has no mode (ONNX's checker refuses one).
TEST(OnnxImport, ADepthToSpaceInCrdOrderIsAChannelShuffleThenDepthToSpace) {
  const auto blockMove = [](const char* op, const char* mode) {
    Graph m;
    m.input("x", {"1", "18", "2", "3"});
    auto* n = m.node(op, {"x"}, {"y"}, "shuffle");
    m.integer(n, "blocksize", 3);
    auto* a = n->add_attribute();
    a->set_name("mode");
    a->set_type(::onnx::AttributeProto::STRING);
    a->set_s(mode);
    m.output("y", 4);
    return m;
  };
  const ImportedModel crd = blockMove("DepthToSpace", "CRD").import();
  const auto& main = crd.model.main;
  ASSERT_EQ(main.operations.size(), 2u);
  const auto& shuffle = main.operations[0];
  ASSERT_EQ(shuffle.type, nn::OperationType::CHANNEL_SHUFFLE);
  EXPECT_EQ(main.operands[shuffle.inputs[1]].data.at<int32_t>(0), 2);  // 18 / 3^2 groups
  EXPECT_EQ(main.operands[shuffle.inputs[2]].data.at<int32_t>(0), 1);  // NCHW's channel axis
  ASSERT_EQ(main.operations[1].type, nn::OperationType::DEPTH_TO_SPACE);
  EXPECT_EQ(main.operations[1].inputs[0], shuffle.outputs[0]);
  EXPECT_EQ(main.operands[main.operations[1].outputs[0]].dimensions, (std::vector<uint32_t>{1, 2, 6, 9}));
  const ImportedModel dcr = blockMove("DepthToSpace", "DCR").import();
  EXPECT_EQ(operationsOf(dcr), (std::multiset<nn::OperationType>{nn::OperationType::DEPTH_TO_SPACE}));
  try {
    blockMove("SpaceToDepth", "CRD").import();
    ADD_FAILURE() << "SpaceToDepth in CRD order imported";
  } catch (const ImportError& e) {
    EXPECT_NE(std::string(e.what()).find("attribute: mode for operator SpaceToDepth"), std::string::npos) << e.what();
  }
}

// ONNX's checker and the window checks stand before libonnx's passes: a broken model is an error.
// An LSTM of 3 steps, batch 2, 4 inputs, 5 hidden units, constant weights: `edit` changes the node.
Graph lstm(const std::function<void(Graph&, ::onnx::NodeProto*)>& edit = {}) {
  Graph m(14);
  m.input("x", {"3", "2", "4"});
  m.floats("W", {1, 20, 4}, std::vector<float>(80, 0.1f));
  m.floats("R", {1, 20, 5}, std::vector<float>(100, -0.1f));
  m.floats("B", {1, 40}, std::vector<float>(40, 0.05f));
  auto* n = m.node("LSTM", {"x", "W", "R", "B"}, {"y", "y_h"}, "lstm");
  m.integer(n, "hidden_size", 5);
  if (edit) edit(m, n);
  m.output("y", 4);
  m.output("y_h", 3);
  return m;
}

void strings(::onnx::NodeProto* n, const std::string& name, const std::vector<std::string>& values) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::STRINGS);
  for (const auto& v : values) a->add_strings(v);
}

TEST(OnnxImport, RecurrentLayersUnrollIntoTheOperationsOfEachStep) {
  using Op = nn::OperationType;
  const ImportedModel m = lstm().import();
  const auto ops = operationsOf(m);
  // The input's projection for the 3 steps at once, then h R^T from the second step on (the first
  // starts from zeros); the forget gate from the second step on (it multiplies a zero cell before).
  EXPECT_EQ(ops.count(Op::FULLY_CONNECTED), 3u);
  EXPECT_EQ(ops.count(Op::LOGISTIC), 2u + 3u + 3u);
  EXPECT_EQ(ops.count(Op::TANH), 3u * 2u);
  EXPECT_EQ(ops.count(Op::UNIDIRECTIONAL_SEQUENCE_LSTM), 0u);
  const auto& operands = m.model.main.operands;
  EXPECT_EQ(operands[m.model.main.outputIndexes.at(0)].dimensions, (std::vector<uint32_t>{3, 1, 2, 5}));
  EXPECT_EQ(operands[m.model.main.outputIndexes.at(1)].dimensions, (std::vector<uint32_t>{1, 2, 5}));

  // Both directions, batch-major: twice the steps, one output of [batch, steps, directions, hidden].
  const ImportedModel both = lstm([](Graph& g, ::onnx::NodeProto* n) {
    g.g->clear_initializer();
    g.floats("W", {2, 20, 4}, std::vector<float>(160, 0.1f));
    g.floats("R", {2, 20, 5}, std::vector<float>(200, -0.1f));
    g.floats("B", {2, 40}, std::vector<float>(80, 0.05f));
    g.g->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(0)->set_dim_value(2);
    g.g->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(1)->set_dim_value(3);
    auto* a = n->add_attribute();
    a->set_name("direction");
    a->set_type(::onnx::AttributeProto::STRING);
    a->set_s("bidirectional");
    g.integer(n, "layout", 1);
  }).import();
  EXPECT_EQ(operationsOf(both).count(Op::FULLY_CONNECTED), 6u);
  EXPECT_EQ(both.model.main.operands[both.model.main.outputIndexes.at(0)].dimensions,
            (std::vector<uint32_t>{2, 3, 2, 5}));

  // What the unrolling does not implement is refused by name.
  const auto refused = [](const std::function<void(Graph&, ::onnx::NodeProto*)>& edit) { return importError(lstm(edit)); };
  EXPECT_NE(refused([](Graph& g, ::onnx::NodeProto* n) { g.real(n, "clip", 3.0f); }).find("clip"), std::string::npos);
  EXPECT_NE(refused([](Graph& g, ::onnx::NodeProto* n) { g.integer(n, "input_forget", 1); }).find("input_forget"),
            std::string::npos);
  const std::string hard =
      refused([](Graph&, ::onnx::NodeProto* n) { strings(n, "activations", {"HardSigmoid", "Tanh", "Tanh"}); });
  EXPECT_NE(hard.find("node 'lstm' (LSTM): activation 'HardSigmoid' is not supported"), std::string::npos) << hard;
  EXPECT_NE(refused([](Graph&, ::onnx::NodeProto* n) { strings(n, "activations", {"Sigmoid", "Tanh"}); })
                .find("2 activations given, 3 expected"),
            std::string::npos);
  const std::string hidden = refused([](Graph&, ::onnx::NodeProto* n) { n->mutable_attribute(0)->set_i(4); });
  EXPECT_NE(hidden.find("W is 1x20x4, not 1x16x4"), std::string::npos) << hidden;
  const std::string lens = refused([](Graph& g, ::onnx::NodeProto* n) {
    auto* t = g.g->add_initializer();
    t->set_name("lens");
    t->set_data_type(::onnx::TensorProto::INT32);
    t->add_dims(2);
    t->add_int32_data(3);
    t->add_int32_data(4);
    n->add_input("lens");
  });
  EXPECT_NE(lens.find("sequence_lens holds 4, outside [0, 3]"), std::string::npos) << lens;
}

TEST(OnnxImport, StructurallyBrokenModelsAreRefusedBeforeInference) {
  Graph unknownInput;
  unknownInput.input("x", {"4"});
  unknownInput.node("Relu", {"nosuch"}, {"y"});
  unknownInput.output("y", 1);
  EXPECT_NE(importError(unknownInput).find("ONNX's checker"), std::string::npos) << importError(unknownInput);
  Graph zeroStride;
  zeroStride.input("x", {"1", "1", "4", "4"});
  auto* p = zeroStride.node("MaxPool", {"x"}, {"y"}, "pool");
  zeroStride.ints(p, "kernel_shape", {2, 2});
  zeroStride.ints(p, "strides", {0, 1});
  zeroStride.output("y", 4);
  EXPECT_NE(importError(zeroStride).find("node 'pool' (MaxPool): attribute 'strides' must be positive"),
            std::string::npos)
      << importError(zeroStride);
  // A QLinearConv whose input and weights differ in rank (the fuzzer's libonnx crash).
  Graph ranks;
  ranks.input("x", {"1", "7", "7"}, ::onnx::TensorProto::UINT8);
  ranks.input("w", {"1", "1", "1", "1"}, ::onnx::TensorProto::UINT8);
  for (const char* s : {"sx", "sw", "sy"}) ranks.input(s, {}, ::onnx::TensorProto::FLOAT);
  for (const char* z : {"zx", "zw", "zy"}) ranks.input(z, {}, ::onnx::TensorProto::UINT8);
  ranks.node("QLinearConv", {"x", "sx", "zx", "w", "sw", "zw", "sy", "zy"}, {"y"}, "qconv");
  ranks.value(ranks.g->add_output(), "y", ::onnx::TensorProto::UINT8, {"a", "b", "c"});
  EXPECT_NE(importError(ranks).find("node 'qconv' (QLinearConv): its input has rank 3 and its weights rank 4"),
            std::string::npos)
      << importError(ranks);
}

TEST(OnnxImport, ShapesParse) {
  EXPECT_EQ(parseShape("1x3x224x224"), (Shape{1, 3, 224, 224}));
  EXPECT_EQ(parseShape("7"), (Shape{7}));
  for (const char* bad : {"", "x", "1x", "1xx2", "0x3", "-1x2", "3.5", "abc"}) {
    EXPECT_THROW(parseShape(bad), ImportError) << bad;
  }
}

// ---- weft run on ONNX files -------------------------------------------------------------------

std::string tempPath(const std::string& name) { return ::testing::TempDir() + "onnx_import_test_" + name; }

Graph smallModel() {
  Graph m;
  m.input("image", {"1", "2", "4", "4"});
  m.floats("w", {4, 2, 1, 1}, {0.5f, -1, 1, 0.25f, -0.5f, 2, 0.1f, 0.3f});
  m.node("Conv", {"image", "w"}, {"c"}, "pointwise");
  m.node("Relu", {"c"}, {"r"}, "relu");
  m.node("GlobalAveragePool", {"r"}, {"p"}, "pool");
  m.node("Flatten", {"p"}, {"logits"}, "flatten");
  m.output("logits", 2);
  return m;
}

TEST(WeftRunOnnx, AModelWithSeededInputsPassesAndSavesItsOutputs) {
  const std::string model = tempPath("small.onnx"), out = tempPath("outputs");
  smallModel().save(model);
  fs::remove_all(out);
  const auto r = runWeft("--backend approx run " + model + " --quiet --save-outputs " + out + " --json " +
                             tempPath("small.json") + " --csv " + tempPath("small.csv"),
                         "WEFT_YOSYS=none");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("reference check: PASS"), std::string::npos) << r.output;
  // Operations are named after the nodes they came from.
  EXPECT_NE(r.output.find("pointwise"), std::string::npos) << r.output;
  const HostTensor saved = readNpy(out + "/logits.npy");
  EXPECT_EQ(saved.type, DType::kFloat);
  EXPECT_EQ(saved.shape, (Shape{1, 4}));
}

TEST(WeftRunOnnx, InputsFromFilesMustMatchTheModel) {
  const std::string model = tempPath("inputs.onnx"), good = tempPath("good.npy"), bad = tempPath("bad.npy");
  smallModel().save(model);
  HostTensor image(DType::kFloat, {1, 2, 4, 4});
  for (int64_t i = 0; i < image.size(); ++i) image.setDouble(i, 0.1 * static_cast<double>(i));
  writeNpy(good, image);
  writeNpy(bad, HostTensor(DType::kFloat, {1, 2, 4, 5}));
  const std::string report = " --quiet --json " + tempPath("in.json") + " --csv " + tempPath("in.csv");
  auto r = runWeft("--backend approx run " + model + " --input image=" + good + report, "WEFT_YOSYS=none");
  EXPECT_EQ(r.exitCode, 0) << r.output;
  r = runWeft("--backend approx run " + model + " --input image=" + bad + report, "WEFT_YOSYS=none");
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("input 'image' is float 1x2x4x5, the model takes float 1x2x4x4"), std::string::npos)
      << r.output;
  r = runWeft("--backend approx run " + model + " --input nosuch=" + good + report, "WEFT_YOSYS=none");
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("the model has no input 'nosuch'"), std::string::npos) << r.output;
  r = runWeft("--backend approx run " + model + " --shape image=1x2" + report, "WEFT_YOSYS=none");
  EXPECT_EQ(r.exitCode, 2) << r.output;
}

// What NNAPI's validation refuses (here a rank-5 RELU: NNAPI takes rank 4 at most) is named by
// the node it came from.
TEST(WeftRunOnnx, AnOperationNnapiRefusesNamesItsNode) {
  Graph m;
  m.input("x", {"1", "4", "2", "2"});
  m.int64s("five", {1, 2, 2, 2, 2});
  m.node("Reshape", {"x", "five"}, {"r"}, "split");
  m.node("Relu", {"r"}, {"y"}, "activation");
  m.output("y", 5);
  const std::string model = tempPath("rank5.onnx"), json = tempPath("rank5.json");
  m.save(model);
  fs::remove(json);
  const auto r = runWeft("--backend approx run " + model + " --quiet --json " + json, "WEFT_YOSYS=none");
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("node 'activation': NNAPI refuses the RELU it became"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("rank 5"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(json));
}

TEST(WeftRunOnnx, FilesThatAreNotOnnxModelsAreClearErrorsThatWriteNothing) {
  const std::string text = tempPath("text.onnx"), truncated = tempPath("truncated.onnx"), empty = tempPath("empty.onnx");
  std::ofstream(text) << "this is not a protobuf\n";
  {
    std::string bytes;
    smallModel().model.SerializeToString(&bytes);
    std::ofstream(truncated, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  }
  std::ofstream(empty).close();
  for (const std::string& file : {text, truncated, empty, tempPath("missing.onnx")}) {
    const std::string json = tempPath("bad.json");
    fs::remove(json);
    const auto r = runWeft("--backend approx run " + file + " --quiet --json " + json + " --csv " + tempPath("bad.csv"),
                           "WEFT_YOSYS=none");
    EXPECT_EQ(r.exitCode, 2) << file << ": " << r.output;
    EXPECT_NE(r.output.find("weft: error: " + file), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(json)) << file;
  }
}

}  // namespace
}  // namespace weft::onnx
