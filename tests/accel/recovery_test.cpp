// Failure handling (DESIGN.md "Bad input and failures"): a device error (STATUS.error) or a
// hang caught by the watchdog fails the execution with OP_FAILED and a message saying what
// happened, the device is reset, and the next execution works and is bit-exact.
#include <gtest/gtest.h>

#include "AccelTestUtil.h"
#include "WrappedBackend.h"
#include "weft/hal/IBurst.h"

namespace weft::accel::test {
namespace {

class Recovery : public ::testing::Test {
 protected:
  void SetUp() override {
    auto inner = sim::createBackend(sim::BackendKind::kApprox, hw::HwConfig::load("weft8"));
    auto wrapped = std::make_unique<WrappedBackend>(std::move(inner));
    backend_ = wrapped.get();
    device_ = deviceOn(std::move(wrapped));
    std::mt19937 rng(7);
    FcCase c;
    c.inputDims = {9, 20};
    c.units = 13;
    c.in = {nn::OperandType::TENSOR_QUANT8_ASYMM, 0.5f, 128};
    c.weights = {nn::OperandType::TENSOR_QUANT8_ASYMM, 0.25f, 120};
    c.out = {nn::OperandType::TENSOR_QUANT8_ASYMM, 16.0f, 100};
    model_ = makeFcModel(c, rng);
    auto cpu = runOnCpu(model_);
    ASSERT_TRUE(cpu.ok()) << cpu.error().message;
    expected_ = cpu.value().outputs[0];
    auto prepared = prepare(*device_, model_.model);
    ASSERT_TRUE(prepared.ok()) << prepared.error().message;
    prepared_ = prepared.value();
  }

  void expectNextExecutionWorks() {
    auto run = runOnPrepared(*prepared_, model_);
    ASSERT_TRUE(run.ok()) << run.error().message;
    EXPECT_EQ(firstMismatch(run.value().outputs[0], expected_), -1);
  }

  WrappedBackend* backend_ = nullptr;
  hal::SharedDevice device_;
  OpModel model_;
  std::vector<uint8_t> expected_;
  hal::SharedPreparedModel prepared_;
};

TEST_F(Recovery, DeviceErrorFailsTheExecutionAndTheNextOneWorks) {
  expectNextExecutionWorks();
  backend_->arm(WrappedBackend::Fault::kBadOpcode);
  auto failed = runOnPrepared(*prepared_, model_);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().code, nn::ErrorStatus::OP_FAILED);
  EXPECT_NE(failed.error().message.find("bad_opcode"), std::string::npos) << failed.error().message;
  // It names the command the controller refused, as the controller read it.
  EXPECT_NE(failed.error().message.find("at command 0 of the program (a command of undefined opcode 15"), std::string::npos)
      << failed.error().message;
  EXPECT_NE(failed.error().message.find("reset"), std::string::npos) << failed.error().message;
  expectNextExecutionWorks();
  expectNextExecutionWorks();
}

// A command that breaks a field rule of hw/spec: the error names it, by its place in the
// program and its opcode, and the rule.
TEST_F(Recovery, ARefusedCommandIsNamedAndTheNextExecutionWorks) {
  backend_->arm(WrappedBackend::Fault::kEmptyStore);
  auto failed = runOnPrepared(*prepared_, model_);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().code, nn::ErrorStatus::OP_FAILED);
  const std::string& m = failed.error().message;
  EXPECT_NE(m.find("halted with error bad_length"), std::string::npos) << m;
  EXPECT_NE(m.find("of the program (a STORE, which breaks the rule for bad_length)"), std::string::npos) << m;
  expectNextExecutionWorks();
}

// A fault inside the simulator (here a LOAD past the end of DRAM, which no field rule can see)
// fails the execution with OP_FAILED instead of escaping as an exception, and the device is
// reset for the next one.
TEST_F(Recovery, ASimulatorFaultFailsTheExecutionAndTheNextOneWorks) {
  backend_->arm(WrappedBackend::Fault::kLoadPastDram);
  const uint64_t resets = backend_->hardResets();
  auto failed = runOnPrepared(*prepared_, model_);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().code, nn::ErrorStatus::OP_FAILED);
  EXPECT_NE(failed.error().message.find("the simulated device failed"), std::string::npos) << failed.error().message;
  EXPECT_NE(failed.error().message.find("reset"), std::string::npos) << failed.error().message;
  EXPECT_GT(backend_->hardResets(), resets);
  expectNextExecutionWorks();
  expectNextExecutionWorks();
}

TEST_F(Recovery, LostDoorbellTripsTheWatchdogAndTheNextExecutionWorks) {
  backend_->arm(WrappedBackend::Fault::kDropDoorbell);
  auto failed = runOnPrepared(*prepared_, model_);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().code, nn::ErrorStatus::OP_FAILED);
  EXPECT_NE(failed.error().message.find("watchdog"), std::string::npos) << failed.error().message;
  EXPECT_EQ(backend_->hardResets(), 1u);
  expectNextExecutionWorks();
}

TEST_F(Recovery, HungProgramTripsTheWatchdogAndTheNextExecutionWorks) {
  backend_->arm(WrappedBackend::Fault::kWaitForeverToken);
  auto failed = runOnPrepared(*prepared_, model_);
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.error().message.find("watchdog"), std::string::npos) << failed.error().message;
  EXPECT_EQ(backend_->hardResets(), 1u);
  expectNextExecutionWorks();
  expectNextExecutionWorks();
}

// A reset in the middle of a burst (a hung program, the watchdog's hard reset) fails that one
// execution; the burst goes on bit-exactly, and another model resident on the device, whose
// constants the reset must not touch, still gives its reference results.
TEST_F(Recovery, AResetDuringABurstFailsOnlyThatExecution) {
  std::mt19937 rng(21);
  FcCase c;
  c.inputDims = {4, 33};
  c.units = 19;
  c.in = {nn::OperandType::TENSOR_QUANT8_ASYMM, 0.5f, 120};
  c.weights = {nn::OperandType::TENSOR_QUANT8_ASYMM, 0.125f, 131};
  c.out = {nn::OperandType::TENSOR_QUANT8_ASYMM, 8.0f, 90};
  const OpModel other = makeFcModel(c, rng);
  auto otherCpu = runOnCpu(other);
  ASSERT_TRUE(otherCpu.ok()) << otherCpu.error().message;
  auto otherPrepared = prepare(*device_, other.model);
  ASSERT_TRUE(otherPrepared.ok()) << otherPrepared.error().message;

  auto burst = prepared_->configureExecutionBurst();
  ASSERT_TRUE(burst.ok()) << burst.error().message;
  auto runInBurst = [&]() -> nn::Result<std::vector<uint8_t>> {
    std::vector<std::vector<uint8_t>> outputs;
    auto e = burst.value()->execute(makeRequest(model_, outputs), nn::MeasureTiming::NO, {}, {});
    if (!e.ok()) return e.error();
    return outputs[0];
  };
  for (int i = 0; i < 2; ++i) {
    auto ok = runInBurst();
    ASSERT_TRUE(ok.ok()) << ok.error().message;
    EXPECT_EQ(firstMismatch(ok.value(), expected_), -1);
  }
  backend_->arm(WrappedBackend::Fault::kWaitForeverToken);
  auto failed = runInBurst();
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().code, nn::ErrorStatus::OP_FAILED);
  EXPECT_NE(failed.error().message.find("watchdog"), std::string::npos) << failed.error().message;
  EXPECT_EQ(backend_->hardResets(), 1u);
  for (int i = 0; i < 2; ++i) {
    auto ok = runInBurst();
    ASSERT_TRUE(ok.ok()) << ok.error().message;
    EXPECT_EQ(firstMismatch(ok.value(), expected_), -1);
  }
  auto otherRun = runOnPrepared(*otherPrepared.value(), other);
  ASSERT_TRUE(otherRun.ok()) << otherRun.error().message;
  EXPECT_EQ(firstMismatch(otherRun.value().outputs[0], otherCpu.value().outputs[0]), -1);
}

}  // namespace
}  // namespace weft::accel::test
