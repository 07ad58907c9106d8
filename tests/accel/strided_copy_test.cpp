// TRANSPOSE and SLICE on the accelerator's vector unit (approx backend) against the reference
// kernel, byte for byte: random ranks 1 to 4, random sizes from 1 past the array's columns, every
// kind of permutation (the innermost axis kept, as attention's head split; moved, as a matrix
// transpose; the identity; omitted, NNAPI's reversal), random boxes (sizes of -1 among them),
// quant8 asymmetric and signed, float16 on the fp16 datapath; and the models the accelerator
// refuses, with the reason.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "AccelTestUtil.h"

namespace weft::accel::test {
namespace {

using nn::OperandType;

struct TransposeCase {
  nn::Dimensions dims;
  std::vector<int32_t> perm;  // empty: the operand omitted
  Quant q{OperandType::TENSOR_QUANT8_ASYMM, 0.5f, 3};
  bool fromReshape = false;  // the input an output of RESHAPE (a computed tensor), not a model input
  std::string describe() const {
    return fmt::format("dims [{}] perm [{}] type {} from reshape {}", fmt::join(dims, ","), fmt::join(perm, ","),
                       static_cast<int>(q.type), fromReshape);
  }
};

nn::Dimensions permuted(const TransposeCase& c) {
  nn::Dimensions out(c.dims.size());
  for (size_t k = 0; k < out.size(); ++k) out[k] = c.dims[c.perm.empty() ? out.size() - 1 - k : c.perm[k]];
  return out;
}

OpModel makeTransposeModel(const TransposeCase& c, std::mt19937& rng) {
  ModelBuilder b;
  OpModel m;
  const size_t count = nn::numberOfElements(c.dims);
  const bool half = c.q.type == OperandType::TENSOR_FLOAT16;
  std::vector<uint8_t> bytes = half ? randomHalves(rng, count, 4.0f) : std::vector<uint8_t>(count);
  if (!half) std::generate(bytes.begin(), bytes.end(), [&] { return static_cast<uint8_t>(rng()); });
  m.inputs.push_back(std::move(bytes));
  uint32_t in;
  if (c.fromReshape) {
    const uint32_t flat = b.input(c.q.type, {static_cast<uint32_t>(count)}, c.q.scale, c.q.zeroPoint);
    std::vector<int32_t> shape(c.dims.begin(), c.dims.end());
    const uint32_t shapeOperand =
        b.constant(OperandType::TENSOR_INT32, {static_cast<uint32_t>(shape.size())}, shape.data(), shape.size() * 4);
    in = b.tensor(c.q.type, c.dims, c.q.scale, c.q.zeroPoint);
    b.operation(nn::OperationType::RESHAPE, {flat, shapeOperand}, {in});
  } else {
    in = b.input(c.q.type, c.dims, c.q.scale, c.q.zeroPoint);
  }
  const uint32_t perm =
      c.perm.empty() ? b.omitted(OperandType::TENSOR_INT32)
                     : b.constant(OperandType::TENSOR_INT32, {static_cast<uint32_t>(c.perm.size())}, c.perm.data(),
                                  c.perm.size() * 4);
  const uint32_t out = b.tensor(c.q.type, permuted(c), c.q.scale, c.q.zeroPoint);
  b.output(out);
  b.operation(nn::OperationType::TRANSPOSE, {in, perm}, {out});
  m.model = b.build();
  m.outputBytes.push_back(count * (half ? 2 : 1));
  return m;
}

TransposeCase randomCase(std::mt19937& rng, OperandType type) {
  auto pick = [&](uint32_t lo, uint32_t hi) { return std::uniform_int_distribution<uint32_t>(lo, hi)(rng); };
  TransposeCase c;
  const uint32_t rank = pick(1, 4);
  for (uint32_t d = 0; d < rank; ++d) c.dims.push_back(rng() % 4 == 0 ? 1 : pick(2, 37));
  if (rng() % 6 != 0) {
    c.perm.resize(rank);
    std::iota(c.perm.begin(), c.perm.end(), 0);
    std::shuffle(c.perm.begin(), c.perm.end(), rng);
  }
  c.q = {type, 0.25f, type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED ? -5 : 17};
  if (type == OperandType::TENSOR_FLOAT16) c.q = {type, 0.0f, 0};
  c.fromReshape = rng() % 3 == 0;
  return c;
}

void expectBitExact(const hal::IDevice& device, const TransposeCase& c, std::mt19937& rng) {
  expectBitExactOnDevice(device, makeTransposeModel(c, rng), c.describe());
}

// Attention's shapes: the head split [B, S, H, D] -> [B, H, S, D], K's transpose for Q.K^T
// [B, H, S, D] -> [B, H, D, S], and the merge back, at a sequence past the array's size.
TEST(Transpose, AttentionHeadSplitAndMerge) {
  for (const char* config : {"weft8", "weft16"}) {
    SCOPED_TRACE(config);
    auto device = approxDevice(config);
    std::mt19937 rng(3);
    for (const auto& [dims, perm] : std::vector<std::pair<nn::Dimensions, std::vector<int32_t>>>{
             {{2, 37, 3, 24}, {0, 2, 1, 3}},
             {{2, 3, 37, 24}, {0, 1, 3, 2}},
             {{2, 3, 37, 24}, {0, 2, 1, 3}},
             {{1, 130, 12, 64}, {0, 2, 1, 3}}}) {
      TransposeCase c;
      c.dims = dims;
      c.perm = perm;
      c.q.type = OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
      expectBitExact(*device, c, rng);
    }
  }
}

class TransposeRandom : public ::testing::TestWithParam<int> {};

TEST_P(TransposeRandom, MatchesTheReferenceKernelBitExact) {
  for (const char* config : {"weft8", "weft16"}) {
    SCOPED_TRACE(config);
    auto device = approxDevice(config);
    std::mt19937 rng(700 + GetParam() * 13 + config[4]);
    for (int i = 0; i < 6; ++i) {
      const OperandType type = i % 2 ? OperandType::TENSOR_QUANT8_ASYMM_SIGNED : OperandType::TENSOR_QUANT8_ASYMM;
      expectBitExact(*device, randomCase(rng, type), rng);
      if (HasFatalFailure()) return;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, TransposeRandom, ::testing::Range(0, 5));

// A binary16 value is moved whole: two bytes, never split between lanes.
TEST(Transpose, Float16OnTheFp16DatapathMovesValuesWhole) {
  auto device = approxDevice("weft16fp");
  std::mt19937 rng(17);
  for (int i = 0; i < 10; ++i) {
    expectBitExact(*device, randomCase(rng, OperandType::TENSOR_FLOAT16), rng);
    if (HasFatalFailure()) return;
  }
}

// The accelerator refuses, at getSupportedOperations and at preparation, what it cannot run.
void expectRefused(const TransposeCase& c, const std::string& reason, void (*mutate)(nn::Model&) = nullptr) {
  SCOPED_TRACE(c.describe());
  auto device = approxDevice("weft8");
  std::mt19937 rng(5);
  OpModel m = makeTransposeModel(c, rng);
  if (mutate) mutate(m.model);
  auto supported = device->getSupportedOperations(m.model);
  ASSERT_TRUE(supported.ok());
  EXPECT_FALSE(supported.value().back());
  auto prepared = prepare(*device, m.model);
  ASSERT_FALSE(prepared.ok());
  EXPECT_EQ(prepared.error().code, nn::ErrorStatus::BAD_DATA);
  EXPECT_NE(prepared.error().message.find(reason), std::string::npos) << prepared.error().message;
}

TEST(Transpose, RefusesWhatTheVectorUnitCannotRun) {
  TransposeCase c;
  c.dims = {3, 5};
  c.perm = {1, 0};
  // A permutation given at execution: the copy's strides are fixed when the model compiles.
  expectRefused(c, "given at execution", [](nn::Model& m) {
    auto& perm = m.main.operands[m.main.operations[0].inputs[1]];
    perm.lifetime = nn::Operand::LifeTime::SUBGRAPH_INPUT;
    perm.location = {};
    m.main.inputIndexes.push_back(m.main.operations[0].inputs[1]);
  });
  // Not a permutation (the reference refuses it too).
  TransposeCase repeated = c;
  repeated.perm = {0, 0};
  expectRefused(repeated, "TRANSPOSE");
  // float32 without relaxation: the device computes no float32.
  TransposeCase floats = c;
  floats.q = {OperandType::TENSOR_FLOAT32, 0.0f, 0};
  expectRefused(floats, "TRANSPOSE");
  // An output quantized otherwise than the input.
  expectRefused(c, "TRANSPOSE", [](nn::Model& m) {
    m.main.operands[m.main.operations[0].outputs[0]].scale = 1.0f;
  });
}

// SLICE: a box of `dims` from `begin`, `size` values (-1: to the end).
struct SliceCase {
  nn::Dimensions dims;
  std::vector<int32_t> begin, size;
  Quant q{OperandType::TENSOR_QUANT8_ASYMM, 0.5f, 3};
  std::string describe() const {
    return fmt::format("dims [{}] begin [{}] size [{}] type {}", fmt::join(dims, ","), fmt::join(begin, ","),
                       fmt::join(size, ","), static_cast<int>(q.type));
  }
};

OpModel makeSliceModel(const SliceCase& c, std::mt19937& rng) {
  ModelBuilder b;
  OpModel m;
  const size_t count = nn::numberOfElements(c.dims);
  const bool half = c.q.type == OperandType::TENSOR_FLOAT16;
  std::vector<uint8_t> bytes = half ? randomHalves(rng, count, 4.0f) : std::vector<uint8_t>(count);
  if (!half) std::generate(bytes.begin(), bytes.end(), [&] { return static_cast<uint8_t>(rng()); });
  m.inputs.push_back(std::move(bytes));
  const uint32_t in = b.input(c.q.type, c.dims, c.q.scale, c.q.zeroPoint);
  const auto rank = static_cast<uint32_t>(c.dims.size());
  const uint32_t begin = b.constant(OperandType::TENSOR_INT32, {rank}, c.begin.data(), 4 * rank);
  const uint32_t size = b.constant(OperandType::TENSOR_INT32, {rank}, c.size.data(), 4 * rank);
  nn::Dimensions outDims(rank);
  for (uint32_t k = 0; k < rank; ++k) outDims[k] = c.size[k] == -1 ? c.dims[k] - c.begin[k] : c.size[k];
  const uint32_t out = b.tensor(c.q.type, outDims, c.q.scale, c.q.zeroPoint);
  b.output(out);
  b.operation(nn::OperationType::SLICE, {in, begin, size}, {out});
  m.model = b.build();
  m.outputBytes.push_back(nn::numberOfElements(outDims) * (half ? 2 : 1));
  return m;
}

SliceCase randomSlice(std::mt19937& rng, OperandType type) {
  auto pick = [&](uint32_t lo, uint32_t hi) { return std::uniform_int_distribution<uint32_t>(lo, hi)(rng); };
  SliceCase c;
  const uint32_t rank = pick(1, 4);
  for (uint32_t d = 0; d < rank; ++d) {
    const uint32_t dim = rng() % 4 == 0 ? 1 : pick(2, 41);
    c.dims.push_back(dim);
    const uint32_t begin = pick(0, dim - 1);
    c.begin.push_back(static_cast<int32_t>(begin));
    c.size.push_back(rng() % 4 == 0 ? -1 : static_cast<int32_t>(pick(1, dim - begin)));
  }
  c.q = {type, 0.25f, type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED ? -5 : 17};
  if (type == OperandType::TENSOR_FLOAT16) c.q = {type, 0.0f, 0};
  return c;
}

// The in-projection's split of an exported attention block: Q, K and V, each a third of the
// features of [tokens, 3 x width].
TEST(Slice, QueryKeyValueSplit) {
  for (const char* config : {"weft8", "weft16"}) {
    SCOPED_TRACE(config);
    auto device = approxDevice(config);
    std::mt19937 rng(4);
    for (int32_t part = 0; part < 3; ++part) {
      SliceCase c;
      c.dims = {1, 37, 3 * 72};
      c.begin = {0, 0, 72 * part};
      c.size = {-1, -1, 72};
      c.q.type = OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
      expectBitExactOnDevice(*device, makeSliceModel(c, rng), c.describe());
    }
  }
}

class SliceRandom : public ::testing::TestWithParam<int> {};

TEST_P(SliceRandom, MatchesTheReferenceKernelBitExact) {
  for (const char* config : {"weft8", "weft16", "weft16fp"}) {
    SCOPED_TRACE(config);
    auto device = approxDevice(config);
    std::mt19937 rng(900 + GetParam() * 17 + config[4]);
    for (int i = 0; i < 6; ++i) {
      const OperandType type = std::string(config) == "weft16fp" ? OperandType::TENSOR_FLOAT16
                               : i % 2                          ? OperandType::TENSOR_QUANT8_ASYMM_SIGNED
                                                                : OperandType::TENSOR_QUANT8_ASYMM;
      const SliceCase c = randomSlice(rng, type);
      expectBitExactOnDevice(*device, makeSliceModel(c, rng), c.describe());
      if (HasFatalFailure()) return;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Seeds, SliceRandom, ::testing::Range(0, 5));

TEST(Slice, RefusesWhatTheVectorUnitCannotRun) {
  auto device = approxDevice("weft8");
  std::mt19937 rng(5);
  SliceCase c;
  c.dims = {4, 6};
  c.begin = {1, 2};
  c.size = {2, 3};
  auto refused = [&](const OpModel& m, const std::string& reason) {
    auto supported = device->getSupportedOperations(m.model);
    ASSERT_TRUE(supported.ok());
    EXPECT_FALSE(supported.value().back());
    auto prepared = prepare(*device, m.model);
    ASSERT_FALSE(prepared.ok());
    EXPECT_NE(prepared.error().message.find(reason), std::string::npos) << prepared.error().message;
  };
  // begin given at execution.
  OpModel atExecution = makeSliceModel(c, rng);
  {
    auto& begin = atExecution.model.main.operands[atExecution.model.main.operations[0].inputs[1]];
    begin.lifetime = nn::Operand::LifeTime::SUBGRAPH_INPUT;
    begin.location = {};
    atExecution.model.main.inputIndexes.push_back(atExecution.model.main.operations[0].inputs[1]);
  }
  refused(atExecution, "given at execution");
  // A box past the input (the reference refuses it too).
  SliceCase past = c;
  past.size = {2, 5};
  OpModel pastModel = makeSliceModel(past, rng);
  refused(pastModel, "SLICE");
  // float32 without relaxation.
  SliceCase floats = c;
  floats.q = {OperandType::TENSOR_FLOAT32, 0.0f, 0};
  refused(makeSliceModel(floats, rng), "SLICE");
}

}  // namespace
}  // namespace weft::accel::test
