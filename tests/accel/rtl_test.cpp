// The accelerator on the rtl backend (the verilated RTL in the SystemC harness): a smaller
// subset of the approx suites, since the RTL is the truth but simulates slower. ctest runs each
// test in its own process (SystemC elaborates one design per process).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cmath>

#include "../../driver/accel/PreparedModel.h"
#include "AccelTestUtil.h"
#include "DeadlineModels.h"
#include "WrappedBackend.h"
#include "weft/accel/AcceleratorDevice.h"
#include "weft/hw/fp16.h"

namespace weft::accel::test {
namespace {

hal::SharedDevice rtlDevice(const std::string& config) {
  AcceleratorOptions o;
  o.backend = "rtl";
  o.hwConfig = config;
  auto d = createAcceleratorDevice(o);
  if (!d.ok()) throw std::runtime_error(d.error().message);
  return d.value();
}

template <typename Case>
void expectBitExact(const hal::IDevice& device, const OpModel& m, const Case& c) {
  auto cpu = runOnCpu(m);
  ASSERT_TRUE(cpu.ok()) << c.describe() << ": " << cpu.error().message;
  auto prepared = prepare(device, m.model);
  ASSERT_TRUE(prepared.ok()) << c.describe() << ": " << prepared.error().message;
  auto dev = runOnPrepared(*prepared.value(), m);
  ASSERT_TRUE(dev.ok()) << c.describe() << ": " << dev.error().message;
  EXPECT_EQ(firstMismatch(dev.value().outputs[0], cpu.value().outputs[0]), -1) << c.describe();
  EXPECT_EQ(dev.value().execution->profile.backend, "rtl");
}

TEST(Rtl, RandomConvolutionsMatchTheReference) {
  auto device = rtlDevice("weft8");
  std::mt19937 rng(3000);
  for (int i = 0; i < 8; ++i) {
    const ConvCase c = randomConvCase(rng, 10, 20);
    const OpModel m = makeConvModel(c, rng);
    expectBitExact(*device, m, c);
  }
}

// Ramped ends forced (WEFT_ACCEL_RAMP=always): the smaller end boxes, the first weights in
// ranges and the late parameter rows on the RTL, whose token handshakes the timeline only models.
TEST(Rtl, RampedConvolutionsMatchTheReference) {
  setenv("WEFT_ACCEL_RAMP", "always", 1);
  auto device = rtlDevice("weft8");
  std::mt19937 rng(3200);
  int ramped = 0;
  for (int i = 0; i < 4; ++i) {
    ConvCase c = randomConvCase(rng, 10, 20);
    c.height = 20 + rng() % 12;
    c.width = 20 + rng() % 12;
    const OpModel m = makeConvModel(c, rng);
    expectBitExact(*device, m, c);
    auto prepared = prepare(*device, m.model);
    ASSERT_TRUE(prepared.ok());
    const auto& ops = static_cast<const PreparedModel&>(*prepared.value()).compiled().operations;
    ramped += ops.at(0).tiling.find("ramped ends") != std::string::npos;
  }
  unsetenv("WEFT_ACCEL_RAMP");
  EXPECT_GE(ramped, 2);
}

TEST(Rtl, RandomFullyConnectedLayersMatchTheReference) {
  auto device = rtlDevice("weft8");
  std::mt19937 rng(3100);
  for (int i = 0; i < 8; ++i) {
    const FcCase c = randomFcCase(rng, 20, 60);
    const OpModel m = makeFcModel(c, rng);
    expectBitExact(*device, m, c);
  }
}

// org.weft.accel's matmul: the RTL's raw32 stores write the accumulators the reference sums.
TEST(Rtl, WeftMatmulInt32MatchesTheReference) {
  auto device = rtlDevice("weft8");
  std::mt19937 rng(3150);
  for (int i = 0; i < 3; ++i) {
    MatmulCase c = randomMatmulCase(rng, 20, 40);
    c.accumulatorOutput = i % 2 == 0;
    const OpModel m = makeMatmulModel(c, rng);
    expectBitExact(*device, m, c);
  }
}

// An fp16 layer whose filter and bias are model inputs: the device copies the filter into its
// weight image and widens the binary16 bias into binary32 parameter rows (ELTWISE fp16, STORE
// raw32) before the layer runs. On the RTL too, within the float16 tolerance of the CPU
// reference: a FULLY_CONNECTED on the array, then a DEPTHWISE_CONV_2D on the vector unit (channels
// past a parameter row, odd counts). One device a process: the approx side is accel_fp16_test's,
// the commands' identity on both backends the lock-step tests'.
TEST(Rtl, Fp16FilterAndBiasGivenAtExecutionMatchTheReference) {
  using nn::OperandType;
  auto rtl = rtlDevice("weft16fp");
  std::mt19937 rng(3100);
  const uint32_t batch = 3, inputSize = 37, units = 21, channels = 13;
  ModelBuilder b;
  const uint32_t in = b.input(OperandType::TENSOR_FLOAT16, {batch, inputSize}, 0, 0);
  const uint32_t w = b.input(OperandType::TENSOR_FLOAT16, {units, inputSize}, 0, 0);
  const uint32_t bias = b.input(OperandType::TENSOR_FLOAT16, {units}, 0, 0);
  const uint32_t dwIn = b.input(OperandType::TENSOR_FLOAT16, {1, 5, 6, channels}, 0, 0);
  const uint32_t dwFilter = b.input(OperandType::TENSOR_FLOAT16, {1, 3, 3, channels}, 0, 0);
  const uint32_t dwBias = b.input(OperandType::TENSOR_FLOAT16, {channels}, 0, 0);
  const uint32_t fc = b.tensor(OperandType::TENSOR_FLOAT16, {batch, units});
  const uint32_t dw = b.tensor(OperandType::TENSOR_FLOAT16, {1, 5, 6, channels});
  b.output(fc);
  b.output(dw);
  b.operation(nn::OperationType::FULLY_CONNECTED, {in, w, bias, b.int32Scalar(0)}, {fc});
  b.operation(nn::OperationType::DEPTHWISE_CONV_2D,
              {dwIn, dwFilter, dwBias, b.int32Scalar(1), b.int32Scalar(1), b.int32Scalar(1), b.int32Scalar(1),
               b.int32Scalar(0)},
              {dw});
  OpModel m;
  m.model = b.build();
  for (size_t n : {batch * inputSize, units * inputSize, units, 5 * 6 * channels, 9 * channels, channels}) {
    m.inputs.push_back(randomHalves(rng, n, 2.0f));
  }
  m.outputBytes = {2 * batch * units, 2 * 5 * 6 * channels};
  auto run = [&](const hal::IDevice& device) {
    auto prepared = prepare(device, m.model);
    if (!prepared.ok()) throw std::runtime_error(prepared.error().message);
    auto result = runOnPrepared(*prepared.value(), m);
    if (!result.ok()) throw std::runtime_error(result.error().message);
    return std::move(result).value();
  };
  const auto onRtl = run(*rtl);
  const auto& profile = onRtl.execution->profile;
  ASSERT_EQ(profile.backend, "rtl");
  ASSERT_EQ(profile.operations.size(), 2u);
  EXPECT_EQ(profile.operations[0].unit, "array");
  EXPECT_EQ(profile.operations[1].unit, "vector");
  EXPECT_EQ(profile.deviceCycles,
            profile.operations[0].cycles + profile.operations[1].cycles + profile.overheadCycles);
  // Within the float16 tolerance of the CPU reference.
  auto cpu = runOnCpu(m);
  ASSERT_TRUE(cpu.ok()) << cpu.error().message;
  for (size_t o = 0; o < 2; ++o) {
    const auto& got = onRtl.outputs[o];
    const auto& want = cpu.value().outputs[o];
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i + 1 < got.size(); i += 2) {
      const double g = hw::fp::fp16Value(static_cast<uint16_t>(got[i] | got[i + 1] << 8));
      const double e = hw::fp::fp16Value(static_cast<uint16_t>(want[i] | want[i + 1] << 8));
      EXPECT_LE(std::abs(g - e), 5.0 / 1024 * (1 + std::abs(e))) << "output " << o << " value " << i / 2;
    }
  }
}

TEST(Rtl, TimingFollowsTheBusyCounter) {
  auto device = rtlDevice("weft8");
  std::mt19937 rng(3200);
  const FcCase c = randomFcCase(rng, 20, 60);
  const OpModel m = makeFcModel(c, rng);
  auto prepared = prepare(*device, m.model);
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  auto run = runOnPrepared(*prepared.value(), m);
  ASSERT_TRUE(run.ok()) << run.error().message;
  const auto& e = *run.value().execution;
  const auto config = hw::HwConfig::load("weft8");
  EXPECT_GT(e.profile.deviceCycles, 0u);
  EXPECT_EQ(e.timing.timeOnDeviceNs, static_cast<uint64_t>(std::llround(e.profile.deviceCycles * config.cyclePeriodNs())));
  EXPECT_LE(e.timing.timeOnDeviceNs, e.timing.timeInDriverNs);
  uint64_t sum = 0;
  for (const auto& op : e.profile.operations) sum += op.cycles;
  EXPECT_EQ(sum + e.profile.overheadCycles, e.profile.deviceCycles);
  EXPECT_GT(e.profile.simulatedCycles, 0u);
}

TEST(Rtl, DeviceErrorIsRecovered) {
  auto wrapped = std::make_unique<WrappedBackend>(sim::createBackend(sim::BackendKind::kRtl, hw::HwConfig::load("weft8")));
  WrappedBackend* backend = wrapped.get();
  auto device = deviceOn(std::move(wrapped));
  std::mt19937 rng(3300);
  const FcCase c = randomFcCase(rng, 10, 30);
  const OpModel m = makeFcModel(c, rng);
  auto cpu = runOnCpu(m);
  ASSERT_TRUE(cpu.ok());
  auto prepared = prepare(*device, m.model);
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  backend->arm(WrappedBackend::Fault::kBadOpcode);
  auto failed = runOnPrepared(*prepared.value(), m);
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.error().message.find("bad_opcode"), std::string::npos) << failed.error().message;
  backend->arm(WrappedBackend::Fault::kDropDoorbell);
  failed = runOnPrepared(*prepared.value(), m);
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.error().message.find("watchdog"), std::string::npos) << failed.error().message;
  auto ok = runOnPrepared(*prepared.value(), m);
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(firstMismatch(ok.value().outputs[0], cpu.value().outputs[0]), -1);
}

// A deadline on the RTL: the simulation is stopped when it passes, the device hard reset, and the
// next execution runs whole with the same outputs.
TEST(Rtl, AnExecutionPastItsDeadlineIsStoppedAndTheNextOneWorks) {
  using Clock = std::chrono::steady_clock;
  auto wrapped = std::make_unique<WrappedBackend>(sim::createBackend(sim::BackendKind::kRtl, hw::HwConfig::load("weft8")));
  WrappedBackend* backend = wrapped.get();
  auto device = deviceOn(std::move(wrapped));
  std::mt19937 rng(3400);
  const OpModel big = makeConvChain(/*layers=*/3, /*size=*/32, /*channels=*/32, rng);  // ~0.45 M cycles
  auto prepared = prepare(*device, big.model);
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  auto before = runOnPrepared(*prepared.value(), big);
  ASSERT_TRUE(before.ok()) << before.error().message;
  const uint64_t programCycles = before.value().execution->profile.deviceCycles;

  const uint64_t cycle0 = backend->cycle();
  const auto t0 = Clock::now();
  auto missed = runOnPrepared(*prepared.value(), big, nn::MeasureTiming::NO, Clock::now() + std::chrono::milliseconds(20));
  const double missedSeconds = std::chrono::duration<double>(Clock::now() - t0).count();
  ASSERT_FALSE(missed.ok());
  EXPECT_EQ(missed.error().code, nn::ErrorStatus::MISSED_DEADLINE_TRANSIENT) << missed.error().message;
  EXPECT_EQ(backend->hardResets(), 1u);
  EXPECT_LT(missedSeconds, 0.02 + 0.2);
  EXPECT_LT(backend->cycle() - cycle0, programCycles / 2) << "of " << programCycles;

  auto after = runOnPrepared(*prepared.value(), big);
  ASSERT_TRUE(after.ok()) << after.error().message;
  EXPECT_EQ(firstMismatch(after.value().outputs[0], before.value().outputs[0]), -1);
  auto cpu = runOnCpu(big);
  ASSERT_TRUE(cpu.ok()) << cpu.error().message;
  EXPECT_EQ(firstMismatch(after.value().outputs[0], cpu.value().outputs[0]), -1);
}

// Utilization of a large layer on the default configuration, from the RTL's counters.
TEST(Rtl, UtilizationOfALargeConvolution) {
  const auto config = hw::HwConfig::load("weft16");
  auto device = rtlDevice("weft16");
  std::mt19937 rng(1);
  ConvCase c;
  c.height = c.width = 28;
  c.inChannels = c.outChannels = 128;
  c.filterH = c.filterW = 3;
  c.implicitPadding = true;
  c.in = {nn::OperandType::TENSOR_QUANT8_ASYMM, 0.5f, 127};
  c.filter = {nn::OperandType::TENSOR_QUANT8_ASYMM, 0.01f, 130};
  c.out = {nn::OperandType::TENSOR_QUANT8_ASYMM, 4.0f, 120};
  c.activation = 3;
  const OpModel m = makeConvModel(c, rng);
  auto cpu = runOnCpu(m);
  ASSERT_TRUE(cpu.ok());
  auto prepared = prepare(*device, m.model);
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  auto run = runOnPrepared(*prepared.value(), m);
  ASSERT_TRUE(run.ok()) << run.error().message;
  EXPECT_EQ(firstMismatch(run.value().outputs[0], cpu.value().outputs[0]), -1);
  const auto& op = run.value().execution->profile.operations.at(0);
  const double ideal = static_cast<double>(op.macs) / (config.rows() * config.cols());
  const auto& compiled = dynamic_cast<const PreparedModel&>(*prepared.value()).compiled();
  std::printf("%s\n", fmt::format("[utilization] rtl CONV_2D 28x28x128 -> 128, 3x3 on weft16: {} cycles, ideal {:.0f}, "
                                  "utilization {:.1f}% (estimate {:.0f}); {}",
                                  op.cycles, ideal, 100 * ideal / op.cycles, compiled.operations[0].estimatedCycles,
                                  compiled.operations[0].tiling)
                          .c_str());
  EXPECT_GE(static_cast<double>(op.cycles), ideal);
  EXPECT_GT(ideal / op.cycles, 0.90);
}

}  // namespace
}  // namespace weft::accel::test
