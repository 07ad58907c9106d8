// Compilation on several threads: the tiling search sharing a layer's candidates with a second
// thread (ModelCompiler's bestTiling), and compilations side by side on one device while it
// executes (compileModel holds the device's lock only while it places DRAM). Run under
// ThreadSanitizer in CI (.ci/run).
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "AccelTestUtil.h"

namespace weft::accel::test {
namespace {

TEST(TilingSearch, ALayerSearchedOnTwoThreadsMatchesTheReference) {
  std::mt19937 rng(11);
  // 28x28x64 -> 64, 3x3 on an 8x8 array: 72 K chunks x 8 column tiles a box, so the first round's
  // prefixes (up to 1024 GEMMs each, tens of candidates) pass the search's second-thread threshold.
  ConvCase c;
  c.height = c.width = 28;
  c.inChannels = c.outChannels = 64;
  c.implicitPadding = true;
  c.in = {nn::OperandType::TENSOR_QUANT8_ASYMM, 0.5f, 128};
  c.filter = {nn::OperandType::TENSOR_QUANT8_ASYMM, 0.01f, 120};
  c.out = {nn::OperandType::TENSOR_QUANT8_ASYMM, 2.0f, 100};
  const OpModel m = makeConvModel(c, rng);
  auto device = deviceOn(sim::createBackend(sim::BackendKind::kApprox, hw::HwConfig::load("weft8")));
  expectBitExactOnDevice(*device, m, c.describe());
}

// Three threads compile three models on one device while a fourth executes a fourth model over
// and over; every model then runs bit-exact with the reference.
TEST(TilingSearch, CompilationsSideBySideBesideAnExecution) {
  auto device = deviceOn(sim::createBackend(sim::BackendKind::kApprox, hw::HwConfig::load("weft8")));
  std::mt19937 rng(5);
  std::vector<OpModel> models;
  for (int i = 0; i < 4; ++i) models.push_back(makeConvModel(randomConvCase(rng, 20, 24), rng));
  auto running = prepare(*device, models[3].model);
  ASSERT_TRUE(running.ok()) << running.error().message;
  std::vector<nn::Result<hal::SharedPreparedModel>> prepared(3, NN_ERROR(OP_FAILED) << "not prepared");
  std::atomic<int> compiling{3};
  std::vector<std::thread> compilers;
  for (size_t i = 0; i < 3; ++i) {
    compilers.emplace_back([&, i] {
      for (int k = 0; k < 3; ++k) prepared[i] = prepare(*device, models[i].model);  // the DRAM placed anew each time
      --compiling;
    });
  }
  // Executions for as long as the compilations go on.
  int runs = 0;
  for (; compiling > 0 || runs < 3; ++runs) {
    auto result = runOnPrepared(*running.value(), models[3]);
    ASSERT_TRUE(result.ok()) << result.error().message;
  }
  for (auto& t : compilers) t.join();
  for (size_t i = 0; i < 3; ++i) {
    ASSERT_TRUE(prepared[i].ok()) << prepared[i].error().message;
    auto got = runOnPrepared(*prepared[i].value(), models[i]);
    auto want = runOnCpu(models[i]);
    ASSERT_TRUE(got.ok() && want.ok());
    EXPECT_EQ(firstMismatch(got.value().outputs[0], want.value().outputs[0]), -1) << "model " << i;
  }
}

}  // namespace
}  // namespace weft::accel::test
