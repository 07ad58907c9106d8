// org.weft.accel's WEFT_MATMUL_INT32 on the accelerator (approx backend) against the reference
// kernel, bit-exact; the extension as the device declares it; and the models it must refuse, by
// the same rules as the CPU device.
#include <gtest/gtest.h>

#include <cstring>

#include "AccelTestUtil.h"
#include "weft/kernels/CpuExecutor.h"
#include "weft/kernels/Extensions.h"

namespace weft::accel::test {
namespace {

using nn::OperandType;

MatmulCase basic(uint32_t m, uint32_t n, uint32_t k) {
  MatmulCase c;
  c.m = m;
  c.n = n;
  c.k = k;
  c.lhs = {OperandType::TENSOR_QUANT8_ASYMM, 0.5f, 128};
  c.rhs = {OperandType::TENSOR_QUANT8_ASYMM_SIGNED, 0.25f, -3};
  return c;
}

void expectBitExact(const hal::IDevice& device, const MatmulCase& c, std::mt19937& rng) {
  expectBitExactOnDevice(device, makeMatmulModel(c, rng), c.describe());
}

TEST(WeftMatmul, TheDeviceDeclaresTheExtensionAsTheReferenceKernelsDo) {
  auto device = approxDevice("weft8");
  const auto& extensions = device->getSupportedExtensions();
  ASSERT_EQ(extensions.size(), 1u);
  EXPECT_EQ(extensions[0].name, "org.weft.accel");
  const nn::Extension* reference = nullptr;
  for (const auto& e : nn::referenceExtensions()) {
    if (e.name == extensions[0].name) reference = &e;
  }
  ASSERT_NE(reference, nullptr);
  ASSERT_EQ(extensions[0].operandTypes.size(), reference->operandTypes.size());
  for (size_t i = 0; i < reference->operandTypes.size(); ++i) {
    EXPECT_EQ(extensions[0].operandTypes[i].type, reference->operandTypes[i].type);
    EXPECT_EQ(extensions[0].operandTypes[i].isTensor, reference->operandTypes[i].isTensor);
    EXPECT_EQ(extensions[0].operandTypes[i].byteSize, reference->operandTypes[i].byteSize);
  }
}

class WeftMatmulRandom : public ::testing::TestWithParam<int> {};

TEST_P(WeftMatmulRandom, MatchesTheReferenceKernelBitExactOnWeft8) {
  auto device = approxDevice("weft8");
  std::mt19937 rng(7000 + GetParam());
  for (int i = 0; i < 6; ++i) {
    const MatmulCase c = randomMatmulCase(rng, 40, 90);
    SCOPED_TRACE(c.describe());
    expectBitExact(*device, c, rng);
    if (HasFatalFailure()) return;
  }
}
INSTANTIATE_TEST_SUITE_P(Seeds, WeftMatmulRandom, ::testing::Range(0, 6));

TEST(WeftMatmul, SingleElement) {
  std::mt19937 rng(1);
  expectBitExact(*approxDevice("weft8"), basic(1, 1, 1), rng);
}

TEST(WeftMatmul, ManyRowsColumnsAndALongDepth) {
  std::mt19937 rng(2);
  MatmulCase c = basic(700, 37, 1000);  // more rows than the accumulator, N not a multiple of Cols
  c.accumulatorOutput = true;
  expectBitExact(*approxDevice("weft8"), c, rng);
}

TEST(WeftMatmul, RhsGivenAtExecution) {
  std::mt19937 rng(3);
  MatmulCase c = basic(9, 20, 50);
  c.rhsAtExecution = true;
  expectBitExact(*approxDevice("weft8"), c, rng);
}

// The largest products the types allow, summed over a deep K: values far beyond 16 bits and of
// both signs, which a requantizing store would have clamped.
TEST(WeftMatmul, ExtremeValuesReachTheInt32Accumulators) {
  for (bool negative : {false, true}) {
    MatmulCase c = basic(3, 5, 30000);
    c.lhs = {OperandType::TENSOR_QUANT8_ASYMM, 1.0f, 0};
    c.rhs = {OperandType::TENSOR_QUANT8_ASYMM_SIGNED, 1.0f, negative ? 127 : -128};
    std::mt19937 rng(4);
    OpModel m = makeMatmulModel(c, rng);
    std::fill(m.inputs[0].begin(), m.inputs[0].end(), 255);
    // rhs bytes all 0x80 (-128) or 0x7F (127): (255 - 0) * (-128 - 127) or (255) * (127 + 128).
    auto& values = m.model.operandValues;
    std::fill(values.begin(), values.end(), negative ? 0x80 : 0x7F);
    auto cpu = runOnCpu(m);
    ASSERT_TRUE(cpu.ok()) << cpu.error().message;
    int32_t first = 0;
    std::memcpy(&first, cpu.value().outputs[0].data(), 4);
    EXPECT_EQ(first, (negative ? -1 : 1) * 255 * 255 * 30000);
    expectBitExactOnDevice(*approxDevice("weft8"), m, c.describe());
  }
}

TEST(WeftMatmul, OnTheDefaultConfiguration) {
  std::mt19937 rng(5);
  auto device = deviceOn(sim::createBackend(sim::BackendKind::kApprox, hw::HwConfig::load("weft16")));
  MatmulCase c = basic(37, 70, 150);
  c.accumulatorOutput = true;
  expectBitExact(*device, c, rng);
}

// Models the reference kernel's rules refuse: the accelerator must refuse them too, at
// getSupportedOperations and at prepareModel, with BAD_DATA.
struct Mutation {
  const char* name;
  void (*apply)(nn::Model& m);
};

void expectRefused(const Mutation& mutation) {
  SCOPED_TRACE(mutation.name);
  auto device = approxDevice("weft8");
  std::mt19937 rng(6);
  MatmulCase c = basic(4, 6, 8);
  c.accumulatorOutput = true;
  OpModel m = makeMatmulModel(c, rng);
  mutation.apply(m.model);
  auto supported = device->getSupportedOperations(m.model);
  ASSERT_TRUE(supported.ok());
  EXPECT_FALSE(supported.value().at(0));
  auto prepared = prepare(*device, m.model);
  ASSERT_FALSE(prepared.ok());
  EXPECT_EQ(prepared.error().code, nn::ErrorStatus::BAD_DATA);
  // The CPU reference refuses it as well: the same rules.
  EXPECT_FALSE(nn::validateOperation(m.model, m.model.main, m.model.main.operations[0]).ok());
}

nn::Operand& lhsOf(nn::Model& m) { return m.main.operands[m.main.operations[0].inputs[0]]; }
nn::Operand& outputOf(nn::Model& m) { return m.main.operands[m.main.operations[0].outputs[0]]; }

TEST(WeftMatmul, RefusesWhatTheReferenceKernelRefuses) {
  const Mutation mutations[] = {
      {"depths differ", [](nn::Model& m) { lhsOf(m).dimensions = {4, 9}; }},
      {"lhs of rank 3", [](nn::Model& m) { lhsOf(m).dimensions = {1, 4, 8}; }},
      {"lhs float", [](nn::Model& m) { lhsOf(m).type = OperandType::TENSOR_FLOAT32; }},
      {"output quant8", [](nn::Model& m) { outputOf(m).type = OperandType::TENSOR_QUANT8_ASYMM; }},
      {"accumulator scale not lhs x rhs",
       [](nn::Model& m) {
         const float wrong = 3.0f;
         std::vector<uint8_t> params(sizeof(wrong));
         std::memcpy(params.data(), &wrong, sizeof(wrong));
         outputOf(m).extraParams = params;
       }},
      {"accumulator params of the wrong size", [](nn::Model& m) { outputOf(m).extraParams = std::vector<uint8_t>(3); }},
      {"accumulator with a zero point", [](nn::Model& m) { outputOf(m).zeroPoint = 1; }},
      {"one input", [](nn::Model& m) { m.main.operations[0].inputs.pop_back(); }},
      {"the prefix names another extension",
       [](nn::Model& m) { m.extensionNameToPrefix = {{"com.example.other", kWeftPrefix}}; }},
  };
  for (const Mutation& mutation : mutations) expectRefused(mutation);
}

// What only the accelerator cannot do: shapes unknown at preparation, M beyond the command fields.
TEST(WeftMatmul, RefusesShapesTheArrayCannotTake) {
  auto device = approxDevice("weft8");
  std::mt19937 rng(7);
  OpModel unknown = makeMatmulModel(basic(4, 6, 8), rng);
  lhsOf(unknown.model).dimensions = {0, 8};
  auto supported = device->getSupportedOperations(unknown.model);
  ASSERT_TRUE(supported.ok());
  EXPECT_FALSE(supported.value().at(0));

  OpModel tall = makeMatmulModel(basic(70000, 2, 2), rng);
  supported = device->getSupportedOperations(tall.model);
  ASSERT_TRUE(supported.ok());
  EXPECT_FALSE(supported.value().at(0));
  // ...which the CPU runs.
  EXPECT_TRUE(nn::validateOperation(tall.model, tall.model.main, tall.model.main.operations[0]).ok());
}

}  // namespace
}  // namespace weft::accel::test
