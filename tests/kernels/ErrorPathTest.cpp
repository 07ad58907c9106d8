// Bad models and requests: each is rejected with BAD_DATA (at validation where the defect is
// visible there), never by reading or writing outside the buffers it was given.
#include <gtest/gtest.h>

#include "OpModelBuilder.h"
#include "weft/kernels/OperationResolver.h"

namespace weft::test {
namespace {

using nn::ErrorStatus;
using nn::OperandType;
using nn::OperationType;

const OpModelBuilder::Tensor kFloat22{OperandType::TENSOR_FLOAT32, {2, 2}};

// ADD of two float [2, 2] inputs with the given activation operand.
OpModelBuilder addModel(uint32_t (*activation)(OpModelBuilder&)) {
  OpModelBuilder m;
  const auto a = m.input(kFloat22, OpModelBuilder::bytesOf(std::vector<float>{1, 2, 3, 4}));
  const auto b = m.input(kFloat22, OpModelBuilder::bytesOf(std::vector<float>{5, 6, 7, 8}));
  const auto act = activation(m);
  const auto out = m.output(kFloat22);
  m.operation(OperationType::ADD, {a, b, act}, {out});
  return m;
}

// A float32 CONV_2D with an explicit-padding signature; `inputDims` lets a test break the rank.
OpModelBuilder convModel(nn::Dimensions inputDims, OperandType filterType, int32_t activation) {
  OpModelBuilder m;
  const auto in = m.input({OperandType::TENSOR_FLOAT32, inputDims},
                          std::vector<uint8_t>(nn::sizeOfData(OperandType::TENSOR_FLOAT32, inputDims)));
  const auto f = m.constant({filterType, {1, 1, 1, 1}, filterType == OperandType::TENSOR_FLOAT32 ? 0.0f : 0.5f},
                            std::vector<float>{1.0f});
  const auto b = m.constant({OperandType::TENSOR_FLOAT32, {1}}, std::vector<float>{0.0f});
  std::vector<uint32_t> ins{in, f, b};
  for (int v : {0, 0, 0, 0, 1, 1}) ins.push_back(m.int32Scalar(v));
  ins.push_back(m.int32Scalar(activation));
  const auto out = m.output({OperandType::TENSOR_FLOAT32, {1, 2, 2, 1}});
  m.operation(OperationType::CONV_2D, ins, {out});
  return m;
}

TEST(ErrorPath, WrongRankIsBadDataAtValidation) {
  expectBadData(convModel({2, 2, 1}, OperandType::TENSOR_FLOAT32, 0).validate(), "rank");
}

TEST(ErrorPath, WrongTypeIsBadDataAtValidation) {
  expectBadData(convModel({1, 2, 2, 1}, OperandType::TENSOR_QUANT8_ASYMM, 0).validate(), "filter");
}

TEST(ErrorPath, BadActivationCodeIsBadDataAtValidation) {
  expectBadData(convModel({1, 2, 2, 1}, OperandType::TENSOR_FLOAT32, 7).validate(), "activation");
  expectBadData(addModel([](OpModelBuilder& m) { return m.int32Scalar(-1); }).validate(), "activation");
}

TEST(ErrorPath, BadActivationCodeFromTheRequestIsBadDataAtExecution) {
  // Not a constant: validation cannot see it, the kernel must reject it.
  OpModelBuilder m = addModel([](OpModelBuilder& b) {
    return b.input({OperandType::INT32, {}}, OpModelBuilder::bytesOf(std::vector<int32_t>{9}));
  });
  ASSERT_TRUE(m.validate().ok());
  auto run = m.run();
  ASSERT_FALSE(run.result.ok());
  EXPECT_EQ(run.result.error().code, ErrorStatus::BAD_DATA);
  EXPECT_TRUE(run.guardsIntact);
}

TEST(ErrorPath, ZeroScaleIsBadDataAtValidation) {
  OpModelBuilder m;
  const OpModelBuilder::Tensor q{OperandType::TENSOR_QUANT8_ASYMM, {2}, 0.0f, 128};
  const auto a = m.input(q, {1, 2});
  const auto b = m.input(q, {3, 4});
  const auto out = m.output({OperandType::TENSOR_QUANT8_ASYMM, {2}, 0.5f, 128});
  m.operation(OperationType::ADD, {a, b, m.int32Scalar(0)}, {out});
  expectBadData(m.validate(), "scale");
}

TEST(ErrorPath, ZeroPointOutOfRangeIsBadDataAtValidation) {
  OpModelBuilder m;
  const OpModelBuilder::Tensor q{OperandType::TENSOR_QUANT8_ASYMM, {2}, 0.5f, 300};
  const auto a = m.input(q, {1, 2});
  const auto b = m.input(q, {3, 4});
  const auto out = m.output({OperandType::TENSOR_QUANT8_ASYMM, {2}, 0.5f, 128});
  m.operation(OperationType::ADD, {a, b, m.int32Scalar(0)}, {out});
  expectBadData(m.validate(), "zero point");
}

TEST(ErrorPath, OutOfRangeAxisIsBadDataAtValidation) {
  {
    OpModelBuilder m;
    const auto in = m.input(kFloat22, std::vector<uint8_t>(16));
    const auto out = m.output(kFloat22);
    m.operation(OperationType::SOFTMAX, {in, m.floatScalar(1.0f), m.int32Scalar(2)}, {out});
    expectBadData(m.validate(), "axis");
  }
  {
    OpModelBuilder m;
    const auto a = m.input(kFloat22, std::vector<uint8_t>(16));
    const auto b = m.input(kFloat22, std::vector<uint8_t>(16));
    const auto out = m.output({OperandType::TENSOR_FLOAT32, {4, 2}});
    m.operation(OperationType::CONCATENATION, {a, b, m.int32Scalar(-3)}, {out});
    expectBadData(m.validate(), "axis");
  }
}

TEST(ErrorPath, OmittedOperandIsBadDataUnlessAllowed) {
  OpModelBuilder m = addModel([](OpModelBuilder& b) { return b.omitted(OperandType::INT32); });
  expectBadData(m.validate(), "omitted");
  auto run = m.run();
  ASSERT_FALSE(run.result.ok());
  EXPECT_EQ(run.result.error().code, ErrorStatus::BAD_DATA);
}

TEST(ErrorPath, UnknownOperationTypeIsBadData) {
  OpModelBuilder m;
  const auto in = m.input(kFloat22, std::vector<uint8_t>(16));
  const auto out = m.output(kFloat22);
  m.operation(static_cast<OperationType>(12345), {in}, {out});
  expectBadData(m.validate(), "unknown operation");
  EXPECT_FALSE(m.run().result.ok());
}

TEST(ErrorPath, OperandIndexOutOfRangeIsBadData) {
  OpModelBuilder m = addModel([](OpModelBuilder& b) { return b.int32Scalar(0); });
  m.model().main.operations[0].inputs[1] = 99;
  expectBadData(m.validate(), "index");
  EXPECT_FALSE(m.run().result.ok());
}

TEST(ErrorPath, TooSmallOutputIsReportedNotOverrun) {
  OpModelBuilder m;
  const auto a = m.input(kFloat22, OpModelBuilder::bytesOf(std::vector<float>{1, 2, 3, 4}));
  const auto b = m.input(kFloat22, OpModelBuilder::bytesOf(std::vector<float>{1, 1, 1, 1}));
  // Declared with unknown dimensions and given room for two of the four results.
  const auto out = m.output({OperandType::TENSOR_FLOAT32, {0, 0}}, 8);
  m.operation(OperationType::ADD, {a, b, m.int32Scalar(0)}, {out});
  auto run = m.run();
  ASSERT_TRUE(run.result.ok()) << run.result.error().message;
  EXPECT_FALSE(run.result->at(0).isSufficient);
  EXPECT_EQ(run.result->at(0).dimensions, (nn::Dimensions{2, 2}));
  EXPECT_TRUE(run.guardsIntact);
}

TEST(ErrorPath, TooSmallInputIsBadData) {
  OpModelBuilder m;
  const auto a = m.input(kFloat22, OpModelBuilder::bytesOf(std::vector<float>{1, 2}));  // 8 of 16 bytes
  const auto b = m.input(kFloat22, std::vector<uint8_t>(16));
  const auto out = m.output(kFloat22);
  m.operation(OperationType::ADD, {a, b, m.int32Scalar(0)}, {out});
  auto run = m.run();
  ASSERT_FALSE(run.result.ok());
  EXPECT_EQ(run.result.error().code, ErrorStatus::BAD_DATA);
  EXPECT_TRUE(run.guardsIntact);
}

TEST(ErrorPath, ConstantOutsideItsPoolIsBadData) {
  OpModelBuilder m = addModel([](OpModelBuilder& b) { return b.int32Scalar(0); });
  m.model().main.operands[2].location.offset = 1 << 20;
  EXPECT_FALSE(m.validate().ok() && m.run().result.ok());
  auto run = m.run();
  ASSERT_FALSE(run.result.ok());
  EXPECT_EQ(run.result.error().code, ErrorStatus::BAD_DATA);
}

TEST(ErrorPath, ShapeMismatchSeenOnlyAtExecutionIsBadData) {
  // Input depth 3 against a filter of depth 1: the model leaves the input's dimensions unknown,
  // so only prepare() sees the conflict once the request states them.
  OpModelBuilder m;
  const auto in = m.input({OperandType::TENSOR_FLOAT32, {0, 0, 0, 0}}, std::vector<uint8_t>(1 * 2 * 2 * 3 * 4),
                          {1, 2, 2, 3});
  const auto f = m.constant({OperandType::TENSOR_FLOAT32, {1, 1, 1, 1}}, std::vector<float>{1.0f});
  const auto b = m.constant({OperandType::TENSOR_FLOAT32, {1}}, std::vector<float>{0.0f});
  std::vector<uint32_t> ins{in, f, b};
  for (int v : {0, 0, 0, 0, 1, 1, 0}) ins.push_back(m.int32Scalar(v));
  const auto out = m.output({OperandType::TENSOR_FLOAT32, {0, 0, 0, 0}}, 64);
  m.operation(OperationType::CONV_2D, ins, {out});
  ASSERT_TRUE(m.validate().ok()) << m.validate().error().message;
  auto run = m.run();
  ASSERT_FALSE(run.result.ok());
  EXPECT_EQ(run.result.error().code, ErrorStatus::BAD_DATA);
  EXPECT_NE(run.result.error().message.find("depth"), std::string::npos) << run.result.error().message;
  EXPECT_TRUE(run.guardsIntact);
}

TEST(ErrorPath, UnspecifiedInputWithoutRequestDimensionsIsBadData) {
  OpModelBuilder m;
  const auto a = m.input({OperandType::TENSOR_FLOAT32, {0, 2}}, std::vector<uint8_t>(16));
  const auto b = m.input(kFloat22, std::vector<uint8_t>(16));
  const auto out = m.output(kFloat22);
  m.operation(OperationType::ADD, {a, b, m.int32Scalar(0)}, {out});
  auto run = m.run();
  ASSERT_FALSE(run.result.ok());
  EXPECT_EQ(run.result.error().code, ErrorStatus::BAD_DATA);
}

TEST(ErrorPath, ReshapeChangingTheElementCountIsBadData) {
  OpModelBuilder m;
  const auto in = m.input(kFloat22, std::vector<uint8_t>(16));
  const auto shape = m.constant({OperandType::TENSOR_INT32, {2}}, std::vector<int32_t>{3, 3});
  const auto out = m.output({OperandType::TENSOR_FLOAT32, {0, 0}}, 64);
  m.operation(OperationType::RESHAPE, {in, shape}, {out});
  ASSERT_TRUE(m.validate().ok());
  auto run = m.run();
  ASSERT_FALSE(run.result.ok());
  EXPECT_EQ(run.result.error().code, ErrorStatus::BAD_DATA);
  EXPECT_TRUE(run.guardsIntact);
}

TEST(ErrorPath, PerChannelFilterOnTheWrongDimensionIsBadData) {
  OpModelBuilder m;
  const auto in = m.input({OperandType::TENSOR_QUANT8_ASYMM, {1, 1, 1, 2}, 0.5f, 0}, {1, 2});
  const auto f = m.constant({OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL, {2, 1, 1, 2}, 0.0f, 0,
                             nn::SymmPerChannelQuantParams{{0.5f, 0.5f}, 3}},
                            std::vector<int8_t>{1, 2, 3, 4});
  const auto b = m.constant({OperandType::TENSOR_INT32, {2}}, std::vector<int32_t>{0, 0});
  std::vector<uint32_t> ins{in, f, b};
  for (int v : {0, 0, 0, 0, 1, 1, 0}) ins.push_back(m.int32Scalar(v));
  const auto out = m.output({OperandType::TENSOR_QUANT8_ASYMM, {1, 1, 1, 2}, 1.0f, 0});
  m.operation(OperationType::CONV_2D, ins, {out});
  expectBadData(m.validate(), "channelDim");
}

}  // namespace
}  // namespace weft::test
