// Error paths of the element-wise, comparison, logical, reduction, lookup and generator operations
// (kernels_ref/ops/Abs.cpp ... Fill.cpp): every documented constraint that validation can see is
// BAD_DATA there; value-dependent errors fail the execution with BAD_DATA without touching memory
// outside the output buffers. Also the edge semantics the conformance corpus does not exercise
// (int32 wrap-around, saturating casts, NaN ordering, the FarmHash fingerprint).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "FarmHash.h"
#include "OpModelBuilder.h"
#include "weft/kernels/Float16.h"

namespace weft::test {
namespace {

using nn::Dimensions;
using nn::OperandType;
using nn::OperationType;
using Tensor = OpModelBuilder::Tensor;

template <typename T>
std::vector<uint8_t> bytes(const std::vector<T>& values) {
  return OpModelBuilder::bytesOf(values);
}

// Runs a model that must succeed and returns output `i` as T.
template <typename T>
std::vector<T> runOk(const OpModelBuilder& m, size_t i = 0) {
  EXPECT_TRUE(m.validate().ok()) << m.validate().error().message;
  const auto run = m.run();
  EXPECT_TRUE(run.result.ok()) << (run.result.ok() ? "" : run.result.error().message);
  EXPECT_TRUE(run.guardsIntact);
  return run.result.ok() ? OpModelBuilder::as<T>(run.outputs.at(i)) : std::vector<T>{};
}

// One input, one output.
OpModelBuilder unary(OperationType op, const Tensor& in, std::vector<uint8_t> data, const Tensor& out) {
  OpModelBuilder m;
  const auto x = m.input(in, std::move(data));
  m.operation(op, {x}, {m.output(out)});
  return m;
}

// Two inputs, one output.
OpModelBuilder binary(OperationType op, const Tensor& a, const Tensor& b, const Tensor& out) {
  OpModelBuilder m;
  const auto x = m.input(a, std::vector<uint8_t>(nn::sizeOfData(a.type, a.dims)));
  const auto y = m.input(b, std::vector<uint8_t>(nn::sizeOfData(b.type, b.dims)));
  m.operation(op, {x, y}, {m.output(out)});
  return m;
}

const Tensor kF32x4{OperandType::TENSOR_FLOAT32, {4}};
const Tensor kF32x23{OperandType::TENSOR_FLOAT32, {2, 3}};
const Tensor kI32x4{OperandType::TENSOR_INT32, {4}};
const Tensor kBool4{OperandType::TENSOR_BOOL8, {4}};
const Tensor kQ8x4{OperandType::TENSOR_QUANT8_ASYMM, {4}, 0.5f, 128};

// --- Unary math ---------------------------------------------------------------------------------

TEST(ElementwiseUnary, UnsupportedInputTypeIsBadData) {
  expectBadData(unary(OperationType::EXP, kI32x4, bytes(std::vector<int32_t>(4)), kI32x4).validate(), "type");
  expectBadData(unary(OperationType::ABS, kQ8x4, std::vector<uint8_t>(4), kQ8x4).validate(), "type");
  expectBadData(unary(OperationType::SQRT, kBool4, std::vector<uint8_t>(4), kBool4).validate(), "type");
}

TEST(ElementwiseUnary, OutputTypeDifferentFromInputIsBadData) {
  expectBadData(unary(OperationType::NEG, kF32x4, bytes(std::vector<float>(4)), kI32x4).validate(), "output");
}

TEST(ElementwiseUnary, OutputShapeDifferentFromInputIsBadData) {
  expectBadData(unary(OperationType::SIN, kF32x4, bytes(std::vector<float>(4)), kF32x23).validate(), "shape");
}

TEST(ElementwiseUnary, FloorAboveRankFourIsBadData) {
  const Tensor rank5{OperandType::TENSOR_FLOAT32, {1, 1, 1, 1, 2}};
  expectBadData(unary(OperationType::FLOOR, rank5, bytes(std::vector<float>(2)), rank5).validate(), "rank");
}

TEST(ElementwiseUnary, Int32AbsAndNegWrapAtTheMinimum) {
  const std::vector<int32_t> in{std::numeric_limits<int32_t>::min(), -5, 0, 7};
  const auto abs = runOk<int32_t>(unary(OperationType::ABS, kI32x4, bytes(in), kI32x4));
  EXPECT_EQ(abs, (std::vector<int32_t>{std::numeric_limits<int32_t>::min(), 5, 0, 7}));
  const auto neg = runOk<int32_t>(unary(OperationType::NEG, kI32x4, bytes(in), kI32x4));
  EXPECT_EQ(neg, (std::vector<int32_t>{std::numeric_limits<int32_t>::min(), 5, 0, -7}));
}

TEST(ElementwiseUnary, QuantizedRsqrtOfNegativeSaturatesHigh) {
  // (0 - 128) * 0.5 = -64: the square root is NaN, which the reference saturates to the maximum.
  const auto out = runOk<uint8_t>(unary(OperationType::RSQRT, kQ8x4, {0, 130, 136, 128}, kQ8x4));
  // 130 -> x = 1 -> 1 -> q = 128 + 2; 136 -> x = 4 -> 0.5 -> q = 129; 128 -> x = 0 -> inf -> 255.
  EXPECT_EQ(out, (std::vector<uint8_t>{255, 130, 129, 255}));
}

TEST(ElementwiseUnary, EluAlphaOfTheWrongScalarTypeIsBadData) {
  OpModelBuilder m;
  const auto x = m.input(kF32x4, bytes(std::vector<float>(4)));
  const auto alpha = m.constant({OperandType::FLOAT16, {}}, std::vector<nn::Float16>{nn::Float16(1.0f)});
  m.operation(OperationType::ELU, {x, alpha}, {m.output(kF32x4)});
  expectBadData(m.validate(), "input 1");
}

TEST(ElementwiseUnary, HardSwishOutputScaleBelowInputScaleOver128IsBadData) {
  const Tensor in{OperandType::TENSOR_QUANT8_ASYMM, {4}, 1.0f, 128};
  const Tensor out{OperandType::TENSOR_QUANT8_ASYMM, {4}, 1.0f / 256.0f, 128};
  expectBadData(unary(OperationType::HARD_SWISH, in, std::vector<uint8_t>(4), out).validate(), "output scale");
}

// --- Binary element-wise --------------------------------------------------------------------------

TEST(ElementwiseBinary, ShapesThatDoNotBroadcastAreBadData) {
  const Tensor f3{OperandType::TENSOR_FLOAT32, {3}};
  for (OperationType op : {OperationType::MAXIMUM, OperationType::MINIMUM, OperationType::POW, OperationType::PRELU}) {
    expectBadData(binary(op, kF32x4, f3, kF32x4).validate(), "broadcast");
  }
  expectBadData(binary(OperationType::EQUAL, kF32x4, f3, kBool4).validate(), "broadcast");
  expectBadData(binary(OperationType::LOGICAL_OR, kBool4, {OperandType::TENSOR_BOOL8, {3}}, kBool4).validate(),
                "broadcast");
}

TEST(ElementwiseBinary, OutputShapeContradictingTheBroadcastIsBadData) {
  const Tensor f21{OperandType::TENSOR_FLOAT32, {2, 1}};
  const Tensor f13{OperandType::TENSOR_FLOAT32, {1, 3}};
  EXPECT_TRUE(binary(OperationType::MAXIMUM, f21, f13, kF32x23).validate().ok());
  expectBadData(binary(OperationType::MAXIMUM, f21, f13, {OperandType::TENSOR_FLOAT32, {2, 2}}).validate(), "shape");
}

TEST(ElementwiseBinary, MismatchedInputTypesAreBadData) {
  expectBadData(binary(OperationType::MINIMUM, kF32x4, kI32x4, kF32x4).validate(), "input 1");
  expectBadData(binary(OperationType::PRELU, kQ8x4, kF32x4, kQ8x4).validate(), "input 1");
  expectBadData(binary(OperationType::LESS, kI32x4, kF32x4, kBool4).validate(), "input 1");
}

TEST(ElementwiseBinary, UnsupportedTypesAreBadData) {
  expectBadData(binary(OperationType::POW, kI32x4, kI32x4, kI32x4).validate(), "type");
  expectBadData(binary(OperationType::PRELU, kI32x4, kI32x4, kI32x4).validate(), "type");
  expectBadData(binary(OperationType::LOGICAL_AND, kF32x4, kF32x4, kBool4).validate(), "type");
  expectBadData(binary(OperationType::MAXIMUM, kBool4, kBool4, kBool4).validate(), "type");
}

TEST(ElementwiseBinary, ComparisonOutputMustBeBool8) {
  expectBadData(binary(OperationType::GREATER, kF32x4, kF32x4, kF32x4).validate(), "output");
}

TEST(ElementwiseBinary, ShapeMismatchOnlyVisibleAtExecutionIsBadData) {
  // Unknown dimensions in the model; the request's [4] and [3] do not broadcast.
  OpModelBuilder m;
  const auto a = m.input({OperandType::TENSOR_FLOAT32, {0}}, bytes(std::vector<float>(4)), {4});
  const auto b = m.input({OperandType::TENSOR_FLOAT32, {0}}, bytes(std::vector<float>(3)), {3});
  m.operation(OperationType::MAXIMUM, {a, b}, {m.output({OperandType::TENSOR_FLOAT32, {0}}, 16)});
  expectExecutionBadData(m, "broadcast");
}

TEST(ElementwiseBinary, LogicalNotTakesOnlyBool8) {
  expectBadData(unary(OperationType::LOGICAL_NOT, kI32x4, bytes(std::vector<int32_t>(4)), kI32x4).validate(), "input");
  const auto out = runOk<uint8_t>(unary(OperationType::LOGICAL_NOT, kBool4, {0, 1, 7, 0}, kBool4));
  EXPECT_EQ(out, (std::vector<uint8_t>{1, 0, 0, 1}));
}

// --- SELECT and CAST --------------------------------------------------------------------------------

OpModelBuilder selectModel(const Tensor& condition, const Tensor& a, const Tensor& b, const Tensor& out) {
  OpModelBuilder m;
  const auto c = m.input(condition, std::vector<uint8_t>(nn::sizeOfData(condition.type, condition.dims)));
  const auto x = m.input(a, std::vector<uint8_t>(nn::sizeOfData(a.type, a.dims)));
  const auto y = m.input(b, std::vector<uint8_t>(nn::sizeOfData(b.type, b.dims)));
  m.operation(OperationType::SELECT, {c, x, y}, {m.output(out)});
  return m;
}

TEST(Select, ShapesMustBeEqual) {
  const Tensor f1{OperandType::TENSOR_FLOAT32, {1}};
  EXPECT_TRUE(selectModel(kBool4, kF32x4, kF32x4, kF32x4).validate().ok());
  expectBadData(selectModel({OperandType::TENSOR_BOOL8, {2}}, kF32x4, kF32x4, kF32x4).validate(), "condition");
  expectBadData(selectModel(kBool4, kF32x4, f1, kF32x4).validate(), "input2");
}

TEST(Select, ConditionMustBeBool8) { expectBadData(selectModel(kI32x4, kF32x4, kF32x4, kF32x4).validate(), "input 0"); }

TEST(Cast, IdentityOnlyTypesCannotChangeType) {
  const Tensor q16{OperandType::TENSOR_QUANT16_ASYMM, {4}, 1.0f, 0};
  expectBadData(unary(OperationType::CAST, q16, std::vector<uint8_t>(8), kF32x4).validate(), "same type");
  expectBadData(unary(OperationType::CAST, kBool4, std::vector<uint8_t>(4), kI32x4).validate(), "same type");
  expectBadData(unary(OperationType::CAST, kF32x4, bytes(std::vector<float>(4)), kBool4).validate(), "produce");
}

TEST(Cast, MismatchedShapesAreBadData) {
  expectBadData(
      unary(OperationType::CAST, kI32x4, bytes(std::vector<int32_t>(4)), {OperandType::TENSOR_INT32, {8}}).validate(),
      "shape");
}

TEST(Cast, FloatToIntegerSaturatesAndMapsNanToZero) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> in{3e9f, -3e9f, nan, -2.7f};
  EXPECT_EQ(runOk<int32_t>(unary(OperationType::CAST, kF32x4, bytes(in), kI32x4)),
            (std::vector<int32_t>{std::numeric_limits<int32_t>::max(), std::numeric_limits<int32_t>::min(), 0, -2}));
  EXPECT_EQ(
      runOk<uint8_t>(unary(OperationType::CAST, kF32x4, bytes(std::vector<float>{300.0f, -1.0f, nan, 254.9f}), kQ8x4)),
      (std::vector<uint8_t>{255, 0, 0, 254}));
}

// --- Reductions, ARGMAX/ARGMIN, TOPK_V2 ---------------------------------------------------------------

OpModelBuilder reduceModel(OperationType op, const Tensor& in, std::vector<int32_t> axes, bool keepDims,
                           const Tensor& out) {
  OpModelBuilder m;
  const auto x = m.input(in, std::vector<uint8_t>(nn::sizeOfData(in.type, in.dims)));
  const auto a = m.constant({OperandType::TENSOR_INT32, {static_cast<uint32_t>(axes.size())}}, axes);
  m.operation(op, {x, a, m.boolScalar(keepDims)}, {m.output(out)});
  return m;
}

TEST(Reduction, OutOfRangeConstantAxisIsBadData) {
  expectBadData(
      reduceModel(OperationType::REDUCE_SUM, kF32x23, {2}, false, {OperandType::TENSOR_FLOAT32, {2}}).validate(),
      "axis");
  expectBadData(
      reduceModel(OperationType::REDUCE_MAX, kF32x23, {-3}, false, {OperandType::TENSOR_FLOAT32, {2}}).validate(),
      "axis");
}

TEST(Reduction, OutOfRangeAxisFromTheRequestFailsTheExecution) {
  OpModelBuilder m;
  const auto x = m.input(kF32x23, bytes(std::vector<float>(6)));
  const auto a = m.input({OperandType::TENSOR_INT32, {1}}, bytes(std::vector<int32_t>{5}));
  m.operation(OperationType::REDUCE_PROD, {x, a, m.boolScalar(false)},
              {m.output({OperandType::TENSOR_FLOAT32, {0}}, 64)});
  expectExecutionBadData(m, "axis");
}

TEST(Reduction, RankAboveFourAndUnsupportedTypesAreBadData) {
  const Tensor rank5{OperandType::TENSOR_FLOAT32, {1, 1, 1, 1, 2}};
  expectBadData(reduceModel(OperationType::REDUCE_MIN, rank5, {0}, true, rank5).validate(), "rank");
  expectBadData(
      reduceModel(OperationType::REDUCE_SUM, kQ8x4, {0}, true, {OperandType::TENSOR_QUANT8_ASYMM, {1}, 0.5f, 128})
          .validate(),
      "type");
  expectBadData(
      reduceModel(OperationType::REDUCE_ANY, kF32x4, {0}, true, {OperandType::TENSOR_FLOAT32, {1}}).validate(), "type");
}

TEST(Reduction, QuantizedMaxMustKeepTheInputQuantization) {
  expectBadData(
      reduceModel(OperationType::REDUCE_MAX, kQ8x4, {0}, true, {OperandType::TENSOR_QUANT8_ASYMM, {1}, 0.25f, 128})
          .validate(),
      "quantization");
}

TEST(Reduction, OutputShapeContradictingKeepDimsIsBadData) {
  expectBadData(
      reduceModel(OperationType::REDUCE_SUM, kF32x23, {1}, true, {OperandType::TENSOR_FLOAT32, {2}}).validate(),
      "shape");
}

TEST(Reduction, MaxOfNegativeInfinitiesIsTheLowestFiniteValue) {
  // NNAPI's reference starts from the type's lowest finite value.
  OpModelBuilder m;
  const float inf = std::numeric_limits<float>::infinity();
  const auto x = m.input(kF32x4, bytes(std::vector<float>{-inf, -inf, -inf, -inf}));
  const auto a = m.constant({OperandType::TENSOR_INT32, {1}}, std::vector<int32_t>{0});
  m.operation(OperationType::REDUCE_MAX, {x, a, m.boolScalar(false)}, {m.output({OperandType::TENSOR_FLOAT32, {1}})});
  EXPECT_EQ(runOk<float>(m), (std::vector<float>{std::numeric_limits<float>::lowest()}));
}

TEST(ArgMinMax, OutOfRangeAxisIsBadData) {
  OpModelBuilder m;
  const auto x = m.input(kF32x23, bytes(std::vector<float>(6)));
  m.operation(OperationType::ARGMIN, {x, m.int32Scalar(2)}, {m.output({OperandType::TENSOR_INT32, {2}})});
  expectBadData(m.validate(), "axis");

  OpModelBuilder fromRequest;
  const auto y = fromRequest.input(kF32x23, bytes(std::vector<float>(6)));
  const auto axis = fromRequest.input({OperandType::INT32, {}}, bytes(std::vector<int32_t>{-3}));
  fromRequest.operation(OperationType::ARGMAX, {y, axis}, {fromRequest.output({OperandType::TENSOR_INT32, {0}}, 64)});
  expectExecutionBadData(fromRequest, "axis");
}

TEST(ArgMinMax, OutputMustBeInt32WithTheAxisRemoved) {
  OpModelBuilder wrongType;
  const auto x = wrongType.input(kF32x23, bytes(std::vector<float>(6)));
  wrongType.operation(OperationType::ARGMAX, {x, wrongType.int32Scalar(1)},
                      {wrongType.output({OperandType::TENSOR_FLOAT32, {2}})});
  expectBadData(wrongType.validate(), "output");

  OpModelBuilder wrongShape;
  const auto y = wrongShape.input(kF32x23, bytes(std::vector<float>(6)));
  wrongShape.operation(OperationType::ARGMAX, {y, wrongShape.int32Scalar(1)},
                       {wrongShape.output({OperandType::TENSOR_INT32, {3}})});
  expectBadData(wrongShape.validate(), "shape");
}

OpModelBuilder topKModel(const Tensor& in, std::vector<uint8_t> data, uint32_t (*k)(OpModelBuilder&),
                         const Tensor& values, const Tensor& indices) {
  OpModelBuilder m;
  const auto x = m.input(in, std::move(data));
  const auto kOperand = k(m);
  const auto v = m.output(values);
  const auto i = m.output(indices);
  m.operation(OperationType::TOPK_V2, {x, kOperand}, {v, i});
  return m;
}

TEST(TopKV2, KMustBeBetweenOneAndTheLastDimension) {
  const Tensor idx{OperandType::TENSOR_INT32, {2, 0}};
  const Tensor val{OperandType::TENSOR_FLOAT32, {2, 0}};
  const auto data = bytes(std::vector<float>(6));
  expectBadData(topKModel(
                    kF32x23, data, [](OpModelBuilder& m) { return m.int32Scalar(0); }, val, idx)
                    .validate(),
                "k");
  expectBadData(topKModel(
                    kF32x23, data, [](OpModelBuilder& m) { return m.int32Scalar(4); }, val, idx)
                    .validate(),
                "k");
  const auto fromRequest =
      topKModel(kF32x23, data,
                [](OpModelBuilder& m) {
                  return m.input({OperandType::INT32, {}}, OpModelBuilder::bytesOf(std::vector<int32_t>{4}));
                },
                {OperandType::TENSOR_FLOAT32, {0, 0}, 0.0f, 0}, {OperandType::TENSOR_INT32, {0, 0}});
  expectExecutionBadData(fromRequest, "k");
}

TEST(TopKV2, QuantizedValuesKeepTheInputQuantization) {
  const Tensor in{OperandType::TENSOR_QUANT8_ASYMM, {4}, 0.5f, 128};
  const auto m = topKModel(in, std::vector<uint8_t>(4), [](OpModelBuilder& b) { return b.int32Scalar(2); },
                           {OperandType::TENSOR_QUANT8_ASYMM, {2}, 1.0f, 128}, {OperandType::TENSOR_INT32, {2}});
  expectBadData(m.validate(), "quantization");
}

TEST(TopKV2, NanRanksFirstAndTiesGoToTheLargerIndex) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const auto m = topKModel({OperandType::TENSOR_FLOAT32, {5}}, bytes(std::vector<float>{1.0f, nan, 3.0f, 3.0f, 2.0f}),
                           [](OpModelBuilder& b) { return b.int32Scalar(3); }, {OperandType::TENSOR_FLOAT32, {3}},
                           {OperandType::TENSOR_INT32, {3}});
  EXPECT_EQ(runOk<int32_t>(m, 1), (std::vector<int32_t>{1, 3, 2}));
}

// --- Lookups ------------------------------------------------------------------------------------------

OpModelBuilder embeddingModel(const Tensor& lookups, std::vector<int32_t> indexes, const Tensor& values,
                              const Tensor& out) {
  OpModelBuilder m;
  const auto l = m.input(lookups, bytes(indexes));
  const auto v = m.input(values, std::vector<uint8_t>(nn::sizeOfData(values.type, values.dims)));
  m.operation(OperationType::EMBEDDING_LOOKUP, {l, v}, {m.output(out)});
  return m;
}

TEST(EmbeddingLookup, RanksAreChecked) {
  const Tensor lookups{OperandType::TENSOR_INT32, {2}};
  expectBadData(embeddingModel(lookups, {0, 1}, kF32x4, {OperandType::TENSOR_FLOAT32, {2}}).validate(), "rank");
  expectBadData(
      embeddingModel({OperandType::TENSOR_INT32, {2, 1}}, {0, 1}, kF32x23, {OperandType::TENSOR_FLOAT32, {2, 3}})
          .validate(),
      "rank");
}

TEST(EmbeddingLookup, OutOfRangeIndexFailsTheExecution) {
  const Tensor lookups{OperandType::TENSOR_INT32, {2}};
  expectExecutionBadData(embeddingModel(lookups, {1, 2}, kF32x23, kF32x23), "outside");
  expectExecutionBadData(embeddingModel(lookups, {-1, 0}, kF32x23, kF32x23), "outside");
}

OpModelBuilder hashtableModel(std::vector<int32_t> keys, const Tensor& hits) {
  OpModelBuilder m;
  const auto l = m.input({OperandType::TENSOR_INT32, {2}}, bytes(std::vector<int32_t>{5, 7}));
  const auto k = m.input({OperandType::TENSOR_INT32, {static_cast<uint32_t>(keys.size())}}, bytes(keys));
  const auto v = m.input(kF32x23, bytes(std::vector<float>{1, 2, 3, 4, 5, 6}));
  const auto out = m.output(kF32x23);
  const auto h = m.output(hits);
  m.operation(OperationType::HASHTABLE_LOOKUP, {l, k, v}, {out, h});
  return m;
}

const Tensor kHits{OperandType::TENSOR_QUANT8_ASYMM, {2}, 1.0f, 0};

TEST(HashtableLookup, HitsMustHaveScaleOneAndZeroPointZero) {
  expectBadData(hashtableModel({5, 7}, {OperandType::TENSOR_QUANT8_ASYMM, {2}, 0.5f, 0}).validate(), "hits");
}

TEST(HashtableLookup, OneKeyPerValuesRow) { expectBadData(hashtableModel({5, 6, 7}, kHits).validate(), "keys"); }

TEST(HashtableLookup, UnsortedKeysFailTheExecution) { expectExecutionBadData(hashtableModel({7, 5}, kHits), "sorted"); }

TEST(HashtableLookup, MissingKeysGiveZerosAndNoHit) {
  auto m = hashtableModel({3, 7}, kHits);
  EXPECT_EQ(runOk<float>(m, 0), (std::vector<float>{0, 0, 0, 4, 5, 6}));
  EXPECT_EQ(runOk<uint8_t>(m, 1), (std::vector<uint8_t>{0, 1}));
}

// LSH_PROJECTION with a [2, bits] hash, a [3] int32 input, an optional weight and a type.
OpModelBuilder lshModel(uint32_t bits, bool withWeight, uint32_t (*type)(OpModelBuilder&), const Tensor& out,
                        uint32_t weightRows = 3) {
  OpModelBuilder m;
  const auto hash = m.constant({OperandType::TENSOR_FLOAT32, {2, bits}}, std::vector<float>(2 * bits, 0.5f));
  const auto in = m.input({OperandType::TENSOR_INT32, {3}}, bytes(std::vector<int32_t>{1, 2, 3}));
  const auto weight =
      withWeight ? m.constant({OperandType::TENSOR_FLOAT32, {weightRows}}, std::vector<float>(weightRows, 1.0f))
                 : m.omitted(OperandType::TENSOR_FLOAT32);
  const auto t = type(m);
  m.operation(OperationType::LSH_PROJECTION, {hash, in, weight, t}, {m.output(out)});
  return m;
}

TEST(LshProjection, AtMost32BitsPerHashFunction) {
  expectBadData(
      lshModel(33, false, [](OpModelBuilder& m) { return m.int32Scalar(1); }, {OperandType::TENSOR_INT32, {2}})
          .validate(),
      "32");
}

TEST(LshProjection, UnknownTypeIsBadData) {
  expectBadData(lshModel(2, false, [](OpModelBuilder& m) { return m.int32Scalar(4); }, {OperandType::TENSOR_INT32, {2}})
                    .validate(),
                "type");
  const auto fromRequest =
      lshModel(2, false,
               [](OpModelBuilder& m) {
                 return m.input({OperandType::INT32, {}}, OpModelBuilder::bytesOf(std::vector<int32_t>{0}));
               },
               {OperandType::TENSOR_INT32, {0}});
  expectExecutionBadData(fromRequest, "type");
}

TEST(LshProjection, WeightNeedsOneValuePerInputRow) {
  expectBadData(lshModel(
                    2, true, [](OpModelBuilder& m) { return m.int32Scalar(2); }, {OperandType::TENSOR_INT32, {4}}, 2)
                    .validate(),
                "weight");
}

TEST(LshProjection, OnlyTheWeightMayBeOmitted) {
  OpModelBuilder m;
  const auto hash = m.omitted(OperandType::TENSOR_FLOAT32);
  const auto in = m.input({OperandType::TENSOR_INT32, {3}}, bytes(std::vector<int32_t>{1, 2, 3}));
  m.operation(OperationType::LSH_PROJECTION, {hash, in, m.omitted(OperandType::TENSOR_FLOAT32), m.int32Scalar(1)},
              {m.output({OperandType::TENSOR_INT32, {2}})});
  expectBadData(m.validate(), "required");
}

TEST(LshProjection, SparseOutputsStayInTheirFunctionsRange) {
  // SPARSE (3) adds i * 2^bits to function i's signature, so output i lies in [i * 4, i * 4 + 4).
  const auto out = runOk<int32_t>(
      lshModel(2, true, [](OpModelBuilder& m) { return m.int32Scalar(3); }, {OperandType::TENSOR_INT32, {2}}));
  ASSERT_EQ(out.size(), 2u);
  for (int32_t i = 0; i < 2; ++i) {
    EXPECT_GE(out[i], i * 4);
    EXPECT_LT(out[i], i * 4 + 4);
  }
}

TEST(FarmHash, Fingerprint64MatchesGooglesFarmhash) {
  // Expected values from Google's C++ farmhash::Fingerprint64 on bytes (i * 37 + 11) & 255, one
  // length per code path (0-3, 4-7, 8-16, 17-32, 33-64 and the 64-byte loop with every remainder).
  const std::vector<std::pair<size_t, uint64_t>> known{
      {0, 11160318154034397263ULL},  {3, 3979540680440595841ULL},    {7, 10810953559526984053ULL},
      {12, 1342307080078500921ULL},  {16, 15579719139305551062ULL},  {17, 6692022265393568454ULL},
      {32, 11543571239247179175ULL}, {33, 9480451918888261270ULL},   {64, 4226431515964725ULL},
      {65, 18101669290602532278ULL}, {128, 3742283891066476345ULL},  {129, 14054188206783653085ULL},
      {200, 5850749971184008558ULL}, {1000, 14329278931567331828ULL}};
  for (const auto& [length, expected] : known) {
    std::vector<uint8_t> data(length);
    for (size_t i = 0; i < length; ++i) data[i] = static_cast<uint8_t>((i * 37 + 11) & 255);
    EXPECT_EQ(nn::farmhash::fingerprint64(data.data(), data.size()), expected) << "length " << length;
  }
}

// --- RANDOM_MULTINOMIAL, RANK, FILL -----------------------------------------------------------------

OpModelBuilder multinomialModel(const Tensor& logits, std::vector<float> values, int32_t samples, const Tensor& out) {
  OpModelBuilder m;
  const auto x = m.input(logits, bytes(values));
  const auto seeds = m.constant({OperandType::TENSOR_INT32, {2}}, std::vector<int32_t>{37, 42});
  m.operation(OperationType::RANDOM_MULTINOMIAL, {x, m.int32Scalar(samples), seeds}, {m.output(out)});
  return m;
}

TEST(RandomMultinomial, SampleCountMustBePositiveAndLogits2D) {
  expectBadData(multinomialModel({OperandType::TENSOR_FLOAT32, {1, 4}}, std::vector<float>(4), 0,
                                 {OperandType::TENSOR_INT32, {1, 0}})
                    .validate(),
                "sample count");
  expectBadData(multinomialModel({OperandType::TENSOR_FLOAT32, {1, 1, 4}}, std::vector<float>(4), 2,
                                 {OperandType::TENSOR_INT32, {1, 2}})
                    .validate(),
                "rank");
}

TEST(RandomMultinomial, RowWithoutFiniteLogitsFailsTheExecution) {
  const float inf = std::numeric_limits<float>::infinity();
  expectExecutionBadData(multinomialModel({OperandType::TENSOR_FLOAT32, {1, 2}}, {-inf, std::nanf("")}, 3,
                                          {OperandType::TENSOR_INT32, {1, 3}}),
                         "finite");
}

TEST(RandomMultinomial, NonFiniteClassesAreNeverDrawn) {
  const float inf = std::numeric_limits<float>::infinity();
  const auto out = runOk<int32_t>(multinomialModel({OperandType::TENSOR_FLOAT32, {1, 3}}, {-inf, 0.0f, inf}, 64,
                                                   {OperandType::TENSOR_INT32, {1, 64}}));
  ASSERT_EQ(out.size(), 64u);
  for (int32_t c : out) EXPECT_EQ(c, 1);
}

TEST(Rank, OutputMustBeAnInt32Scalar) {
  OpModelBuilder m;
  const auto x = m.input(kF32x23, bytes(std::vector<float>(6)));
  m.operation(OperationType::RANK, {x}, {m.output({OperandType::FLOAT32, {}})});
  expectBadData(m.validate(), "output");
}

enum class Dims { kConstant, kFromRequest };

// FILL with the given dims (a constant, or a request input validation cannot see) and value.
OpModelBuilder fillModel(std::vector<int32_t> dims, Dims where, uint32_t (*value)(OpModelBuilder&), const Tensor& out) {
  OpModelBuilder m;
  const Tensor dimsTensor{OperandType::TENSOR_INT32, {static_cast<uint32_t>(dims.size())}};
  const auto d = where == Dims::kConstant ? m.constant(dimsTensor, dims) : m.input(dimsTensor, bytes(dims));
  const auto v = value(m);
  m.operation(OperationType::FILL, {d, v}, {m.output(out, 64)});
  return m;
}

uint32_t int32One(OpModelBuilder& m) { return m.int32Scalar(1); }
uint32_t floatOne(OpModelBuilder& m) { return m.floatScalar(1.0f); }

TEST(Fill, ValueTypeMustMatchTheOutput) {
  expectBadData(fillModel({4}, Dims::kConstant, floatOne, kI32x4).validate(), "input 1");
  expectBadData(fillModel({4}, Dims::kConstant, int32One, kQ8x4).validate(), "FILL cannot produce");
}

TEST(Fill, NegativeDimensionIsBadData) {
  expectBadData(fillModel({-4}, Dims::kConstant, int32One, {OperandType::TENSOR_INT32, {0}}).validate(), "negative");
  expectExecutionBadData(fillModel({2, -1}, Dims::kFromRequest, int32One, {OperandType::TENSOR_INT32, {0, 0}}),
                         "negative");
}

TEST(Fill, HugeShapeIsBadDataNotAnAllocation) {
  expectExecutionBadData(
      fillModel({1 << 20, 1 << 20, 1 << 20}, Dims::kFromRequest, int32One, {OperandType::TENSOR_INT32, {0, 0, 0}}),
      "too large");
}

}  // namespace
}  // namespace weft::test
