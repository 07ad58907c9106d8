// Timing semantics (DESIGN.md "Timing"): ON_HARDWARE is the BUSY cycles of the execution times
// the clock period; IN_DRIVER is the driver's host time without the simulator's, plus the
// modeled register and interrupt costs, plus ON_HARDWARE; no timing when not measured; the
// per-operation profile adds up.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>

#include "../../driver/accel/Device.h"
#include "AccelTestUtil.h"
#include "weft/accel/AcceleratorDevice.h"
#include "WrappedBackend.h"

namespace weft::accel::test {
namespace {

// A two-layer model: CONV_2D (SAME, its output kept with a halo for nobody) then FULLY_CONNECTED.
OpModel twoLayerModel(std::mt19937& rng) {
  ConvCase c;
  c.height = 6;
  c.width = 5;
  c.inChannels = 3;
  c.outChannels = 10;
  c.implicitPadding = true;
  c.in = {nn::OperandType::TENSOR_QUANT8_ASYMM, 0.5f, 127};
  c.filter = {nn::OperandType::TENSOR_QUANT8_ASYMM, 0.25f, 130};
  c.out = {nn::OperandType::TENSOR_QUANT8_ASYMM, 8.0f, 120};
  OpModel conv = makeConvModel(c, rng);
  // Append an FC over the conv output [1, 6, 5, 10] -> [1, 7].
  ModelBuilder b;
  nn::Model m = conv.model;
  const uint32_t convOut = m.main.outputIndexes[0];
  m.main.operands[convOut].lifetime = nn::Operand::LifeTime::TEMPORARY_VARIABLE;
  m.main.operands[convOut].dimensions = {1, 6, 5, 10};
  m.main.outputIndexes.clear();
  std::vector<uint8_t> w(7 * 300);
  for (auto& x : w) x = static_cast<uint8_t>(rng());
  std::vector<int32_t> bias(7, 1000);
  auto addConstant = [&](nn::OperandType t, nn::Dimensions d, const void* p, size_t n, float s, int32_t z) {
    nn::Operand o;
    o.type = t;
    o.dimensions = std::move(d);
    o.scale = s;
    o.zeroPoint = z;
    o.lifetime = nn::Operand::LifeTime::CONSTANT_COPY;
    while (m.operandValues.size() % 4) m.operandValues.push_back(0);
    o.location.offset = static_cast<uint32_t>(m.operandValues.size());
    o.location.length = static_cast<uint32_t>(n);
    m.operandValues.insert(m.operandValues.end(), static_cast<const uint8_t*>(p), static_cast<const uint8_t*>(p) + n);
    m.main.operands.push_back(o);
    return static_cast<uint32_t>(m.main.operands.size() - 1);
  };
  const uint32_t wi = addConstant(nn::OperandType::TENSOR_QUANT8_ASYMM, {7, 300}, w.data(), w.size(), 0.1f, 128);
  const uint32_t bi = addConstant(nn::OperandType::TENSOR_INT32, {7}, bias.data(), 28, 8.0f * 0.1f, 0);
  const int32_t act = 1;
  const uint32_t ai = addConstant(nn::OperandType::INT32, {}, &act, 4, 0, 0);
  nn::Operand out;
  out.type = nn::OperandType::TENSOR_QUANT8_ASYMM;
  out.dimensions = {1, 7};
  out.scale = 16.0f;
  out.zeroPoint = 3;
  out.lifetime = nn::Operand::LifeTime::SUBGRAPH_OUTPUT;
  m.main.operands.push_back(out);
  const uint32_t oi = static_cast<uint32_t>(m.main.operands.size() - 1);
  m.main.outputIndexes.push_back(oi);
  m.main.operations.push_back({nn::OperationType::FULLY_CONNECTED, {convOut, wi, bi, ai}, {oi}});
  OpModel r;
  r.model = m;
  r.inputs = conv.inputs;
  r.outputBytes = {7};
  return r;
}

struct Fixture {
  WrappedBackend* backend = nullptr;
  std::shared_ptr<const Device> device;
};

Fixture makeDevice(const hw::HwConfig& config) {
  auto wrapped = std::make_unique<WrappedBackend>(sim::createBackend(sim::BackendKind::kApprox, config));
  Fixture f;
  f.backend = wrapped.get();
  auto d = Device::create(std::move(wrapped));
  if (!d.ok()) throw std::runtime_error(d.error().message);
  f.device = d.value();
  return f;
}

TEST(Timing, OnHardwareIsTheBusyCyclesTimesTheClockPeriod) {
  for (int64_t mhz : {1000, 400}) {
    const auto config = hw::HwConfig::load("weft8").with(hw::Param::kClockMHz, mhz);
    Fixture f = makeDevice(config);
    std::mt19937 rng(1);
    const OpModel m = twoLayerModel(rng);
    auto prepared = prepare(*f.device, m.model);
    ASSERT_TRUE(prepared.ok()) << prepared.error().message;
    // The BUSY counter read around the execution, independently of the driver.
    auto& queue = *f.device->queue();
    const uint64_t busy0 = queue.readCounter(hw::Counter::kBusy);
    auto run = runOnPrepared(*prepared.value(), m);
    ASSERT_TRUE(run.ok()) << run.error().message;
    const uint64_t busy1 = queue.readCounter(hw::Counter::kBusy);
    const auto& e = *run.value().execution;
    const uint64_t cycles = busy1 - busy0;
    ASSERT_GT(cycles, 0u);
    EXPECT_EQ(e.profile.deviceCycles, cycles);
    EXPECT_EQ(e.timing.timeOnDeviceNs, static_cast<uint64_t>(std::llround(cycles * 1000.0 / mhz)));
    EXPECT_LE(e.timing.timeOnDeviceNs, e.timing.timeInDriverNs);
  }
}

// The timing backend has no data path: the same cycles as approx, and no tensor moves between
// host and device, so the output buffers keep what they held (makeRequest fills them with 0xEE).
TEST(Timing, TheTimingBackendMovesNoTensorData) {
  std::mt19937 rng(3);
  const OpModel m = twoLayerModel(rng);
  auto runOn = [&](sim::BackendKind kind) {
    auto device = deviceOn(sim::createBackend(kind, hw::HwConfig::load("weft8")));
    auto prepared = prepare(*device, m.model);
    EXPECT_TRUE(prepared.ok());
    auto run = runOnPrepared(*prepared.value(), m);
    EXPECT_TRUE(run.ok()) << run.error().message;
    return std::move(run).value();
  };
  const RunResult approx = runOn(sim::BackendKind::kApprox);
  const RunResult timing = runOn(sim::BackendKind::kTiming);
  EXPECT_EQ(timing.execution->profile.deviceCycles, approx.execution->profile.deviceCycles);
  ASSERT_EQ(timing.outputs.size(), 1u);
  EXPECT_TRUE(std::all_of(timing.outputs[0].begin(), timing.outputs[0].end(), [](uint8_t b) { return b == 0xEE; }));
  EXPECT_FALSE(std::all_of(approx.outputs[0].begin(), approx.outputs[0].end(), [](uint8_t b) { return b == 0xEE; }));
}

TEST(Timing, InDriverIsHostTimePlusModeledInteractionPlusOnHardware) {
  const auto config = hw::HwConfig::load("weft8");
  Fixture f = makeDevice(config);
  std::mt19937 rng(2);
  const OpModel m = twoLayerModel(rng);
  auto prepared = prepare(*f.device, m.model);
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  auto run = runOnPrepared(*prepared.value(), m);
  ASSERT_TRUE(run.ok()) << run.error().message;
  const auto& p = run.value().execution->profile;
  const auto& t = run.value().execution->timing;
  EXPECT_EQ(p.interrupts, 1u);
  EXPECT_GT(p.registerAccesses, 0u);
  EXPECT_EQ(p.deviceInteractionNs, p.registerAccesses * config.get(hw::Param::kRegAccessNs) +
                                       p.interrupts * config.get(hw::Param::kIrqLatencyNs));
  EXPECT_EQ(p.inDriverNs, p.driverHostNs + p.deviceInteractionNs + p.onHardwareNs);
  EXPECT_EQ(t.timeInDriverNs, p.inDriverNs);
  EXPECT_EQ(t.timeOnDeviceNs, p.onHardwareNs);
}

TEST(Timing, TheSimulatorsWallTimeIsNotDriverTime) {
  Fixture f = makeDevice(hw::HwConfig::load("weft8"));
  f.backend->addSimulatorDelay(std::chrono::milliseconds(200));
  std::mt19937 rng(3);
  const OpModel m = twoLayerModel(rng);
  auto prepared = prepare(*f.device, m.model);
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  const auto start = std::chrono::steady_clock::now();
  auto run = runOnPrepared(*prepared.value(), m);
  const auto wall = std::chrono::steady_clock::now() - start;
  ASSERT_TRUE(run.ok()) << run.error().message;
  const auto& p = run.value().execution->profile;
  EXPECT_GE(wall, std::chrono::milliseconds(200));
  EXPECT_LT(p.driverHostNs, 200'000'000u) << "the simulator's 200 ms were counted as driver time";
  EXPECT_LT(run.value().execution->timing.timeInDriverNs, 200'000'000u);
}

// weft run's progress display reads every layer's snapshot tag between simulation slices; that
// is the observer's time, not the driver's (it was 11 ms of a MobileNet execution on the RTL).
TEST(Timing, TheProgressDisplaysTimeIsNotDriverTime) {
  Fixture f = makeDevice(hw::HwConfig::load("weft8"));
  std::mt19937 rng(4);
  const OpModel m = twoLayerModel(rng);
  auto prepared = prepare(*f.device, m.model);
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  int calls = 0;
  setProgressListener([&calls](const DeviceProgress&) {
    ++calls;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  });
  auto run = runOnPrepared(*prepared.value(), m);
  setProgressListener({});
  ASSERT_TRUE(run.ok()) << run.error().message;
  ASSERT_GE(calls, 1) << "the listener is told at least of the end";
  const auto& p = run.value().execution->profile;
  EXPECT_LT(p.driverHostNs, 200'000'000u) << "the listener's 200 ms were counted as driver time";
  EXPECT_LT(run.value().execution->timing.timeInDriverNs, 200'000'000u);
}

TEST(Timing, NotMeasuredMeansNoTiming) {
  auto device = approxDevice("weft8");
  std::mt19937 rng(4);
  const OpModel m = twoLayerModel(rng);
  auto prepared = prepare(*device, m.model);
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  auto run = runOnPrepared(*prepared.value(), m, nn::MeasureTiming::NO);
  ASSERT_TRUE(run.ok()) << run.error().message;
  EXPECT_EQ(run.value().execution->timing.timeOnDeviceNs, nn::kNoTiming);
  EXPECT_EQ(run.value().execution->timing.timeInDriverNs, nn::kNoTiming);
}

TEST(Timing, PerOperationProfileAddsUpToTheExecution) {
  const auto config = hw::HwConfig::load("weft8");
  auto device = approxDevice("weft8");
  std::mt19937 rng(5);
  const OpModel m = twoLayerModel(rng);
  auto cpu = runOnCpu(m);
  ASSERT_TRUE(cpu.ok()) << cpu.error().message;
  auto prepared = prepare(*device, m.model);
  ASSERT_TRUE(prepared.ok()) << prepared.error().message;
  auto run = runOnPrepared(*prepared.value(), m);
  ASSERT_TRUE(run.ok()) << run.error().message;
  EXPECT_EQ(firstMismatch(run.value().outputs[0], cpu.value().outputs[0]), -1);
  const auto& p = run.value().execution->profile;
  ASSERT_EQ(p.operations.size(), 2u);
  EXPECT_EQ(p.device, "weft-accel");
  EXPECT_EQ(p.backend, "approx");
  EXPECT_EQ(p.operations[0].type, nn::OperationType::CONV_2D);
  EXPECT_EQ(p.operations[1].type, nn::OperationType::FULLY_CONNECTED);
  EXPECT_EQ(p.operations[0].macs, 6u * 5 * 10 * 9 * 3);
  EXPECT_EQ(p.operations[1].macs, 7u * 300);
  uint64_t sum = 0;
  for (const auto& op : p.operations) {
    sum += op.cycles;
    EXPECT_GT(op.cycles, 0u);
    EXPECT_EQ(op.onHardwareNs, static_cast<uint64_t>(std::llround(op.cycles * config.cyclePeriodNs())));
    EXPECT_GE(op.inDriverNs, op.onHardwareNs);
    EXPECT_GT(op.dramReadBytes, 0u);
    EXPECT_GT(op.dramWriteBytes, 0u);
    ASSERT_EQ(op.counters.size(), hw::kNumCounters);
    EXPECT_EQ(op.counters[static_cast<size_t>(hw::Counter::kBusy)].first, "BUSY");
    EXPECT_EQ(op.counters[static_cast<size_t>(hw::Counter::kBusy)].second, op.cycles);
  }
  EXPECT_EQ(sum + p.overheadCycles, p.deviceCycles);
  EXPECT_LT(p.overheadCycles, p.deviceCycles / 2);
  EXPECT_GT(p.simulatedCycles, 0u);
  EXPECT_GT(p.simulatorWallSeconds, 0.0);
}

}  // namespace
}  // namespace weft::accel::test
