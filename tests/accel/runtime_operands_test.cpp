// Operands given at execution instead of as constants, on the accelerator (approx backend)
// against the CPU reference, bit-exact:
//  * filters and biases of CONV_2D, FULLY_CONNECTED and DEPTHWISE_CONV_2D as model inputs or as
//    tensors another operation computes on the device (RuntimeOperands.h);
//  * shape parameters (PAD's paddings, RESHAPE's shape, MEAN's axes) as model inputs: compiled
//    per execution (ExecutionParameters.h), different values on one prepared model, values the
//    hardware cannot take failing only that execution.
#include <gtest/gtest.h>

#include <cstring>

#include "AccelTestUtil.h"

namespace weft::accel::test {
namespace {

using nn::OperandType;

// `m` with the given constant operands turned into model inputs carrying the same bytes.
OpModel withInputs(OpModel m, std::initializer_list<uint32_t> operands) {
  for (uint32_t index : operands) {
    nn::Operand& o = m.model.main.operands[index];
    const uint8_t* bytes = m.model.operandValues.data() + o.location.offset;
    m.inputs.emplace_back(bytes, bytes + o.location.length);
    o.lifetime = nn::Operand::LifeTime::SUBGRAPH_INPUT;
    o.location = nn::DataLocation{};
    m.model.main.inputIndexes.push_back(index);
  }
  return m;
}

// The filter and bias of the one operation of `m` (inputs 1 and 2).
OpModel weightsAsInputs(OpModel m) {
  const auto& op = m.model.main.operations.at(0);
  const uint32_t filter = op.inputs[1], bias = op.inputs[2];
  return withInputs(std::move(m), {filter, bias});
}

TEST(RuntimeOperands, ConvolutionFiltersAndBiasesGivenAtExecution) {
  auto device = approxDevice("weft8");
  std::mt19937 rng(77);
  for (int i = 0; i < 12; ++i) {
    const ConvCase c = randomConvCase(rng, 12, 20);
    SCOPED_TRACE(c.describe());
    expectBitExactOnDevice(*device, weightsAsInputs(makeConvModel(c, rng)), c.describe());
    if (HasFatalFailure()) return;
  }
}

TEST(RuntimeOperands, FullyConnectedWeightsGivenAtExecution) {
  auto device = approxDevice("weft8");
  std::mt19937 rng(78);
  for (int i = 0; i < 8; ++i) {
    const FcCase c = randomFcCase(rng, 6, 40);
    SCOPED_TRACE(c.describe());
    expectBitExactOnDevice(*device, weightsAsInputs(makeFcModel(c, rng)), c.describe());
    if (HasFatalFailure()) return;
  }
}

// DEPTHWISE_CONV_2D [1, h, w, c] -> [1, oh, ow, c * dm], SAME padding, explicit layout operand.
OpModel depthwiseModel(std::mt19937& rng, uint32_t h, uint32_t w, uint32_t c, uint32_t dm, uint32_t k,
                       uint32_t stride, bool perChannel) {
  ModelBuilder b;
  const uint32_t outC = c * dm;
  const uint32_t in = b.input(OperandType::TENSOR_QUANT8_ASYMM, {1, h, w, c}, 0.5f, 120);
  std::vector<uint8_t> filter(size_t{k} * k * outC);
  for (auto& v : filter) v = static_cast<uint8_t>(rng());
  std::vector<float> scales(outC);
  for (auto& s : scales) s = 0.01f + 0.002f * static_cast<float>(rng() % 10);
  const uint32_t f = perChannel ? b.constant(OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL, {1, k, k, outC},
                                             filter.data(), filter.size(), 0.0f, 0)
                                : b.constant(OperandType::TENSOR_QUANT8_ASYMM, {1, k, k, outC}, filter.data(),
                                             filter.size(), 0.02f, 128);
  if (perChannel) b.operand(f).extraParams = nn::SymmPerChannelQuantParams{scales, 3};
  std::vector<int32_t> bias(outC);
  for (auto& v : bias) v = static_cast<int32_t>(rng() % 2001) - 1000;
  const uint32_t biasOp = b.constant(OperandType::TENSOR_INT32, {outC}, bias.data(), 4 * bias.size(),
                                     perChannel ? 0.0f : 0.5f * 0.02f, 0);
  const uint32_t oh = (h + stride - 1) / stride, ow = (w + stride - 1) / stride;
  const uint32_t out = b.tensor(OperandType::TENSOR_QUANT8_ASYMM, {1, oh, ow, outC}, 0.25f, 100);
  b.operation(nn::OperationType::DEPTHWISE_CONV_2D,
              {in, f, biasOp, b.int32Scalar(1), b.int32Scalar(static_cast<int32_t>(stride)),
               b.int32Scalar(static_cast<int32_t>(stride)), b.int32Scalar(static_cast<int32_t>(dm)), b.int32Scalar(0),
               b.boolScalar(false)},
              {out});
  b.output(out);
  OpModel m;
  m.model = b.build();
  std::vector<uint8_t> input(size_t{h} * w * c);
  for (auto& v : input) v = static_cast<uint8_t>(rng());
  m.inputs.push_back(std::move(input));
  m.outputBytes.push_back(size_t{oh} * ow * outC);
  return m;
}

TEST(RuntimeOperands, DepthwiseFiltersAndBiasesGivenAtExecution) {
  auto device = approxDevice("weft8");
  std::mt19937 rng(79);
  // Channels below, at and above the lane count, a depth multiplier, per-channel filters.
  struct Shape {
    uint32_t h, w, c, dm, k, stride;
    bool perChannel;
  };
  for (const Shape& s : {Shape{6, 5, 3, 1, 3, 1, false}, Shape{9, 7, 8, 1, 3, 2, true}, Shape{5, 6, 11, 2, 5, 1, false},
                         Shape{4, 4, 20, 1, 1, 1, true}}) {
    const std::string what = "depthwise " + std::to_string(s.c) + "x" + std::to_string(s.dm);
    expectBitExactOnDevice(*device, weightsAsInputs(depthwiseModel(rng, s.h, s.w, s.c, s.dm, s.k, s.stride,
                                                                   s.perChannel)),
                           what);
    if (HasFatalFailure()) return;
  }
}

// The filter computed on the device: CONV_2D's filter is ADD(filter input, zeros), as in
// NNAPI's "all inputs as internal" tests. Nothing goes back to the host between the two.
TEST(RuntimeOperands, AFilterAnotherOperationComputesOnTheDevice) {
  auto device = approxDevice("weft8");
  std::mt19937 rng(80);
  ConvCase c = randomConvCase(rng, 8, 12);
  c.filter.type = c.in.type;  // the ADD's quant8 type
  OpModel m = makeConvModel(c, rng);
  nn::Model& model = m.model;
  const uint32_t filter = model.main.operations[0].inputs[1];
  nn::Operand raw = model.main.operands[filter];  // the model input the ADD reads
  const uint8_t* bytes = model.operandValues.data() + raw.location.offset;
  m.inputs.emplace_back(bytes, bytes + raw.location.length);
  raw.lifetime = nn::Operand::LifeTime::SUBGRAPH_INPUT;
  raw.location = nn::DataLocation{};
  model.main.operands.push_back(raw);
  const uint32_t rawIndex = static_cast<uint32_t>(model.main.operands.size() - 1);
  model.main.inputIndexes.push_back(rawIndex);
  nn::Operand zero = raw;
  zero.dimensions = {1};
  zero.lifetime = nn::Operand::LifeTime::CONSTANT_COPY;
  zero.location.offset = static_cast<uint32_t>(model.operandValues.size());
  zero.location.length = 1;
  model.operandValues.push_back(static_cast<uint8_t>(raw.zeroPoint));
  model.main.operands.push_back(zero);
  const uint32_t zeroIndex = static_cast<uint32_t>(model.main.operands.size() - 1);
  nn::Operand act;
  act.type = OperandType::INT32;
  act.lifetime = nn::Operand::LifeTime::CONSTANT_COPY;
  model.operandValues.resize((model.operandValues.size() + 3) / 4 * 4);
  act.location.offset = static_cast<uint32_t>(model.operandValues.size());
  act.location.length = 4;
  model.operandValues.resize(model.operandValues.size() + 4, 0);
  model.main.operands.push_back(act);
  const uint32_t actIndex = static_cast<uint32_t>(model.main.operands.size() - 1);
  model.main.operands[filter].lifetime = nn::Operand::LifeTime::TEMPORARY_VARIABLE;
  model.main.operands[filter].location = nn::DataLocation{};
  nn::Operation add;
  add.type = nn::OperationType::ADD;
  add.inputs = {rawIndex, zeroIndex, actIndex};
  add.outputs = {filter};
  model.main.operations.insert(model.main.operations.begin(), add);
  // The CONV_2D is now operation 1; expectBitExactOnDevice checks operation 0, so check both.
  auto supported = device->getSupportedOperations(model);
  ASSERT_TRUE(supported.ok());
  ASSERT_EQ(supported.value(), (std::vector<bool>{true, true}));
  expectBitExactOnDevice(*device, m, c.describe());
}

// PAD with its paddings a model input: one prepared model, several executions.
struct PadModel {
  OpModel m;
  uint32_t paddingsInput = 0;  // position among the model's inputs
};
PadModel padModel(const nn::Dimensions& inDims, const nn::Dimensions& outDims) {
  ModelBuilder b;
  const uint32_t in = b.input(OperandType::TENSOR_QUANT8_ASYMM, inDims, 0.5f, 7);
  const uint32_t paddings = b.input(OperandType::TENSOR_INT32, {static_cast<uint32_t>(inDims.size()), 2}, 0, 0);
  const uint32_t out = b.tensor(OperandType::TENSOR_QUANT8_ASYMM, outDims, 0.5f, 7);
  b.operation(nn::OperationType::PAD, {in, paddings}, {out});
  b.output(out);
  PadModel p;
  p.m.model = b.build();
  std::vector<uint8_t> input(nn::numberOfElements(inDims));
  for (size_t i = 0; i < input.size(); ++i) input[i] = static_cast<uint8_t>(3 * i + 1);
  p.m.inputs = {input, {}};
  p.paddingsInput = 1;
  return p;
}

void setPaddings(PadModel& p, const std::vector<int32_t>& v) {
  p.m.inputs[p.paddingsInput].resize(4 * v.size());
  std::memcpy(p.m.inputs[p.paddingsInput].data(), v.data(), 4 * v.size());
}

TEST(ExecutionParameters, PadPaddingsChangeFromExecutionToExecution) {
  auto device = approxDevice("weft8");
  PadModel p = padModel({1, 3, 4, 10}, {1, 5, 5, 10});
  p.m.outputBytes = {5 * 5 * 10};
  auto supported = device->getSupportedOperations(p.m.model);
  ASSERT_TRUE(supported.ok());
  EXPECT_TRUE(supported.value().at(0));
  auto prepared = prepare(*device, p.m.model);
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  // Same output shape, different placements; then the first again (a kept compilation).
  for (const auto& v : {std::vector<int32_t>{0, 0, 1, 1, 0, 1, 0, 0}, std::vector<int32_t>{0, 0, 2, 0, 1, 0, 0, 0},
                        std::vector<int32_t>{0, 0, 1, 1, 0, 1, 0, 0}}) {
    setPaddings(p, v);
    auto cpu = runOnCpu(p.m);
    ASSERT_TRUE(cpu.ok()) << cpu.error().message;
    auto dev = runOnPrepared(*prepared.value(), p.m);
    ASSERT_TRUE(dev.ok()) << dev.error().message;
    EXPECT_EQ(firstMismatch(dev.value().outputs[0], cpu.value().outputs[0]), -1);
    EXPECT_EQ(dev.value().execution->outputShapes.at(0).dimensions, (nn::Dimensions{1, 5, 5, 10}));
  }
}

TEST(ExecutionParameters, OutputDimensionsFollowTheValues) {
  auto device = approxDevice("weft8");
  PadModel p = padModel({2, 3}, {0, 0});  // output dimensions unknown until execution
  p.m.outputBytes = {64};
  auto prepared = prepare(*device, p.m.model);
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  for (const auto& [v, dims] : {std::pair{std::vector<int32_t>{1, 0, 0, 2}, nn::Dimensions{3, 5}},
                                std::pair{std::vector<int32_t>{0, 0, 3, 3}, nn::Dimensions{2, 9}}}) {
    setPaddings(p, v);
    auto cpu = runOnCpu(p.m);
    ASSERT_TRUE(cpu.ok()) << cpu.error().message;
    auto dev = runOnPrepared(*prepared.value(), p.m);
    ASSERT_TRUE(dev.ok()) << dev.error().message;
    EXPECT_EQ(dev.value().execution->outputShapes.at(0).dimensions, dims);
    const size_t n = nn::numberOfElements(dims);
    EXPECT_EQ(std::vector<uint8_t>(dev.value().outputs[0].begin(), dev.value().outputs[0].begin() + n),
              std::vector<uint8_t>(cpu.value().outputs[0].begin(), cpu.value().outputs[0].begin() + n));
  }
}

TEST(ExecutionParameters, ValuesTheOperationRejectsFailOnlyThatExecution) {
  auto device = approxDevice("weft8");
  PadModel p = padModel({1, 3, 4, 10}, {0, 0, 0, 0});
  p.m.outputBytes = {4096};
  auto prepared = prepare(*device, p.m.model);
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  setPaddings(p, {0, 0, -1, 0, 0, 0, 0, 0});
  auto bad = runOnPrepared(*prepared.value(), p.m);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("paddings must not be negative"), std::string::npos) << bad.error().message;
  p.m.inputs[p.paddingsInput].resize(3);  // shorter than the declared [4, 2]
  auto shortValue = runOnPrepared(*prepared.value(), p.m);
  ASSERT_FALSE(shortValue.ok());
  EXPECT_NE(shortValue.error().message.find("bytes"), std::string::npos) << shortValue.error().message;
  setPaddings(p, {0, 0, 1, 0, 0, 0, 0, 0});
  auto good = runOnPrepared(*prepared.value(), p.m);
  ASSERT_TRUE(good.ok()) << good.error().message;
  EXPECT_EQ(good.value().execution->outputShapes.at(0).dimensions, (nn::Dimensions{1, 4, 4, 10}));
}

// RESHAPE's shape and MEAN's axes as model inputs, values checked against the CPU. The MEAN's
// input is the RESHAPE's declared output: an operation reading a tensor whose dimensions are
// known only at execution is not claimed.
TEST(ExecutionParameters, ReshapeAndMeanWithParametersGivenAtExecution) {
  auto device = approxDevice("weft8");
  ModelBuilder b;
  const uint32_t in = b.input(OperandType::TENSOR_QUANT8_ASYMM_SIGNED, {2, 3, 4, 5}, 0.25f, -3);
  const uint32_t shape = b.input(OperandType::TENSOR_INT32, {3}, 0, 0);
  const uint32_t reshaped = b.tensor(OperandType::TENSOR_QUANT8_ASYMM_SIGNED, {6, 4, 5}, 0.25f, -3);
  b.operation(nn::OperationType::RESHAPE, {in, shape}, {reshaped});
  const uint32_t axes = b.input(OperandType::TENSOR_INT32, {2}, 0, 0);
  const uint32_t mean = b.tensor(OperandType::TENSOR_QUANT8_ASYMM_SIGNED, {}, 0.25f, -3);  // rank unknown
  b.operation(nn::OperationType::MEAN, {reshaped, axes, b.int32Scalar(0)}, {mean});
  b.output(mean);
  OpModel m;
  m.model = b.build();
  std::vector<uint8_t> input(2 * 3 * 4 * 5);
  std::mt19937 rng(81);
  for (auto& v : input) v = static_cast<uint8_t>(rng());
  auto ints = [](std::vector<int32_t> v) {
    std::vector<uint8_t> bytes(4 * v.size());
    std::memcpy(bytes.data(), v.data(), bytes.size());
    return bytes;
  };
  m.outputBytes = {64};
  auto supported = device->getSupportedOperations(m.model);
  ASSERT_TRUE(supported.ok());
  EXPECT_EQ(supported.value(), (std::vector<bool>{true, true}));
  auto prepared = prepare(*device, m.model);
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  // {0, 2}: two groups around a kept axis; {1, 1}: one axis twice; {-1, 0}: the first again.
  for (const auto& [s, a, n] : {std::tuple{std::vector<int32_t>{6, 4, 5}, std::vector<int32_t>{0, 2}, size_t{4}},
                                std::tuple{std::vector<int32_t>{6, -1, 5}, std::vector<int32_t>{1, 1}, size_t{30}},
                                std::tuple{std::vector<int32_t>{-1, 4, 5}, std::vector<int32_t>{-1, 0}, size_t{4}}}) {
    m.inputs = {input, ints(s), ints(a)};
    auto cpu = runOnCpu(m);
    ASSERT_TRUE(cpu.ok()) << cpu.error().message;
    auto dev = runOnPrepared(*prepared.value(), m);
    ASSERT_TRUE(dev.ok()) << dev.error().message;
    EXPECT_EQ(nn::numberOfElements(dev.value().execution->outputShapes.at(0).dimensions), n);
    EXPECT_EQ(std::vector<uint8_t>(dev.value().outputs[0].begin(), dev.value().outputs[0].begin() + n),
              std::vector<uint8_t>(cpu.value().outputs[0].begin(), cpu.value().outputs[0].begin() + n));
  }
  // A RESHAPE whose output dimensions are unknown leaves its consumer to the CPU.
  m.model.main.operands[reshaped].dimensions = {0, 0, 0};
  auto partial = device->getSupportedOperations(m.model);
  ASSERT_TRUE(partial.ok());
  EXPECT_EQ(partial.value(), (std::vector<bool>{true, false}));
}

}  // namespace
}  // namespace weft::accel::test
