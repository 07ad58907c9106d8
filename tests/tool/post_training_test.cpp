// Post-training int8 quantization (tools/onnx/PostTraining.h) on imported float models with
// chosen calibration ranges: weights per channel, biases int32 at input x weight scale, a RELU
// folded into the operation before it, NNAPI's fixed SOFTMAX output, pools keeping their input's
// quantization, concatenated values sharing one, an operation without a quantized form kept in
// float between DEQUANTIZE and QUANTIZE; and the errors. Then `weft run --quantize int8` as a
// user runs it: the int8 model on the accelerator with its accuracy reported, and bad options.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include <cmath>
#include <filesystem>
#include <map>
#include <random>
#include <regex>

#include "ImportError.h"
#include "Importer.h"
#include "ApiModelBuilder.h"
#include "Npy.h"
#include "OnnxTestGraph.h"
#include "PostTraining.h"
#include "RunWeft.h"
#include "ToolTestPaths.h"
#include "weft/WeftExtension.h"

namespace weft::onnx {
namespace {

namespace fs = std::filesystem;
using graphs::Graph;
using nn::OperandType;
using Op = nn::OperationType;
using tool::test::runWeft;

// Conv (3 output channels) -> Relu -> GlobalAveragePool -> Flatten -> Exp -> Softmax.
Graph classifier() {
  Graph m;
  m.input("image", {"1", "2", "4", "4"});
  m.floats("w", {3, 2, 1, 1}, {0.5f, -1.0f, 0.25f, 0.125f, -2.0f, 1.0f});
  m.floats("b", {3}, {0.1f, -0.2f, 0.3f});
  m.node("Conv", {"image", "w", "b"}, {"c"}, "conv");
  m.node("Relu", {"c"}, {"r"}, "relu");
  m.node("GlobalAveragePool", {"r"}, {"p"}, "pool");
  m.node("Flatten", {"p"}, {"f"}, "flatten");
  m.node("Exp", {"f"}, {"e"}, "exp");
  m.node("Softmax", {"e"}, {"y"}, "softmax");
  m.output("y", 2);
  return m;
}

// Every computed value observed in [lo, hi] (the importer's float model, operand by operand).
std::map<uint32_t, Range> uniformRanges(const ImportedModel& m, float lo, float hi) {
  std::map<uint32_t, Range> ranges;
  for (uint32_t i : calibratedOperands(m.model)) ranges[i] = {lo, hi};
  return ranges;
}

const test::TestOperation& only(const test::TestSubgraph& g, Op type) {
  const test::TestOperation* found = nullptr;
  for (const auto& op : g.operations) {
    if (op.type == type) {
      EXPECT_EQ(found, nullptr) << nn::toString(type) << " twice";
      found = &op;
    }
  }
  if (found == nullptr) throw std::runtime_error(std::string("no ") + nn::toString(type));
  return *found;
}

TEST(PostTraining, ConvolutionWeightsPerChannelBiasInt32AndTheReluFolded) {
  const ImportedModel imported = classifier().import();
  const QuantizedModel q = quantizeInt8(imported.model, uniformRanges(imported, -1.0f, 3.0f));
  const auto& g = q.model.main;
  const auto& conv = only(g, Op::CONV_2D);
  const auto& input = g.operands[conv.inputs[0]];
  EXPECT_EQ(input.type, OperandType::TENSOR_QUANT8_ASYMM_SIGNED);
  EXPECT_FLOAT_EQ(input.scale, 4.0f / 255);
  EXPECT_EQ(input.zeroPoint, -64);  // -128 - (-1) / (4/255), rounded
  const auto& filter = g.operands[conv.inputs[1]];
  EXPECT_EQ(filter.type, OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL);
  EXPECT_EQ(filter.channelQuant.channelDim, 0u);
  ASSERT_EQ(filter.channelQuant.scales.size(), 3u);
  EXPECT_FLOAT_EQ(filter.channelQuant.scales[0], 1.0f / 127);  // max |w| of channel 0 is 1
  EXPECT_FLOAT_EQ(filter.channelQuant.scales[2], 2.0f / 127);
  EXPECT_EQ(filter.data.at<int8_t>(1), -127);  // -1.0 / (1/127)
  EXPECT_EQ(filter.data.at<int8_t>(0), 64);    // 0.5 / (1/127) = 63.5, to even
  const auto& bias = g.operands[conv.inputs[2]];
  EXPECT_EQ(bias.type, OperandType::TENSOR_INT32);
  EXPECT_EQ(bias.scale, 0.0f);  // per channel: each channel's is input x filter scale
  EXPECT_EQ(bias.data.at<int32_t>(2), static_cast<int32_t>(std::nearbyint(0.3 / ((4.0 / 255) * (2.0 / 127)))));
  // The Relu is the convolution's fused activation, and the convolution writes its output.
  for (const auto& op : g.operations) EXPECT_NE(op.type, Op::RELU);
  const size_t implicitAct = conv.inputs.size() == 7 || g.operands[conv.inputs[7]].type == OperandType::BOOL ? 6 : 9;
  EXPECT_EQ(g.operands[conv.inputs[implicitAct]].data.at<int32_t>(0), 1);  // ANEURALNETWORKS_FUSED_RELU
  const size_t convIndex = static_cast<size_t>(&conv - g.operations.data());
  ASSERT_GE(q.folded[convIndex], 0);
  EXPECT_EQ(imported.model.main.operations[static_cast<size_t>(q.folded[convIndex])].type, Op::RELU);
}

// A bias too large for int32 at input scale x weight scale (activations of tiny steps, as
// GoogLeNet's with random weights) widens that channel's weight scale until it takes 2^30 steps,
// as TFLite's quantizer does; before, the bias was clamped and the output lost it. A channel
// whose bias fits keeps its scale.
TEST(PostTraining, ABiasThatDoesNotFitInt32WidensItsChannelsWeightScale) {
  const ImportedModel imported = classifier().import();
  // Activations in [-1e-9, 3e-9]: steps of 1.6e-11.
  const QuantizedModel q = quantizeInt8(imported.model, uniformRanges(imported, -1e-9f, 3e-9f));
  const auto& conv = only(q.model.main, Op::CONV_2D);
  const double inputScale = q.model.main.operands[conv.inputs[0]].scale;
  const auto& filter = q.model.main.operands[conv.inputs[1]];
  const auto& bias = q.model.main.operands[conv.inputs[2]];
  const float biases[3] = {0.1f, -0.2f, 0.3f};
  for (size_t c = 0; c < 3; ++c) {
    const double scale = filter.channelQuant.scales[c];
    EXPECT_NEAR(scale, std::fabs(biases[c]) / (inputScale * 1073741824.0), scale * 1e-6) << c;
    const int32_t b = bias.data.at<int32_t>(c);
    EXPECT_NEAR(std::fabs(static_cast<double>(b)), 1073741824.0, 256.0) << c;  // 2^30 steps, not clamped
    EXPECT_NEAR(b * inputScale * scale, biases[c], 1e-6) << c;
  }
  // Ordinary ranges: the scales of max |w| / 127, as before.
  const QuantizedModel plain = quantizeInt8(imported.model, uniformRanges(imported, -1.0f, 3.0f));
  const auto& plainConv = only(plain.model.main, Op::CONV_2D);
  EXPECT_FLOAT_EQ(plain.model.main.operands[plainConv.inputs[1]].channelQuant.scales[2], 2.0f / 127);
}

// A grouped convolution's Relu folds into it as a convolution's does (ResNeXt's, RegNet's).
TEST(PostTraining, AGroupedConvolutionTakesItsReluAsItsFusedActivation) {
  Graph m;
  m.input("image", {"1", "4", "3", "3"});
  m.floats("w", {2, 2, 1, 1}, {0.5f, -1.0f, 0.25f, 2.0f});
  m.floats("b", {2}, {0.1f, -0.2f});
  m.integer(m.node("Conv", {"image", "w", "b"}, {"c"}, "conv"), "group", 2);
  m.node("Relu", {"c"}, {"y"}, "relu");
  m.output("y", 4);
  const ImportedModel imported = m.import();
  const QuantizedModel q = quantizeInt8(imported.model, uniformRanges(imported, -1.0f, 3.0f));
  const auto& conv = only(q.model.main, Op::GROUPED_CONV_2D);
  for (const auto& op : q.model.main.operations) EXPECT_NE(op.type, Op::RELU);
  const size_t act = conv.inputs.size() == 9 ? 7 : 10;
  EXPECT_EQ(q.model.main.operands[conv.inputs[act]].data.at<int32_t>(0), 1);  // ANEURALNETWORKS_FUSED_RELU
}

TEST(PostTraining, PoolsKeepTheirInputsQuantizationAndSoftmaxHasNnapisFixedOne) {
  const ImportedModel imported = classifier().import();
  const QuantizedModel q = quantizeInt8(imported.model, uniformRanges(imported, -1.0f, 3.0f));
  const auto& g = q.model.main;
  const auto& pool = only(g, Op::AVERAGE_POOL_2D);
  const auto &in = g.operands[pool.inputs[0]], &out = g.operands[pool.outputs[0]];
  EXPECT_EQ(out.type, OperandType::TENSOR_QUANT8_ASYMM_SIGNED);
  EXPECT_EQ(out.scale, in.scale);
  EXPECT_EQ(out.zeroPoint, in.zeroPoint);
  const auto& y = g.operands[only(g, Op::SOFTMAX).outputs[0]];
  EXPECT_FLOAT_EQ(y.scale, 1.0f / 256);
  EXPECT_EQ(y.zeroPoint, -128);
  ASSERT_EQ(q.outputs.size(), 1u);
  EXPECT_FLOAT_EQ(q.outputs[0].scales[0], 1.0f / 256);
  ASSERT_EQ(q.inputs.size(), 1u);
  EXPECT_EQ(q.inputs[0].zeroPoints[0], -64);
}

// (Without org.weft.accel: with it EXP is WEFT_UNARY's, below.)
TEST(PostTraining, AnOperationWithoutAQuantizedFormStaysFloatBetweenDequantizeAndQuantize) {
  const ImportedModel imported = classifier().import();
  const QuantizedModel q = quantizeInt8(imported.model, uniformRanges(imported, -1.0f, 3.0f), false);
  const auto& g = q.model.main;
  ASSERT_EQ(q.keptInFloat.size(), 1u);
  EXPECT_EQ(q.keptInFloat[0].rfind("EXP#", 0), 0u) << q.keptInFloat[0];
  const auto& exp = only(g, Op::EXP);
  EXPECT_EQ(g.operands[exp.inputs[0]].type, OperandType::TENSOR_FLOAT32);
  EXPECT_EQ(g.operands[exp.outputs[0]].type, OperandType::TENSOR_FLOAT32);
  const auto& dequantize = only(g, Op::DEQUANTIZE);
  const auto& quantize = only(g, Op::QUANTIZE);
  EXPECT_EQ(dequantize.outputs[0], exp.inputs[0]);
  EXPECT_EQ(quantize.inputs[0], exp.outputs[0]);
  // Nothing else is float: every other operation writes int8.
  for (const auto& op : g.operations) {
    if (op.type == Op::EXP || op.type == Op::DEQUANTIZE) continue;
    for (uint32_t o : op.outputs) {
      EXPECT_EQ(g.operands[o].type, OperandType::TENSOR_QUANT8_ASYMM_SIGNED) << nn::toString(op.type);
    }
  }
  // Every operation of the quantized model points at the float one it comes from.
  ASSERT_EQ(q.origin.size(), g.operations.size());
  for (size_t i = 0; i < g.operations.size(); ++i) {
    const Op from = imported.model.main.operations.at(q.origin[i]).type;
    if (q.role[i].empty()) {
      EXPECT_EQ(from, g.operations[i].type);
    } else {
      EXPECT_EQ(from, Op::EXP) << q.role[i];
    }
  }
}

// NNAPI's float-only unary operations (EXP, LOG, SQRT, ABS, SIN, NEG) become org.weft.accel's
// WEFT_UNARY of their calibrated ranges, the extension declared in the int8 model: nothing float.
TEST(PostTraining, FloatOnlyUnaryOperationsBecomeWeftUnary) {
  const ImportedModel imported = classifier().import();
  ASSERT_TRUE(imported.model.extensionNameToPrefix.empty());
  const QuantizedModel q = quantizeInt8(imported.model, uniformRanges(imported, -1.0f, 3.0f));
  EXPECT_TRUE(q.keptInFloat.empty());
  const auto& g = q.model.main;
  ASSERT_EQ(q.model.extensionNameToPrefix.size(), 1u);
  EXPECT_EQ(q.model.extensionNameToPrefix[0].name, WEFT_EXTENSION_NAME);
  const auto type = static_cast<Op>(uint32_t{q.model.extensionNameToPrefix[0].prefix} << nn::kExtensionTypeBits | WEFT_UNARY);
  const auto& unary = only(g, type);
  ASSERT_EQ(unary.inputs.size(), 2u);
  EXPECT_EQ(g.operands[unary.inputs[1]].data.at<int32_t>(0), WEFT_UNARY_EXP);
  for (uint32_t o : {unary.inputs[0], unary.outputs[0]}) {
    EXPECT_EQ(g.operands[o].type, OperandType::TENSOR_QUANT8_ASYMM_SIGNED);
    EXPECT_FLOAT_EQ(g.operands[o].scale, 4.0f / 255);  // the calibrated [-1, 3]
  }
  for (const auto& op : g.operations) EXPECT_NE(op.type, Op::DEQUANTIZE);
}

// REDUCE_SUM has no 8-bit form in NNAPI: a MEAN of the same axes in its input's quantization,
// then a MUL by the count (the constant exactly 127 steps of count/255) into the sum's range.
TEST(PostTraining, ASumIsAMeanTimesTheCount) {
  Graph m;
  m.input("x", {"2", "3", "4"});
  m.int64s("axes", {1, -1});
  auto* sum = m.node("ReduceSum", {"x", "axes"}, {"y"}, "sum");
  m.integer(sum, "keepdims", 0);
  m.output("y", 1);
  const ImportedModel imported = m.import();
  std::map<uint32_t, Range> ranges = uniformRanges(imported, -1.0f, 1.0f);
  const uint32_t y = imported.model.main.outputIndexes.at(0);
  ranges[y] = {-12.0f, 12.0f};
  const QuantizedModel q = quantizeInt8(imported.model, ranges);
  EXPECT_TRUE(q.keptInFloat.empty());
  const auto& g = q.model.main;
  const auto& mean = only(g, Op::MEAN);
  const auto& mul = only(g, Op::MUL);
  EXPECT_EQ(g.operands[mean.inputs[2]].data.at<int32_t>(0), 0);  // keep_dims, as an INT32
  const auto &x = g.operands[mean.inputs[0]], &averaged = g.operands[mean.outputs[0]];
  EXPECT_EQ(averaged.scale, x.scale);
  EXPECT_EQ(averaged.zeroPoint, x.zeroPoint);
  EXPECT_EQ(mul.inputs[0], mean.outputs[0]);
  EXPECT_EQ(mul.outputs[0], y);
  const auto& count = g.operands[mul.inputs[1]];
  EXPECT_FLOAT_EQ((count.data.at<int8_t>(0) - count.zeroPoint) * count.scale, 12.0f);  // 3 x 4 values a sum
  EXPECT_FLOAT_EQ(g.operands[y].scale, 24.0f / 255);
  ASSERT_EQ(q.role.size(), 2u);
  EXPECT_EQ(q.role[1], "times_count");
}

// A DIV by a computed value whose observed values keep away from 0 (F.normalize's norm) is a
// WEFT_UNARY RECIPROCAL over the reciprocal's range, then a MUL into the DIV's quantization; one
// whose values reach 0 stays float.
TEST(PostTraining, ADivisionByAValueIsAMultiplicationByItsReciprocal) {
  Graph m;
  m.input("x", {"2", "8"});
  m.input("n", {"2", "1"});
  m.node("Div", {"x", "n"}, {"y"}, "normalize");
  m.output("y", 2);
  const ImportedModel imported = m.import();
  const auto& main = imported.model.main;
  const uint32_t n = main.inputIndexes.at(1);
  std::map<uint32_t, Range> ranges = uniformRanges(imported, -1.0f, 1.0f);
  Range norm;
  for (float v : {0.5f, 2.0f, 4.0f}) widen(norm, v);
  ranges[n] = norm;
  const QuantizedModel q = quantizeInt8(imported.model, ranges);
  EXPECT_TRUE(q.keptInFloat.empty());
  const auto& g = q.model.main;
  const auto type = static_cast<Op>(uint32_t{q.model.extensionNameToPrefix.at(0).prefix} << nn::kExtensionTypeBits | WEFT_UNARY);
  const auto& reciprocal = only(g, type);
  EXPECT_EQ(g.operands[reciprocal.inputs[1]].data.at<int32_t>(0), WEFT_UNARY_RECIPROCAL);
  EXPECT_FLOAT_EQ(g.operands[reciprocal.outputs[0]].scale, 2.0f / 255);  // [0, 1 / 0.5]
  const auto& mul = only(g, Op::MUL);
  EXPECT_EQ(mul.inputs[1], reciprocal.outputs[0]);
  EXPECT_EQ(mul.outputs[0], main.outputIndexes.at(0));
  // 1 / n (Reciprocal): the lookup alone, into the output's quantization.
  Graph one;
  one.input("n", {"2", "1"});
  one.node("Reciprocal", {"n"}, {"y"}, "inverse");
  one.output("y", 2);
  const ImportedModel inverse = one.import();
  std::map<uint32_t, Range> inverseRanges = uniformRanges(inverse, 0.0f, 2.0f);
  inverseRanges[inverse.model.main.inputIndexes.at(0)] = norm;
  const QuantizedModel qi = quantizeInt8(inverse.model, inverseRanges);
  ASSERT_EQ(qi.model.main.operations.size(), 1u);
  EXPECT_EQ(qi.model.main.operations[0].outputs[0], inverse.model.main.outputIndexes.at(0));
  EXPECT_TRUE(qi.keptInFloat.empty());
  // Values through 0: no reciprocal range.
  Range through;
  for (float v : {-1.0f, 0.0f, 3.0f}) widen(through, v);
  ranges[n] = through;
  const QuantizedModel f = quantizeInt8(imported.model, ranges);
  ASSERT_EQ(f.keptInFloat.size(), 1u);
  EXPECT_EQ(f.keptInFloat[0].rfind("DIV#", 0), 0u);
}

// Pow by 0.5, -0.5 and -1 (hand-written norms) is WEFT_UNARY SQRT, NNAPI's RSQRT and WEFT_UNARY
// RECIPROCAL; another exponent keeps POW float.
TEST(PostTraining, PowersOfOneHalfAndMinusOneAreLookups) {
  const auto power = [](float exponent) {
    Graph m;
    m.input("x", {"2", "4"});
    m.floats("e", {}, {exponent});
    m.node("Pow", {"x", "e"}, {"y"}, "power");
    m.output("y", 2);
    const ImportedModel imported = m.import();
    std::map<uint32_t, Range> ranges = uniformRanges(imported, 0.0f, 4.0f);
    return quantizeInt8(imported.model, ranges);
  };
  for (const auto& [exponent, function] : {std::pair{0.5f, WEFT_UNARY_SQRT}, std::pair{-1.0f, WEFT_UNARY_RECIPROCAL}}) {
    const QuantizedModel q = power(exponent);
    ASSERT_EQ(q.model.main.operations.size(), 1u) << exponent;
    const auto& op = q.model.main.operations[0];
    EXPECT_EQ(op.type, static_cast<Op>(uint32_t{q.model.extensionNameToPrefix.at(0).prefix} << nn::kExtensionTypeBits | WEFT_UNARY));
    EXPECT_EQ(q.model.main.operands[op.inputs[1]].data.at<int32_t>(0), function) << exponent;
  }
  const QuantizedModel rsqrt = power(-0.5f);
  ASSERT_EQ(rsqrt.model.main.operations.size(), 1u);
  EXPECT_EQ(rsqrt.model.main.operations[0].type, Op::RSQRT);
  const QuantizedModel cube = power(3.0f);
  ASSERT_EQ(cube.keptInFloat.size(), 1u);
  EXPECT_EQ(cube.keptInFloat[0].rfind("POW#", 0), 0u);
}

// A Sigmoid or Tanh whose input's int8 steps are 2^-27 or finer (NNAPI's fixed-point kernels
// refuse them: EfficientNet's squeeze-excitation gates with random weights) reads its input
// requantized to steps of 2^-26 by an ADD of zero, and stays quantized: nothing kept in float.
TEST(PostTraining, ALogisticOfTooFineStepsReadsItsInputRescaled) {
  Graph m;
  m.input("x", {"1", "8"});
  m.node("Sigmoid", {"x"}, {"s"}, "gate");
  m.node("Tanh", {"x"}, {"t"}, "tanh");
  m.node("Add", {"s", "t"}, {"y"}, "sum");
  m.output("y", 2);
  const ImportedModel imported = m.import();
  std::map<uint32_t, Range> ranges = uniformRanges(imported, -1e-7f, 1e-7f);
  const QuantizedModel q = quantizeInt8(imported.model, ranges);
  EXPECT_TRUE(q.keptInFloat.empty());
  const auto& g = q.model.main;
  size_t rescales = 0;
  for (size_t i = 0; i < g.operations.size(); ++i) {
    const auto& op = g.operations[i];
    if (op.type != Op::LOGISTIC && op.type != Op::TANH) continue;
    const auto& in = g.operands[op.inputs[0]];
    EXPECT_FLOAT_EQ(in.scale, 1.0f / (1 << 26)) << nn::toString(op.type);
    EXPECT_GE(in.zeroPoint, -128);
    EXPECT_LE(in.zeroPoint, 127);
    ASSERT_GT(i, 0u);
    EXPECT_EQ(g.operations[i - 1].type, Op::ADD);  // the rescaling ADD, just before
    EXPECT_EQ(q.role[i - 1], "rescale");
    EXPECT_EQ(g.operations[i - 1].outputs[0], op.inputs[0]);
    ++rescales;
  }
  EXPECT_EQ(rescales, 2u);
  // NNAPI takes the model (its LOGISTIC and TANH refuse an input scale of 2^-27 or less).
  test::ApiModelBuilder builder(q.model);
  EXPECT_NE(builder.model(), nullptr) << builder.failure();
  // Coarser steps: no rescaling.
  const QuantizedModel plain = quantizeInt8(imported.model, uniformRanges(imported, -1.0f, 1.0f));
  for (const auto& role : plain.role) EXPECT_NE(role, "rescale");
}

// RMSNorm as exporters write it (x * rsqrt(mean(x^2) + eps): Pow 2, ReduceMean, Add, Sqrt,
// Reciprocal, Mul) and a rotary embedding's Neg: the square is MUL(x, x) and the negation a MUL
// by -1 (the importer's), 1 / sqrt one RSQRT (its SQRT folded, the quantizer's), so nothing of
// them stays float (NNAPI's POW, SQRT, DIV by a computed value and NEG have no 8-bit form).
TEST(PostTraining, RmsNormAndNegationAreQuantized) {
  Graph m;
  m.input("x", {"1", "4", "8"});
  m.floats("two", {}, {2.0f});
  m.floats("eps", {}, {1e-6f});
  m.node("Pow", {"x", "two"}, {"sq"}, "square");
  auto* mean = m.node("ReduceMean", {"sq"}, {"ms"}, "mean");
  m.ints(mean, "axes", {-1});
  m.node("Add", {"ms", "eps"}, {"v"}, "epsilon");
  m.node("Sqrt", {"v"}, {"r"}, "root");
  m.node("Reciprocal", {"r"}, {"inv"}, "reciprocal");
  m.node("Mul", {"x", "inv"}, {"n"}, "normalize");
  m.node("Neg", {"n"}, {"y"}, "negate");
  m.output("y", 3);
  const ImportedModel imported = m.import();
  std::map<uint32_t, Range> ranges = uniformRanges(imported, -2.0f, 2.0f);
  const QuantizedModel q = quantizeInt8(imported.model, ranges);
  EXPECT_TRUE(q.keptInFloat.empty()) << q.keptInFloat.front();
  std::multiset<Op> types;
  for (const auto& op : q.model.main.operations) types.insert(op.type);
  EXPECT_EQ(types.count(Op::RSQRT), 1u);
  EXPECT_EQ(types.count(Op::SQRT) + types.count(Op::DIV) + types.count(Op::POW) + types.count(Op::NEG), 0u);
  EXPECT_EQ(types.count(Op::MUL), 3u);  // the square, the normalization, the negation
  const auto& square = q.model.main.operations.front();
  ASSERT_EQ(square.type, Op::MUL);
  EXPECT_EQ(square.inputs[0], square.inputs[1]);
  test::ApiModelBuilder builder(q.model);
  EXPECT_NE(builder.model(), nullptr) << builder.failure();
}

// Attention's arithmetic: BATCH_MATMUL of two computed values is quantized (NNAPI's int8
// BATCH_MATMUL), a DIV by a constant becomes the MUL by its reciprocal (NNAPI has no int8 DIV),
// and a DIV by a computed value stays float.
TEST(PostTraining, BatchMatmulAndDivisionByAConstantAreQuantized) {
  Graph m;
  m.input("q", {"2", "4", "8"});
  m.input("k", {"2", "8", "4"});
  m.input("s", {"2", "4", "4"});
  m.floats("scale", {}, {2.828427f});
  m.node("MatMul", {"q", "k"}, {"qk"}, "scores");
  m.node("Div", {"qk", "scale"}, {"scaled"}, "scaling");
  m.node("Div", {"scaled", "s"}, {"y"}, "by_computed");
  m.output("y", 3);
  const ImportedModel imported = m.import();
  const QuantizedModel quantized = quantizeInt8(imported.model, uniformRanges(imported, -2.0f, 2.0f));
  const auto& g = quantized.model.main;
  const auto& matmul = only(g, Op::BATCH_MATMUL);
  for (uint32_t o : {matmul.inputs[0], matmul.inputs[1], matmul.outputs[0]}) {
    EXPECT_EQ(g.operands[o].type, OperandType::TENSOR_QUANT8_ASYMM_SIGNED);
  }
  const auto& mul = only(g, Op::MUL);
  EXPECT_EQ(mul.inputs[0], matmul.outputs[0]);
  const auto& reciprocal = g.operands[mul.inputs[1]];
  ASSERT_EQ(reciprocal.type, OperandType::TENSOR_QUANT8_ASYMM_SIGNED);
  const double value = (reciprocal.data.at<int8_t>(0) - reciprocal.zeroPoint) * double(reciprocal.scale);
  EXPECT_NEAR(value, 1 / 2.828427, reciprocal.scale / 2);
  ASSERT_EQ(quantized.keptInFloat.size(), 1u);
  EXPECT_EQ(quantized.keptInFloat[0].rfind("DIV#", 0), 0u) << quantized.keptInFloat[0];
  EXPECT_EQ(g.operands[only(g, Op::DIV).inputs[0]].type, OperandType::TENSOR_FLOAT32);
}

// An attention mask (-inf, or -10000 as BERT's exporters write it) added to the scores: the
// mask constant's masked entries are kMaskMagnitude deep, so the sum saturates at the bottom of
// the ADD's output range, which is the scores' (not the calibration's, which the masked sums
// widen to -10004) and reaches kMaskDepth below its top, so the softmax gives the masked entries
// exp(-16): 0 at its output step. Before, -inf made a scale of inf and NNAPI refused the model.
// An observed value counts as masked only at infinity or float's extremes: a raw audio sample
// of 30000 is a value.
TEST(PostTraining, AttentionMasksSaturateInsteadOfWideningTheRange) {
  RangeObserver observer;
  const float scores[] = {-3.0f, 2.5f, -std::numeric_limits<float>::infinity(), -3e38f, 1.0f};
  observer.observe(7, reinterpret_cast<const uint8_t*>(scores), sizeof scores);
  const Range r = observer.ranges().at(7);
  EXPECT_EQ(r.lo, -3.0f);
  EXPECT_EQ(r.hi, 2.5f);
  EXPECT_TRUE(r.maskedLow);
  EXPECT_FALSE(r.maskedHigh);
  const Quantization q = int8Quantization(r);
  EXPECT_NEAR((-128 - q.zeroPoints[0]) * q.scales[0], 2.5 - kMaskDepth, q.scales[0]);
  EXPECT_NEAR((127 - q.zeroPoints[0]) * q.scales[0], 2.5, q.scales[0]);
  const float audio[] = {-30000.0f, 30000.0f};
  observer.observe(8, reinterpret_cast<const uint8_t*>(audio), sizeof audio);
  EXPECT_EQ(observer.ranges().at(8).lo, -30000.0f);
  EXPECT_FALSE(observer.ranges().at(8).maskedLow);

  Graph m;
  m.input("scores", {"1", "4", "4"});
  const float inf = std::numeric_limits<float>::infinity();
  m.floats("mask", {4, 4}, {0, -inf, -10000, -inf, 0, 0, -inf, -inf, 0, 0, 0, -inf, 0, 0, 0, 0});
  m.node("Add", {"scores", "mask"}, {"masked"}, "masking");
  m.node("Softmax", {"masked"}, {"y"}, "attention");
  m.output("y", 3);
  const ImportedModel imported = m.import();
  std::map<uint32_t, Range> ranges = uniformRanges(imported, -4.0f, 4.0f);
  for (auto& [operand, range] : ranges) {
    if (imported.model.main.operands[operand].name == "masked") range.lo = -10004.0f;  // -10000 + scores
  }
  const QuantizedModel quantized = quantizeInt8(imported.model, ranges);
  const auto& g = quantized.model.main;
  const auto& add = only(g, Op::ADD);
  const auto& mask = g.operands[add.inputs[1]];
  ASSERT_EQ(mask.type, OperandType::TENSOR_QUANT8_ASYMM_SIGNED);
  EXPECT_TRUE(std::isfinite(mask.scale));
  EXPECT_EQ(mask.data.at<int8_t>(1), -128);  // -inf: the bottom of the range
  EXPECT_EQ(mask.data.at<int8_t>(2), -128);  // -10000 too
  EXPECT_EQ((mask.data.at<int8_t>(0) - mask.zeroPoint) * mask.scale, 0.0f);  // 0 exactly
  EXPECT_LE((-128 - mask.zeroPoint) * double(mask.scale), -kMaskMagnitude * 0.99);
  const auto& sum = g.operands[add.outputs[0]];
  EXPECT_NEAR((-128 - sum.zeroPoint) * double(sum.scale), 4.0 - kMaskDepth, sum.scale);
}

TEST(PostTraining, ConcatenatedValuesShareOneQuantizationOverTheirRanges) {
  Graph m;
  m.input("x", {"1", "1", "2", "2"});
  m.floats("wa", {2, 1, 1, 1}, {1.0f, -1.0f});
  m.floats("wb", {2, 1, 1, 1}, {2.0f, 0.5f});
  m.node("Conv", {"x", "wa"}, {"a"});
  m.node("Conv", {"x", "wb"}, {"b"});
  m.node("Relu", {"b"}, {"rb"});
  auto* concat = m.node("Concat", {"a", "rb"}, {"y"});
  auto* axis = concat->add_attribute();
  axis->set_name("axis");
  axis->set_type(::onnx::AttributeProto::INT);
  axis->set_i(1);
  m.output("y", 4);
  const ImportedModel imported = m.import();
  std::map<uint32_t, Range> ranges = uniformRanges(imported, -1.0f, 1.0f);
  const auto& f = imported.model.main;
  for (const auto& op : f.operations) {
    if (op.type == Op::RELU) ranges[op.outputs[0]] = {0.0f, 6.0f};
    if (op.type == Op::CONCATENATION) ranges[op.outputs[0]] = {-2.0f, 4.0f};
  }
  const QuantizedModel q = quantizeInt8(imported.model, ranges);
  const auto& g = q.model.main;
  const auto& cat = only(g, Op::CONCATENATION);
  const auto& out = g.operands[cat.outputs[0]];
  EXPECT_FLOAT_EQ(out.scale, 8.0f / 255);  // [-2, 6]: the union
  for (size_t k = 0; k + 1 < cat.inputs.size(); ++k) {
    EXPECT_EQ(g.operands[cat.inputs[k]].scale, out.scale) << k;
    EXPECT_EQ(g.operands[cat.inputs[k]].zeroPoint, out.zeroPoint) << k;
  }
}

TEST(PostTraining, Int8QuantizationCoversTheRangeAndHoldsZeroExactly) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-50.0f, 50.0f);
  for (int i = 0; i < 1000; ++i) {
    float lo = u(rng), hi = u(rng);
    if (lo > hi) std::swap(lo, hi);
    const Quantization q = int8Quantization({lo, hi});
    const float s = q.scales[0];
    const int32_t z = q.zeroPoints[0];
    ASSERT_GT(s, 0.0f);
    ASSERT_GE(z, -128);
    ASSERT_LE(z, 127);
    // The widened range [min(lo, 0), max(hi, 0)] lies within half a step of [-128, 127].
    EXPECT_LE((-128 - z) * s, std::min(lo, 0.0f) + s / 2) << lo << " " << hi;
    EXPECT_GE((127 - z) * s, std::max(hi, 0.0f) - s / 2) << lo << " " << hi;
  }
  EXPECT_GT(int8Quantization({0.0f, 0.0f}).scales[0], 0.0f);  // a value that is always 0
}

TEST(PostTraining, RefusesWhatItCannotQuantize) {
  const ImportedModel imported = classifier().import();
  std::map<uint32_t, Range> missing = uniformRanges(imported, -1.0f, 1.0f);
  missing.erase(missing.begin());
  EXPECT_THROW(quantizeInt8(imported.model, missing), ImportError);
  test::TestModel half = classifier().import().model;
  for (auto& o : half.main.operands) {
    if (o.type == OperandType::TENSOR_FLOAT32) o.type = OperandType::TENSOR_FLOAT16;
  }
  EXPECT_THROW(quantizeInt8(half, uniformRanges(imported, -1.0f, 1.0f)), ImportError);
  RangeObserver observer;
  const float nan = std::nanf("");
  EXPECT_THROW(observer.observe(0, reinterpret_cast<const uint8_t*>(&nan), sizeof nan), ImportError);
}

// ---- weft run --quantize int8 -------------------------------------------------------------------

std::string tempPath(const std::string& name) { return ::testing::TempDir() + "post_training_test_" + name; }

// Conv -> Relu -> GlobalAveragePool -> Flatten -> Gemm: every layer has an accelerated int8 form.
Graph convNet() {
  Graph m;
  m.input("image", {"1", "2", "6", "6"});
  std::vector<float> w(4 * 2 * 3 * 3), fc(5 * 4);
  std::mt19937 rng(3);
  std::normal_distribution<float> n(0.0f, 0.5f);
  for (float& v : w) v = n(rng);
  for (float& v : fc) v = n(rng);
  m.floats("w", {4, 2, 3, 3}, w);
  m.floats("b", {4}, {0.1f, -0.1f, 0.2f, 0.0f});
  m.floats("fc", {5, 4}, fc);
  auto* conv = m.node("Conv", {"image", "w", "b"}, {"c"}, "conv");
  m.ints(conv, "pads", {1, 1, 1, 1});
  m.node("Relu", {"c"}, {"r"}, "relu");
  m.node("GlobalAveragePool", {"r"}, {"p"}, "pool");
  m.node("Flatten", {"p"}, {"f"}, "flatten");
  auto* gemm = m.node("Gemm", {"f", "fc"}, {"logits"}, "classifier");
  auto* transB = gemm->add_attribute();
  transB->set_name("transB");
  transB->set_type(::onnx::AttributeProto::INT);
  transB->set_i(1);
  m.output("logits", 2);
  return m;
}

TEST(WeftRunQuantize, TheInt8ModelRunsOnTheAcceleratorAndItsAccuracyIsReported) {
  const std::string model = tempPath("net.onnx"), cal = tempPath("calibration"), json = tempPath("net.json");
  convNet().save(model);
  fs::remove_all(cal);
  fs::create_directories(cal);
  std::mt19937 rng(9);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  HostTensor stack(DType::kFloat, {3, 1, 2, 6, 6});  // three samples in one file
  for (int64_t i = 0; i < stack.size(); ++i) stack.setDouble(i, u(rng));
  writeNpy(cal + "/samples.npy", stack);
  const auto r = runWeft("--backend approx run " + model + " --quantize int8 --calibration " + cal + " --json " + json +
                             " --csv " + tempPath("net.csv") + " --save-outputs " + tempPath("out"),
                         "WEFT_YOSYS=none");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("quantized to int8 after calibration on 3 samples (0 of"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("conv+relu"), std::string::npos) << r.output;  // the folded activation, named
  std::smatch cosine;
  ASSERT_TRUE(std::regex_search(r.output, cosine, std::regex("output 'logits': cosine similarity ([0-9.]+)")))
      << r.output;
  EXPECT_GE(std::stod(cosine[1]), 0.99) << r.output;
  std::ifstream report(json);
  const std::string text((std::istreambuf_iterator<char>(report)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text.find("weft-cpu"), std::string::npos) << "every layer on the accelerator:\n" << text;
  const HostTensor saved = readNpy(tempPath("out") + "/logits.npy");
  EXPECT_EQ(saved.type, DType::kFloat);  // dequantized
  EXPECT_EQ(saved.shape, (Shape{1, 5}));
}

// A language model's input: int64 token ids into an embedding table (Gather), then a projection.
// --quantize int8 takes the ids as they are (integers and booleans are not quantized), the
// Gather's output keeps the quantization of the table it reads (NNAPI's GATHER requires it), and
// calibration samples of the ids are int64 .npy files; a float sample for the ids is refused.
Graph tokenModel() {
  Graph m;
  m.input("ids", {"1", "6"}, ::onnx::TensorProto::INT64);
  std::vector<float> table(10 * 8), proj(8 * 4);
  std::mt19937 rng(5);
  std::normal_distribution<float> n(0.0f, 0.5f);
  for (float& v : table) v = n(rng);
  for (float& v : proj) v = n(rng);
  m.floats("table", {10, 8}, table);
  m.floats("proj", {8, 4}, proj);
  m.node("Gather", {"table", "ids"}, {"e"}, "embedding");
  m.node("MatMul", {"e", "proj"}, {"y"}, "projection");
  m.output("y", 3);
  return m;
}

TEST(WeftRunQuantize, IntegerInputsStayAsTheyAre) {
  const std::string model = tempPath("tokens.onnx"), cal = tempPath("token_calibration");
  tokenModel().save(model);
  fs::remove_all(cal);
  fs::create_directories(cal);
  writeNpy(cal + "/ids.npy", HostTensor::fromInts({1, 2, 3, 4, 5, 6, 9, 8, 7, 0, 0, 1}, {2, 1, 6}));
  const std::string json = tempPath("tokens.json");
  const auto r = runWeft("--backend approx run " + model + " --quantize int8 --calibration " + cal + " --json " + json +
                             " --csv " + tempPath("tokens.csv"),
                         "WEFT_YOSYS=none");
  ASSERT_EQ(r.exitCode, 0) << r.output;
  EXPECT_NE(r.output.find("quantized to int8 after calibration on 2 samples (0 of"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("reference check: PASS"), std::string::npos) << r.output;
  std::smatch cosine;
  ASSERT_TRUE(std::regex_search(r.output, cosine, std::regex("output 'y': cosine similarity ([0-9.]+)"))) << r.output;
  EXPECT_GE(std::stod(cosine[1]), 0.99) << r.output;
  writeNpy(cal + "/ids.npy", HostTensor(DType::kFloat, {1, 6}));
  const auto bad = runWeft("--backend approx run " + model + " --quantize int8 --calibration " + cal + " --json " +
                               tempPath("tokens_bad.json"),
                           "WEFT_YOSYS=none");
  EXPECT_EQ(bad.exitCode, 2) << bad.output;
  EXPECT_NE(bad.output.find("a calibration sample of this input is int64, this one is float"), std::string::npos)
      << bad.output;
  EXPECT_FALSE(fs::exists(tempPath("tokens_bad.json")));
}

TEST(WeftRunQuantize, BadOptionsAndModelsAreClearErrors) {
  const std::string model = tempPath("bad.onnx"), cal = tempPath("badcal"), report = " --json " + tempPath("bad.json");
  convNet().save(model);
  fs::remove_all(cal);
  fs::create_directories(cal);
  writeNpy(cal + "/wrong.npy", HostTensor(DType::kFloat, {1, 2, 6, 5}));
  auto r = runWeft("--backend approx run " + model + " --quantize int4" + report, "WEFT_YOSYS=none");
  EXPECT_EQ(r.exitCode, 2) << r.output;
  r = runWeft("--backend approx run " + model + " --calibration " + cal + report, "WEFT_YOSYS=none");
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("--calibration is for --quantize int8"), std::string::npos) << r.output;
  r = runWeft("--backend approx run " + model + " --quantize int8 --calibration " + cal + report, "WEFT_YOSYS=none");
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("wrong.npy: shape 1x2x6x5, the input takes 1x2x6x6"), std::string::npos) << r.output;
  fs::remove(cal + "/wrong.npy");
  r = runWeft("--backend approx run " + model + " --quantize int8 --calibration " + cal + report, "WEFT_YOSYS=none");
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("no samples"), std::string::npos) << r.output;
  r = runWeft("--backend approx run " + model + " --quantize int8 --relaxed" + report, "WEFT_YOSYS=none");
  EXPECT_EQ(r.exitCode, 2) << r.output;
  r = runWeft("--backend approx run " + tool::test::sourceDir() + "/traces/networks/mobilenet_v1_224_quant.json" +
                  " --quantize int8" + report,
              "WEFT_YOSYS=none");
  EXPECT_EQ(r.exitCode, 2) << r.output;
  EXPECT_NE(r.output.find("are for ONNX float models"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(tempPath("bad.json")));
}

}  // namespace
}  // namespace weft::onnx
