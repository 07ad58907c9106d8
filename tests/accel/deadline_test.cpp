// Deadlines on the accelerator (NNAPI's setTimeout): an execution whose deadline passes while the
// simulation runs is stopped there, the device gets the watchdog's hard reset, the call returns
// MISSED_DEADLINE_TRANSIENT promptly, and the next execution works and is bit-exact. A
// compilation whose deadline passes during the tiling search stops with
// MISSED_DEADLINE_PERSISTENT. Approx backend; rtl_test.cpp has the same on the RTL.
#include <gtest/gtest.h>

#include "AccelTestUtil.h"
#include "DeadlineModels.h"
#include "WrappedBackend.h"

namespace weft::accel::test {
namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

class Deadline : public ::testing::Test {
 protected:
  void SetUp() override {
    auto inner = sim::createBackend(sim::BackendKind::kApprox, hw::HwConfig::load("weft8"));
    auto wrapped = std::make_unique<WrappedBackend>(std::move(inner));
    backend_ = wrapped.get();
    device_ = deviceOn(std::move(wrapped));
  }
  WrappedBackend* backend_ = nullptr;
  hal::SharedDevice device_;
};

TEST_F(Deadline, AnExecutionPastItsDeadlineIsStoppedAndTheNextOneWorks) {
  std::mt19937 rng(11);
  // About 11 M cycles: some 40 ms on approx here, so a 5 ms deadline stops it mid-way.
  const OpModel big = makeConvChain(/*layers=*/6, /*size=*/56, /*channels=*/64, rng);
  auto prepared = prepare(*device_, big.model);
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  auto before = runOnPrepared(*prepared.value(), big);
  ASSERT_TRUE(before.ok()) << before.error().message;
  const uint64_t programCycles = before.value().execution->profile.deviceCycles;

  const uint64_t cycle0 = backend_->cycle();
  const auto t0 = Clock::now();
  auto missed = runOnPrepared(*prepared.value(), big, nn::MeasureTiming::NO, Clock::now() + std::chrono::milliseconds(5));
  const double missedSeconds = secondsSince(t0);
  ASSERT_FALSE(missed.ok());
  EXPECT_EQ(missed.error().code, nn::ErrorStatus::MISSED_DEADLINE_TRANSIENT) << missed.error().message;
  EXPECT_NE(missed.error().message.find("reset"), std::string::npos) << missed.error().message;
  EXPECT_EQ(backend_->hardResets(), 1u);
  // Stopped promptly, and well before the program's end.
  EXPECT_LT(missedSeconds, 0.005 + 0.2);
  EXPECT_LT(backend_->cycle() - cycle0, programCycles / 2) << "of " << programCycles;

  // The next executions run whole and give what the device gave before; a small one is exact.
  auto after = runOnPrepared(*prepared.value(), big);
  ASSERT_TRUE(after.ok()) << after.error().message;
  EXPECT_EQ(firstMismatch(after.value().outputs[0], before.value().outputs[0]), -1);
  const OpModel small = makeConvChain(2, 10, 12, rng);
  expectBitExactOnDevice(*device_, small, "a small chain after the reset");
  EXPECT_EQ(backend_->hardResets(), 1u);
}

TEST_F(Deadline, AnExecutionWithinItsDeadlineIsExactAndNotReset) {
  std::mt19937 rng(12);
  const OpModel m = makeConvChain(/*layers=*/2, /*size=*/12, /*channels=*/16, rng);
  auto prepared = prepare(*device_, m.model);
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  auto run = runOnPrepared(*prepared.value(), m, nn::MeasureTiming::YES, Clock::now() + std::chrono::seconds(60));
  ASSERT_TRUE(run.ok()) << run.error().message;
  auto cpu = runOnCpu(m);
  ASSERT_TRUE(cpu.ok()) << cpu.error().message;
  EXPECT_EQ(firstMismatch(run.value().outputs[0], cpu.value().outputs[0]), -1);
  EXPECT_EQ(backend_->hardResets(), 0u);
}

TEST_F(Deadline, ADeadlinePassedBeforeTheStartRunsNothing) {
  std::mt19937 rng(13);
  const OpModel m = makeConvChain(1, 8, 8, rng);
  auto prepared = prepare(*device_, m.model);
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  const uint64_t cycles = backend_->cycle();
  auto run = runOnPrepared(*prepared.value(), m, nn::MeasureTiming::NO, Clock::now() - std::chrono::milliseconds(1));
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.error().code, nn::ErrorStatus::MISSED_DEADLINE_TRANSIENT);
  EXPECT_EQ(backend_->cycle(), cycles);
  EXPECT_EQ(backend_->hardResets(), 0u);
}

TEST_F(Deadline, ACompilationPastItsDeadlineStopsInTheTilingSearch) {
  std::mt19937 rng(14);
  const OpModel big = makeConvChain(/*layers=*/8, /*size=*/40, /*channels=*/64, rng);
  const auto t0 = Clock::now();
  auto full = prepare(*device_, big.model);
  const double fullSeconds = secondsSince(t0);
  ASSERT_TRUE(full.ok()) << full.error().message;

  const auto t1 = Clock::now();
  auto missed = device_->prepareModel(big.model, nn::ExecutionPreference::FAST_SINGLE_ANSWER, nn::Priority::MEDIUM,
                                      Clock::now() + std::chrono::milliseconds(5), std::nullopt);
  const double missedSeconds = secondsSince(t1);
  ASSERT_FALSE(missed.ok());
  EXPECT_EQ(missed.error().code, nn::ErrorStatus::MISSED_DEADLINE_PERSISTENT) << missed.error().message;
  EXPECT_LT(missedSeconds, fullSeconds / 2) << "full " << fullSeconds << " s, stopped " << missedSeconds << " s";

  // Nothing of it was kept: the device compiles and runs the model as before.
  auto again = prepare(*device_, big.model);
  ASSERT_TRUE(again.ok()) << again.error().message;
}

}  // namespace
}  // namespace weft::accel::test
