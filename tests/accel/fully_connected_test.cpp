// FULLY_CONNECTED on the accelerator (approx backend) against the CPU reference, bit-exact.
#include <gtest/gtest.h>

#include "AccelTestUtil.h"

namespace weft::accel::test {
namespace {

void expectBitExact(const hal::IDevice& device, const FcCase& c, std::mt19937& rng) {
  expectBitExactOnDevice(device, makeFcModel(c, rng), c.describe());
}

class FcRandom : public ::testing::TestWithParam<int> {};

TEST_P(FcRandom, MatchesTheCpuReferenceBitExactOnWeft8) {
  auto device = approxDevice("weft8");
  std::mt19937 rng(2000 + GetParam());
  for (int i = 0; i < 6; ++i) {
    const FcCase c = randomFcCase(rng, 40, 90);
    SCOPED_TRACE(c.describe());
    expectBitExact(*device, c, rng);
    if (HasFatalFailure()) return;
  }
}
INSTANTIATE_TEST_SUITE_P(Seeds, FcRandom, ::testing::Range(0, 8));

FcCase basic(uint32_t batch, uint32_t inputSize, uint32_t units) {
  FcCase c;
  c.inputDims = {batch, inputSize};
  c.units = units;
  c.in = {nn::OperandType::TENSOR_QUANT8_ASYMM, 0.5f, 128};
  c.weights = {nn::OperandType::TENSOR_QUANT8_ASYMM, 0.25f, 120};
  c.out = {nn::OperandType::TENSOR_QUANT8_ASYMM, 16.0f, 100};
  return c;
}

// Runs `m` on the device, expects the CPU reference's outputs bit for bit, and returns the
// layer's profile (its mapping and counters).
hal::OperationProfile profiledRun(const hal::IDevice& device, const OpModel& m) {
  auto cpu = runOnCpu(m);
  EXPECT_TRUE(cpu.ok()) << cpu.error().message;
  auto prepared = prepare(device, m.model);
  EXPECT_TRUE(prepared.ok()) << prepared.error().message;
  if (!cpu.ok() || !prepared.ok()) return {};
  auto dev = runOnPrepared(*prepared.value(), m);
  EXPECT_TRUE(dev.ok()) << dev.error().message;
  if (!dev.ok()) return {};
  EXPECT_EQ(firstMismatch(dev.value().outputs[0], cpu.value().outputs[0]), -1);
  return dev.value().execution->profile.operations.at(0);
}

uint64_t counter(const hal::OperationProfile& op, const std::string& name) {
  for (const auto& [n, value] : op.counters) {
    if (n == name) return value;
  }
  return 0;
}

// A streamed load of several chunks holds its rows pixel by pixel, so a batch row's chunks are
// one merged DRAM request (CommandGenerator's loadInputs): 32 rows of 100 bytes to 3 units at
// weft16 stream 7 chunks in loads of several, and the layer reads its inputs in a request a
// row and load instead of one a chunk.
TEST(FullyConnected, StreamedChunksOfARowAreOneRequest) {
  std::mt19937 rng(6);
  auto device = approxDevice("weft16");
  const hal::OperationProfile op = profiledRun(*device, makeFcModel(basic(32, 100, 3), rng));
  if (HasFailure()) return;
  const std::string streamed = "inputs streamed (loads of <= ";
  const size_t at = op.mapping.find(streamed);
  ASSERT_NE(at, std::string::npos) << op.mapping;
  const uint32_t perLoad = static_cast<uint32_t>(std::stoul(op.mapping.substr(at + streamed.size())));
  ASSERT_GE(perLoad, 2u) << op.mapping;
  const uint64_t requests = counter(op, "DMA_RD_REQS");
  // Chunk by chunk, 32 rows x 7 chunks would be 224 input requests alone; pixel by pixel a row
  // takes one a load, and the weights and parameters a few merged ones more.
  const uint64_t inputRequests = 32ull * ((7 + perLoad - 1) / perLoad);
  EXPECT_GE(requests, inputRequests);
  EXPECT_LE(requests, inputRequests + 8) << op.mapping;
}

// A long reduction is 19 chunks for each of 2 n-tiles: 38 GEMMs a chunk each, but a tile's
// chunks of a load go in one GEMM of k_steps steps, so the whole layer (its loads and stores
// included) is fewer commands than that, with the same outputs.
TEST(FullyConnected, ATilesChunksAreStepsOfOneGemm) {
  std::mt19937 rng(7);
  auto device = approxDevice("weft16");
  const hal::OperationProfile op = profiledRun(*device, makeFcModel(basic(128, 300, 20), rng));
  if (HasFailure()) return;
  EXPECT_NE(op.mapping.find("chunks stepped per tile"), std::string::npos) << op.mapping;
  EXPECT_EQ(counter(op, "ARRAY_ROWS"), 128u * 19 * 2);  // every step's rows, as 38 GEMMs would
  EXPECT_LT(counter(op, "CMDS_RETIRED"), 19u * 2) << op.mapping;
}

TEST(FullyConnected, SingleElement) {
  std::mt19937 rng(1);
  expectBitExact(*approxDevice("weft8"), basic(1, 1, 1), rng);
}

TEST(FullyConnected, BatchLargerThanTheAccumulator) {
  std::mt19937 rng(2);
  expectBitExact(*approxDevice("weft8"), basic(700, 20, 11), rng);
}

TEST(FullyConnected, LongReductionAndManyUnits) {
  std::mt19937 rng(3);
  expectBitExact(*approxDevice("weft8"), basic(3, 1000, 300), rng);
}

TEST(FullyConnected, FourDimensionalInputFlattensToBatchRows) {
  std::mt19937 rng(4);
  FcCase c = basic(1, 12, 9);
  c.inputDims = {2, 3, 2, 12};  // 12 rows of 12
  expectBitExact(*approxDevice("weft8"), c, rng);
}

TEST(FullyConnected, SignedWithMultiplierAboveOne) {
  std::mt19937 rng(5);
  FcCase c = basic(5, 30, 17);
  c.in = {nn::OperandType::TENSOR_QUANT8_ASYMM_SIGNED, 0.5f, -10};
  c.weights = {nn::OperandType::TENSOR_QUANT8_ASYMM_SIGNED, 0.5f, 3};
  c.out = {nn::OperandType::TENSOR_QUANT8_ASYMM_SIGNED, 0.1f, 5};
  c.activation = 2;
  expectBitExact(*approxDevice("weft8"), c, rng);
}

TEST(FullyConnected, OnTheDefaultConfiguration) {
  std::mt19937 rng(6);
  // A device of its own (not the process's weft8 singleton).
  auto device = deviceOn(sim::createBackend(sim::BackendKind::kApprox, hw::HwConfig::load("weft16")));
  expectBitExact(*device, basic(37, 150, 70), rng);
}

}  // namespace
}  // namespace weft::accel::test
