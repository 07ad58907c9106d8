// TRANSPOSE, SLICE and GATHER (constant indices) on the accelerator's vector unit (approx backend)
// against the reference kernel, byte for byte: random ranks 1 to 4, random sizes from 1 past the array's columns, every
// kind of permutation (the innermost axis kept, as attention's head split; moved, as a matrix
// transpose; the identity; omitted, NNAPI's reversal), random boxes (sizes of -1 among them),
// quant8 asymmetric and signed, float16 on the fp16 datapath; and the models the accelerator
// refuses, with the reason.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "../../driver/accel/PreparedModel.h"
#include "AccelTestUtil.h"

namespace weft::accel::test {
namespace {

using nn::OperandType;

// `count` random values of `type`'s: bytes, or binary16 values in [-4, 4].
std::vector<uint8_t> randomValues(std::mt19937& rng, size_t count, OperandType type) {
  if (type == OperandType::TENSOR_FLOAT16) return randomHalves(rng, count, 4.0f);
  std::vector<uint8_t> bytes(count);
  std::generate(bytes.begin(), bytes.end(), [&] { return static_cast<uint8_t>(rng()); });
  return bytes;
}

// A random case's quantization: `type` with a zero point of its range, or binary16.
Quant randomCaseQuant(OperandType type) {
  if (type == OperandType::TENSOR_FLOAT16) return {type, 0.0f, 0};
  return {type, 0.25f, type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED ? -5 : 17};
}

// Random cases on weft8 and weft16 (quant8 asymmetric and signed in turn), on weft16fp
// (binary16), and on weft16-lpddr4 (weft16's cases, where the copies' walk order may differ):
// `makeCase(rng, type)` gives a model and its description.
template <typename MakeCase>
void expectRandomCasesBitExact(uint32_t seed, MakeCase makeCase) {
  for (const char* config : {"weft8", "weft16", "weft16fp", "weft16-lpddr4"}) {
    SCOPED_TRACE(config);
    auto device = approxDevice(config);
    std::mt19937 rng(seed + config[4]);
    for (int i = 0; i < 6; ++i) {
      const OperandType type = std::string(config) == "weft16fp" ? OperandType::TENSOR_FLOAT16
                               : i % 2                          ? OperandType::TENSOR_QUANT8_ASYMM_SIGNED
                                                                : OperandType::TENSOR_QUANT8_ASYMM;
      const auto [model, what] = makeCase(rng, type);
      expectBitExactOnDevice(*device, model, what);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
}

// The accelerator refuses the model's last operation, at getSupportedOperations and at
// preparation, saying `reason`.
void expectRefused(const OpModel& m, const std::string& reason) {
  expectRefusedOnDevice(*approxDevice("weft8"), m.model, reason);
}

// Input `i` of the model's first operation made a model input (given at execution).
OpModel givenAtExecution(OpModel m, uint32_t i) {
  const uint32_t operand = m.model.main.operations[0].inputs[i];
  m.model.main.operands[operand].lifetime = nn::Operand::LifeTime::SUBGRAPH_INPUT;
  m.model.main.operands[operand].location = {};
  m.model.main.inputIndexes.push_back(operand);
  return m;
}

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
  m.inputs.push_back(randomValues(rng, count, c.q.type));
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
  c.q = randomCaseQuant(type);
  c.fromReshape = rng() % 3 == 0;
  return c;
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
      expectBitExactOnDevice(*device, makeTransposeModel(c, rng), c.describe());
    }
  }
}

// ViT's head split [1, 197, 12, 64] -> [1, 12, 197, 64] at weft16: each token's 64 bytes of a
// head load as one request (EltwiseEmitter::pixelRuns), so the copy runs near the pipe's 16 bytes
// a cycle for its reads and writes together; loading 16 bytes of every token at a time (a burst
// half empty each) took 38,682 cycles, 2.05x that. The RTL runs the same program in the same
// cycles, with the same outputs.
TEST(Transpose, HeadSplitLoadsEachTokensHeadAsOneRequest) {
  std::mt19937 rng(11);
  TransposeCase c;
  c.dims = {1, 197, 12, 64};
  c.perm = {0, 2, 1, 3};
  c.q.type = OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
  const OpModel m = makeTransposeModel(c, rng);
  uint64_t cycles[2] = {};
  for (const sim::BackendKind kind : {sim::BackendKind::kApprox, sim::BackendKind::kRtl}) {
    auto device = deviceOn(sim::createBackend(kind, hw::HwConfig::load("weft16")));
    expectBitExactOnDevice(*device, m, c.describe());
    auto prepared = prepare(*device, m.model);
    ASSERT_TRUE(prepared.ok()) << prepared.error().message;
    auto run = runOnPrepared(*prepared.value(), m);
    ASSERT_TRUE(run.ok()) << run.error().message;
    cycles[kind == sim::BackendKind::kRtl ? 1 : 0] = run.value().execution->profile.operations.at(0).cycles;
  }
  const double pipeCycles = 2.0 * 197 * 12 * 64 / 16;  // read and written at 16 bytes a cycle
  EXPECT_LT(static_cast<double>(cycles[0]), 1.25 * pipeCycles) << cycles[0] << " cycles";
  EXPECT_EQ(cycles[1], cycles[0]);
}

// BERT's head split [1, 128, 12, 64] -> [1, 12, 128, 64] and merge (the inverse) at
// weft16-lpddr4: a copy walks its boxes in the output's order or the input's, whichever the placed
// schedule finds faster where the tensors lie. Walked in the output's order, the merge read a
// token's 12 heads 8 KB apart, heads 0-3 and 8-11 in the same banks a row apart (rorabachco:
// 64 KB a bank row across the channels), 1,004 row conflicts: 61,962 cycles; walked in the
// input's, each head's tokens are one run and the writes go a token's 768 bytes at a time: 23,737.
// The split went 41,525 -> 29,436 the same way. The RTL runs the merge's program in the same cycles.
TEST(Transpose, HeadCopiesWalkTheOrderThatRunsFasterWhereTheTensorsLie) {
  std::mt19937 rng(12);
  for (const bool merge : {false, true}) {
    TransposeCase c;
    c.dims = merge ? nn::Dimensions{1, 12, 128, 64} : nn::Dimensions{1, 128, 12, 64};
    c.perm = {0, 2, 1, 3};
    c.q.type = OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
    SCOPED_TRACE(c.describe());
    const OpModel m = makeTransposeModel(c, rng);
    uint64_t cycles[2] = {};
    for (const sim::BackendKind kind : {sim::BackendKind::kApprox, sim::BackendKind::kRtl}) {
      if (kind == sim::BackendKind::kRtl && !merge) continue;
      auto device = deviceOn(sim::createBackend(kind, hw::HwConfig::load("weft16-lpddr4")));
      expectBitExactOnDevice(*device, m, c.describe());
      auto prepared = prepare(*device, m.model);
      ASSERT_TRUE(prepared.ok()) << prepared.error().message;
      const std::string mapping = static_cast<const PreparedModel&>(*prepared.value()).compiled().operations.at(0).tiling;
      EXPECT_NE(mapping.find("; walks the input's order"), std::string::npos) << mapping;
      auto run = runOnPrepared(*prepared.value(), m);
      ASSERT_TRUE(run.ok()) << run.error().message;
      cycles[kind == sim::BackendKind::kRtl ? 1 : 0] = run.value().execution->profile.operations.at(0).cycles;
    }
    EXPECT_LT(cycles[0], 36000u) << cycles[0] << " cycles";
    if (merge) {
      EXPECT_EQ(cycles[1], cycles[0]);
    }
  }
}

// A constant input (a weight transposed in the graph, as exporters leave some): the copy reads
// the constant's image like any tensor's.
TEST(Transpose, OfAConstant) {
  auto device = approxDevice("weft8");
  ModelBuilder b;
  OpModel m;
  std::vector<uint8_t> values(5 * 19);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<uint8_t>(i * 37);
  const uint32_t in = b.constant(OperandType::TENSOR_QUANT8_ASYMM, {5, 19}, values.data(), values.size(), 0.5f, 3);
  const int32_t perm[] = {1, 0};
  const uint32_t permOperand = b.constant(OperandType::TENSOR_INT32, {2}, perm, sizeof(perm));
  const uint32_t transposed = b.tensor(OperandType::TENSOR_QUANT8_ASYMM, {19, 5}, 0.5f, 3);
  b.operation(nn::OperationType::TRANSPOSE, {in, permOperand}, {transposed});
  // And added to an input, so that the model has one.
  const uint32_t x = b.input(OperandType::TENSOR_QUANT8_ASYMM, {19, 5}, 0.5f, 3);
  const uint32_t out = b.tensor(OperandType::TENSOR_QUANT8_ASYMM, {19, 5}, 1.0f, 3);
  b.operation(nn::OperationType::ADD, {transposed, x, b.int32Scalar(0)}, {out});
  b.output(out);
  m.model = b.build();
  m.inputs.push_back(std::vector<uint8_t>(19 * 5, 7));
  m.outputBytes.push_back(19 * 5);
  expectBitExactOnDevice(*device, m, "transpose of a constant");
}

// A permutation that leaves the bytes in order (PyTorch's (S, B, E) <-> (B, S, E) at batch 1) is a
// flat copy, as a RESHAPE of the same tensor: the same cycles, not a scratchpad row per Cols
// bytes with a DRAM round trip each (20x as many before the axes of size 1 were given dense
// strides).
TEST(Transpose, ThatKeepsTheByteOrderCostsAsMuchAsAReshape) {
  auto device = approxDevice("weft16");
  std::mt19937 rng(8);
  TransposeCase transpose;
  transpose.dims = {1, 128, 768};
  transpose.perm = {1, 0, 2};
  const OpModel t = makeTransposeModel(transpose, rng);
  ModelBuilder b;
  OpModel r;
  r.inputs.push_back(t.inputs[0]);
  const uint32_t in = b.input(OperandType::TENSOR_QUANT8_ASYMM, {1, 128, 768}, 0.5f, 3);
  const int32_t shape[] = {128, 1, 768};
  const uint32_t out = b.tensor(OperandType::TENSOR_QUANT8_ASYMM, {128, 1, 768}, 0.5f, 3);
  b.operation(nn::OperationType::RESHAPE, {in, b.constant(OperandType::TENSOR_INT32, {3}, shape, sizeof(shape))}, {out});
  b.output(out);
  r.model = b.build();
  r.outputBytes.push_back(128 * 768);
  uint64_t cycles[2] = {};
  for (int i = 0; i < 2; ++i) {
    auto prepared = prepare(*device, (i == 0 ? t : r).model);
    ASSERT_TRUE(prepared.ok()) << prepared.error().message;
    auto run = runOnPrepared(*prepared.value(), i == 0 ? t : r);
    ASSERT_TRUE(run.ok()) << run.error().message;
    cycles[i] = run.value().execution->profile.deviceCycles;
  }
  EXPECT_EQ(cycles[0], cycles[1]) << "transpose " << cycles[0] << " cycles, reshape " << cycles[1];
}

// A RESHAPE between two operations of the device copies nothing: the producer writes the output
// (MemoryPlan's zero-copy RESHAPE), and the result is the reference's. One whose input is a model
// input still copies (the host writes that buffer).
TEST(Reshape, BetweenOperationsCopiesNothing) {
  auto device = approxDevice("weft16");
  std::mt19937 rng(12);
  for (bool fromInput : {false, true}) {
    SCOPED_TRACE(fromInput ? "input from the host" : "input computed");
    ModelBuilder b;
    OpModel m;
    const OperandType type = OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
    std::vector<uint8_t> x(64 * 96), y(96 * 64);
    std::generate(x.begin(), x.end(), [&] { return static_cast<uint8_t>(rng()); });
    std::generate(y.begin(), y.end(), [&] { return static_cast<uint8_t>(rng()); });
    m.inputs = {x, y};
    const uint32_t a = b.input(type, {64, 96}, 0.5f, 1), other = b.input(type, {96, 64}, 0.5f, -2);
    uint32_t source = a;
    if (!fromInput) {  // a + a, computed on the device
      source = b.tensor(type, {64, 96}, 1.0f, 1);
      b.operation(nn::OperationType::ADD, {a, a, b.int32Scalar(0)}, {source});
    }
    const int32_t shape[] = {96, 64};
    const uint32_t reshaped = b.tensor(type, {96, 64}, fromInput ? 0.5f : 1.0f, 1);
    b.operation(nn::OperationType::RESHAPE,
                {source, b.constant(OperandType::TENSOR_INT32, {2}, shape, sizeof(shape))}, {reshaped});
    const uint32_t out = b.tensor(type, {96, 64}, 2.0f, 0);
    b.operation(nn::OperationType::ADD, {reshaped, other, b.int32Scalar(0)}, {out});
    b.output(out);
    m.model = b.build();
    m.outputBytes.push_back(96 * 64);
    expectBitExactOnDevice(*device, m, "reshape between operations");
    auto prepared = prepare(*device, m.model);
    ASSERT_TRUE(prepared.ok());
    auto run = runOnPrepared(*prepared.value(), m);
    ASSERT_TRUE(run.ok());
    for (const auto& op : run.value().execution->profile.operations) {
      if (op.type != nn::OperationType::RESHAPE) continue;
      if (fromInput) {
        EXPECT_GE(op.dramReadBytes, 96u * 64u) << op.mapping;
      } else {
        EXPECT_LT(op.dramReadBytes, 1024u) << op.mapping;  // its parameter row
        EXPECT_LT(op.dramWriteBytes, 1024u) << op.mapping;  // its snapshot record
      }
    }
  }
}

// A RESHAPE of an NCHW convolution's output (ViT's patch embedding flattened to [N, C, H*W]): the
// device keeps the image NHWC, so the reshape reads it in NCHW order (a strided copy) instead of
// leaving the operation to the CPU. Both operations on the accelerator, the result the reference's.
TEST(Reshape, OfAnNchwConvolutionsOutput) {
  auto device = approxDevice("weft16");
  std::mt19937 rng(13);
  for (const uint32_t outChannels : {19u, 32u}) {
    SCOPED_TRACE(outChannels);
    ConvCase c;
    c.nchw = true;
    c.height = 7;
    c.width = 6;
    c.inChannels = 5;
    c.outChannels = outChannels;
    c.implicitPadding = true;
    c.in = {OperandType::TENSOR_QUANT8_ASYMM, 0.05f, 120};
    c.filter = {OperandType::TENSOR_QUANT8_ASYMM, 0.02f, 130};
    c.out = {OperandType::TENSOR_QUANT8_ASYMM, 0.2f, 110};
    OpModel m = makeConvModel(c, rng);
    nn::Model& model = m.model;
    const uint32_t conv = model.main.outputIndexes.at(0);
    model.main.operands[conv].dimensions = {1, outChannels, 7, 6};
    auto add = [&](nn::Operand o) {
      model.main.operands.push_back(std::move(o));
      return static_cast<uint32_t>(model.main.operands.size() - 1);
    };
    const int32_t shape[] = {1, static_cast<int32_t>(outChannels), 42};
    nn::Operand shapeOperand;
    shapeOperand.type = OperandType::TENSOR_INT32;
    shapeOperand.dimensions = {3};
    shapeOperand.lifetime = nn::Operand::LifeTime::CONSTANT_COPY;
    shapeOperand.location.offset = static_cast<uint32_t>(model.operandValues.size());
    shapeOperand.location.length = sizeof(shape);
    const auto* bytes = reinterpret_cast<const uint8_t*>(shape);
    model.operandValues.insert(model.operandValues.end(), bytes, bytes + sizeof(shape));
    nn::Operand flat = model.main.operands[conv];
    flat.dimensions = {1, outChannels, 42};
    model.main.operands[conv].lifetime = nn::Operand::LifeTime::TEMPORARY_VARIABLE;
    flat.lifetime = nn::Operand::LifeTime::SUBGRAPH_OUTPUT;
    const uint32_t shapeIndex = add(shapeOperand), out = add(flat);
    model.main.operations.push_back({nn::OperationType::RESHAPE, {conv, shapeIndex}, {out}});
    model.main.outputIndexes = {out};

    auto supported = device->getSupportedOperations(model);
    ASSERT_TRUE(supported.ok());
    EXPECT_EQ(supported.value(), (std::vector<bool>{true, true}));
    auto cpu = runOnCpu(m);
    ASSERT_TRUE(cpu.ok()) << cpu.error().message;
    auto prepared = prepare(*device, model);
    ASSERT_TRUE(prepared.ok()) << prepared.error().message;
    auto run = runOnPrepared(*prepared.value(), m);
    ASSERT_TRUE(run.ok()) << run.error().message;
    EXPECT_EQ(firstMismatch(run.value().outputs[0], cpu.value().outputs[0]), -1);
    EXPECT_NE(firstMismatch(cpu.value().outputs[0], std::vector<uint8_t>(cpu.value().outputs[0].size())), -1);
  }
}

// Axes past what a command field holds (rows of 70000 pixels, 100000 values a row) are cut by
// the copy's emitter like any other.
TEST(Transpose, LargeAxes) {
  auto device = approxDevice("weft16");
  std::mt19937 rng(21);
  for (const auto& [dims, perm] : std::vector<std::pair<nn::Dimensions, std::vector<int32_t>>>{
           {{1, 70000, 3}, {1, 0, 2}}, {{3, 1000, 7}, {1, 2, 0}}, {{1, 2, 100000}, {0, 2, 1}}}) {
    TransposeCase c;
    c.dims = dims;
    c.perm = perm;
    expectBitExactOnDevice(*device, makeTransposeModel(c, rng), c.describe());
  }
}

class TransposeRandom : public ::testing::TestWithParam<int> {};

TEST_P(TransposeRandom, MatchesTheReferenceKernelBitExact) {
  expectRandomCasesBitExact(700 + GetParam() * 13, [](std::mt19937& rng, OperandType type) {
    const TransposeCase c = randomCase(rng, type);
    return std::make_pair(makeTransposeModel(c, rng), c.describe());
  });
}

INSTANTIATE_TEST_SUITE_P(Seeds, TransposeRandom, ::testing::Range(0, 5));

TEST(Transpose, RefusesWhatTheVectorUnitCannotRun) {
  std::mt19937 rng(5);
  TransposeCase c;
  c.dims = {3, 5};
  c.perm = {1, 0};
  // A permutation given at execution: the copy's strides are fixed when the model compiles.
  expectRefused(givenAtExecution(makeTransposeModel(c, rng), 1), "given at execution");
  // Not a permutation (the reference refuses it too).
  TransposeCase repeated = c;
  repeated.perm = {0, 0};
  expectRefused(makeTransposeModel(repeated, rng), "TRANSPOSE");
  // float32 without relaxation: the device computes no float32.
  TransposeCase floats = c;
  floats.q = {OperandType::TENSOR_FLOAT32, 0.0f, 0};
  expectRefused(makeTransposeModel(floats, rng), "TRANSPOSE");
  // An output quantized otherwise than the input.
  OpModel requantized = makeTransposeModel(c, rng);
  requantized.model.main.operands[requantized.model.main.operations[0].outputs[0]].scale = 1.0f;
  expectRefused(requantized, "TRANSPOSE");
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
  m.inputs.push_back(randomValues(rng, count, c.q.type));
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
  c.q = randomCaseQuant(type);
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
  expectRandomCasesBitExact(900 + GetParam() * 17, [](std::mt19937& rng, OperandType type) {
    const SliceCase c = randomSlice(rng, type);
    return std::make_pair(makeSliceModel(c, rng), c.describe());
  });
}

INSTANTIATE_TEST_SUITE_P(Seeds, SliceRandom, ::testing::Range(0, 5));

TEST(Slice, RefusesWhatTheVectorUnitCannotRun) {
  std::mt19937 rng(5);
  SliceCase c;
  c.dims = {4, 6};
  c.begin = {1, 2};
  c.size = {2, 3};
  expectRefused(givenAtExecution(makeSliceModel(c, rng), 1), "given at execution");
  // A box past the input (the reference refuses it too).
  SliceCase past = c;
  past.size = {2, 5};
  expectRefused(makeSliceModel(past, rng), "SLICE");
  // float32 without relaxation.
  SliceCase floats = c;
  floats.q = {OperandType::TENSOR_FLOAT32, 0.0f, 0};
  expectRefused(makeSliceModel(floats, rng), "SLICE");
}

// GATHER with constant indices: slices of `dims` along `axis`, in the indices' order.
struct GatherCase {
  nn::Dimensions dims, indexDims;
  int32_t axis = 0;
  std::vector<int32_t> indices;
  Quant q{OperandType::TENSOR_QUANT8_ASYMM, 0.5f, 3};
  std::string describe() const {
    return fmt::format("dims [{}] axis {} indices [{}] of shape [{}] type {}", fmt::join(dims, ","), axis,
                       fmt::join(indices, ","), fmt::join(indexDims, ","), static_cast<int>(q.type));
  }
};

OpModel makeGatherModel(const GatherCase& c, std::mt19937& rng) {
  ModelBuilder b;
  OpModel m;
  const size_t count = nn::numberOfElements(c.dims);
  const bool half = c.q.type == OperandType::TENSOR_FLOAT16;
  m.inputs.push_back(randomValues(rng, count, c.q.type));
  const uint32_t in = b.input(c.q.type, c.dims, c.q.scale, c.q.zeroPoint);
  const uint32_t indices =
      b.constant(OperandType::TENSOR_INT32, c.indexDims, c.indices.data(), 4 * c.indices.size());
  const auto axis = static_cast<size_t>(c.axis < 0 ? c.axis + static_cast<int32_t>(c.dims.size()) : c.axis);
  nn::Dimensions outDims(c.dims.begin(), c.dims.begin() + axis);
  outDims.insert(outDims.end(), c.indexDims.begin(), c.indexDims.end());
  outDims.insert(outDims.end(), c.dims.begin() + axis + 1, c.dims.end());
  const uint32_t out = b.tensor(c.q.type, outDims, c.q.scale, c.q.zeroPoint);
  b.output(out);
  b.operation(nn::OperationType::GATHER, {in, b.int32Scalar(c.axis), indices}, {out});
  m.model = b.build();
  m.outputBytes.push_back(nn::numberOfElements(outDims) * (half ? 2 : 1));
  return m;
}

GatherCase randomGather(std::mt19937& rng, OperandType type) {
  auto pick = [&](uint32_t lo, uint32_t hi) { return std::uniform_int_distribution<uint32_t>(lo, hi)(rng); };
  GatherCase c;
  const uint32_t rank = pick(1, 4);
  for (uint32_t d = 0; d < rank; ++d) c.dims.push_back(rng() % 4 == 0 ? 1 : pick(2, 23));
  const uint32_t axis = pick(0, rank - 1);
  c.axis = rng() % 3 == 0 ? static_cast<int32_t>(axis) - static_cast<int32_t>(rank) : static_cast<int32_t>(axis);
  // Index shapes that keep the output's rank at most 4.
  const uint32_t indexRank = pick(1, std::min<uint32_t>(2, 5 - rank));
  for (uint32_t d = 0; d < indexRank; ++d) c.indexDims.push_back(pick(1, 7));
  const size_t n = nn::numberOfElements(c.indexDims);
  const uint32_t size = c.dims[axis];
  int32_t next = static_cast<int32_t>(pick(0, size - 1));
  for (size_t i = 0; i < n; ++i) {  // runs of consecutive indices, repeats and jumps
    c.indices.push_back(next);
    next = rng() % 2 ? (next + 1) % static_cast<int32_t>(size) : static_cast<int32_t>(pick(0, size - 1));
  }
  c.q = randomCaseQuant(type);
  return c;
}

// A vision transformer's class token: token 0 of [batch, tokens, width].
TEST(Gather, ClassToken) {
  for (const char* config : {"weft8", "weft16"}) {
    SCOPED_TRACE(config);
    auto device = approxDevice(config);
    std::mt19937 rng(6);
    GatherCase c;
    c.dims = {2, 197, 40};
    c.axis = 1;
    c.indices = {0};
    c.indexDims = {1};
    c.q.type = OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
    expectBitExactOnDevice(*device, makeGatherModel(c, rng), c.describe());
  }
}

class GatherRandom : public ::testing::TestWithParam<int> {};

TEST_P(GatherRandom, MatchesTheReferenceKernelBitExact) {
  expectRandomCasesBitExact(1300 + GetParam() * 19, [](std::mt19937& rng, OperandType type) {
    const GatherCase c = randomGather(rng, type);
    return std::make_pair(makeGatherModel(c, rng), c.describe());
  });
}

INSTANTIATE_TEST_SUITE_P(Seeds, GatherRandom, ::testing::Range(0, 5));

TEST(Gather, RefusesWhatTheVectorUnitCannotRun) {
  std::mt19937 rng(5);
  GatherCase c;
  c.dims = {4, 6};
  c.axis = 1;
  c.indices = {5, 0, 2};
  c.indexDims = {3};
  expectRefused(givenAtExecution(makeGatherModel(c, rng), 2), "given at execution");
  GatherCase outside = c;
  outside.indices = {6, 0, 2};
  expectRefused(makeGatherModel(outside, rng), "index 6 is outside [0, 6)");
}

}  // namespace
}  // namespace weft::accel::test
