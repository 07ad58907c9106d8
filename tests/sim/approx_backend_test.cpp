// The approx backend: the IDeviceBackend contract at both named configurations and at an odd
// one no RTL build exists for, then the timing model's first-order behaviour.
#include <fmt/format.h>

#include "backend_suite.h"
#include "weft/sim/functional_model.h"

namespace weft::sim {
namespace {

// Small everything, non-power-of-two array, narrow bus, a slow DRAM with wide bursts and no
// latency: a configuration only the approximate model can run without a Verilator build.
const char* kOddConfig = R"({"name": "odd", "base": "weft8", "params": {
  "Rows": 4, "Cols": 12, "InSpadRows": 64, "WSpadRows": 16, "AccRows": 64, "ParamRows": 2,
  "BusBytes": 4, "MaxOutstanding": 2, "CmdQueueDepth": 2, "TokenDepth": 2,
  "DramBytesPerCycle": 3, "DramLatencyCycles": 0, "DramBurstBytes": 64, "DramMiB": 16}})";

INSTANTIATE_TEST_SUITE_P(Approx, BackendTest,
                         ::testing::Values(BackendCase{BackendKind::kApprox, "weft8", ""},
                                           BackendCase{BackendKind::kApprox, "weft16", ""},
                                           BackendCase{BackendKind::kApprox, "odd", kOddConfig}),
                         caseName);

// Runs a program on a fresh approx device of `config`; returns the snapshot's counters.
CounterValues runOn(const hw::HwConfig& config, const testing::Program& p) {
  auto device = createBackend(BackendKind::kApprox, config);
  testing::ProgramLayout layout;
  testing::RingDriver ring(*device, layout.ringBase, layout.ringSize);
  ring.init();
  testing::writeInputs(*device, p);
  ring.submit(p.commands);
  EXPECT_EQ(ring.runToInterrupt(100'000'000), hw::reg::kIrqStatusDoneMask);
  CounterValues v;
  device->readDram(p.snapshotAddr + 8, v.data(), sizeof(v));
  return v;
}

uint64_t at(const CounterValues& v, hw::Counter c) { return v[static_cast<size_t>(c)]; }

TEST(ApproxTiming, DramBandwidthBoundsAStreamingProgram) {
  const auto cfg = hw::HwConfig::load("weft16");
  const auto p = testing::gemmStreamProgram(cfg, 8, 256);
  const auto fast = runOn(cfg, p);
  const auto slow = runOn(cfg.with("DramBytesPerCycle", 4), p);
  // Loads of 16-byte rows cost a 32-byte burst each: 2 cycles at 16 B/cycle, 8 at 4 B/cycle.
  uint64_t requests = at(fast, hw::Counter::kDmaRdReqs) + at(fast, hw::Counter::kDmaWrReqs);
  EXPECT_GE(at(fast, hw::Counter::kCycles), 2 * requests);
  EXPECT_GE(at(slow, hw::Counter::kCycles), 8 * requests);
  // At 16 B/cycle the loads are bound by MaxOutstanding x latency, not bandwidth.
  EXPECT_GT(at(slow, hw::Counter::kCycles), 2 * at(fast, hw::Counter::kCycles));
}

TEST(ApproxTiming, LatencyAddsToALoneRequest) {
  const auto cfg = hw::HwConfig::load("weft8");
  testing::Program p;
  hw::LoadCmd l;
  l.dst = hw::Mem::kIn;
  l.rowBytes = 8;
  l.count0 = l.count1 = l.count2 = 1;
  hw::BarrierCmd b;
  b.irq = true;
  b.snapshot = true;
  b.dramAddr = p.snapshotAddr = 1 << 20;
  p.commands = {l.encode(), b.encode()};
  const uint64_t base = at(runOn(cfg, p), hw::Counter::kCycles);
  const uint64_t later = at(runOn(cfg.with("DramLatencyCycles", 1100), p), hw::Counter::kCycles);
  // The two fetches overlap; the load waits for its fetch, then for its own data.
  EXPECT_GE(later - base, 2 * 1000u);
  EXPECT_LE(later - base, 3 * 1000u);
}

TEST(ApproxTiming, DoubleBufferingOverlapsTheUnits) {
  const auto cfg = hw::HwConfig::load("weft16");
  const auto v = runOn(cfg, testing::gemmStreamProgram(cfg, 8, 256));
  const uint64_t active = at(v, hw::Counter::kLoadActive) + at(v, hw::Counter::kComputeActive) +
                          at(v, hw::Counter::kStoreActive);
  EXPECT_GT(active, at(v, hw::Counter::kBusy) * 5 / 4);
  EXPECT_LE(at(v, hw::Counter::kBusy), at(v, hw::Counter::kCycles));
}

TEST(ApproxTiming, KeptWeightsStreamAtOneRowPerCycle) {
  const auto cfg = hw::HwConfig::load("weft16");
  testing::Program p;
  hw::LoadCmd l;
  l.dst = hw::Mem::kW;
  l.rowBytes = 16;
  l.stride0 = 16;
  l.count0 = 16;
  l.count1 = l.count2 = 1;
  l.header.signal1 = true;
  p.commands.push_back(l.encode());
  for (int i = 0; i < 20; ++i) {
    hw::GemmCmd g;
    g.kRows = 16;
    g.mRows = 1024;
    g.keepWeights = i > 0;
    g.accumulate = i > 0;
    g.header.wait0 = i == 0;
    p.commands.push_back(g.encode());
  }
  hw::BarrierCmd b;
  b.irq = true;
  b.snapshot = true;
  b.dramAddr = p.snapshotAddr = 1 << 20;
  p.commands.push_back(b.encode());
  const auto v = runOn(cfg, p);
  EXPECT_EQ(at(v, hw::Counter::kArrayRows), 20u * 1024);
  EXPECT_GT(at(v, hw::Counter::kArrayRows) * 100, at(v, hw::Counter::kCycles) * 90);
}

// rtl/README.md's per-unit formulas (pinned against the RTL by tests/rtl/rtl_timing_test.cpp
// at weft8 and weft16) hold in the model at configurations no RTL build exists for. DRAM:
// latency L, wide enough that a small request holds the channel one cycle.
class ApproxFormulas : public ::testing::TestWithParam<const char*> {
 protected:
  static constexpr uint32_t kLatency = 23;
  hw::HwConfig config = hw::HwConfig::fromJson(GetParam(), "formula")
                            .with("DramLatencyCycles", kLatency).with("DramBytesPerCycle", 64).with("DramBurstBytes", 64);

  uint64_t activeDelta(const std::vector<hw::CommandWord>& cmds, hw::Counter c) {
    testing::Program p;
    p.commands = cmds;
    hw::BarrierCmd b;
    b.irq = true;
    b.snapshot = true;
    b.dramAddr = p.snapshotAddr = 1 << 20;
    p.commands.push_back(b.encode());
    return at(runOn(config, p), c);
  }
};

TEST_P(ApproxFormulas, LoneGemmTakesRowsPlusRowsPlusColsPlusOne) {
  const unsigned R = config.rows(), C = config.cols();
  for (uint32_t m : {1u, 9u, 33u}) {
    hw::GemmCmd g;
    g.kRows = R;
    g.mRows = m;
    EXPECT_EQ(activeDelta({g.encode()}, hw::Counter::kComputeActive), m + R + C + 1) << "m " << m;
  }
}

TEST_P(ApproxFormulas, LoneLoadOfSingleRowRequestsTakesRowsPlusLatencyPlusOne) {
  // Isolated: the program's fetch may still hold one of the MaxOutstanding read slots.
  const uint32_t n = std::min<uint32_t>(3, static_cast<uint32_t>(config.get(hw::Param::kMaxOutstanding)) - 1);
  hw::LoadCmd l;
  l.dst = hw::Mem::kIn;
  l.rowBytes = 1;
  l.stride0 = 3;  // not contiguous: a request per row
  l.count0 = n;
  l.count1 = l.count2 = 1;
  EXPECT_EQ(activeDelta({l.encode()}, hw::Counter::kLoadActive), n + kLatency + 1);
}

TEST_P(ApproxFormulas, LoneStoreOfSingleBeatRowsTakesRowsPlusFivePlusLatency) {
  hw::StoreCmd s;
  s.mode = hw::StoreMode::kRequant8;
  s.rowBytes = std::min(config.cols(), config.busBytes());
  s.stride0 = 64;
  s.count0 = 10;
  s.count1 = 1;
  EXPECT_EQ(activeDelta({s.encode()}, hw::Counter::kStoreActive), 10 + 5 + kLatency);
}

INSTANTIATE_TEST_SUITE_P(Approx, ApproxFormulas, ::testing::Values(kOddConfig, R"({"name": "wide", "base": "weft16",
  "params": {"Rows": 32, "Cols": 24, "BusBytes": 64, "MaxOutstanding": 5}})", R"({"name": "narrow", "base": "weft8",
  "params": {"Rows": 3, "Cols": 40, "BusBytes": 8, "CmdQueueDepth": 4}})"));

// The timing backend is the approx engine without its data path: the same interrupts, cycles,
// counters and snapshot records on every program, while no command writes a byte of output.
struct TimingRun {
  uint32_t irq = 0;
  uint64_t cycle = 0;
  std::vector<uint32_t> registers;
  std::vector<uint8_t> outputs, snapshot;
};
TimingRun runTimed(BackendKind kind, const hw::HwConfig& config, const testing::Program& p) {
  auto device = createBackend(kind, config);
  EXPECT_EQ(device->kind(), kind);
  testing::ProgramLayout layout;
  testing::RingDriver ring(*device, layout.ringBase, layout.ringSize);
  ring.init();
  testing::writeInputs(*device, p);
  ring.submit(p.commands);
  TimingRun r;
  r.irq = ring.runToInterrupt(100'000'000);
  r.cycle = device->cycle();
  for (size_t c = 0; c < hw::kNumCounters; ++c) {
    r.registers.push_back(device->readReg(hw::counterAddr(static_cast<hw::Counter>(c))));
    r.registers.push_back(device->readReg(hw::counterAddr(static_cast<hw::Counter>(c)) + 4));
  }
  r.registers.push_back(device->readReg(hw::reg::kStatus));
  r.outputs = testing::deviceOutputs(*device, p);
  r.snapshot.resize(hw::kSnapshotBytes);
  device->readDram(p.snapshotAddr, r.snapshot.data(), r.snapshot.size());
  return r;
}

TEST(TimingBackend, SameTimingCountersAndSnapshotsAsApproxButNoOutputs) {
  for (const char* name : {"weft8", "weft16"}) {
    const hw::HwConfig config = hw::HwConfig::load(name);
    for (uint32_t seed = 1; seed <= 4; ++seed) {
      const testing::Program gemms = testing::randomProgram(config, seed, 3);
      const testing::Program vector = testing::randomVectorProgram(config, seed, 20, /*withGemms=*/true);
      for (const testing::Program* p : {&gemms, &vector}) {
        SCOPED_TRACE(fmt::format("{} seed {} {}", name, seed, p == &gemms ? "gemm program" : "vector program"));
        const TimingRun approx = runTimed(BackendKind::kApprox, config, *p);
        const TimingRun timing = runTimed(BackendKind::kTiming, config, *p);
        EXPECT_EQ(approx.irq, hw::reg::kIrqStatusDoneMask);
        EXPECT_EQ(timing.irq, approx.irq);
        EXPECT_EQ(timing.cycle, approx.cycle);
        EXPECT_EQ(timing.registers, approx.registers);
        EXPECT_EQ(timing.snapshot, approx.snapshot);
        EXPECT_NE(approx.outputs, std::vector<uint8_t>(approx.outputs.size(), 0));
        EXPECT_EQ(timing.outputs, std::vector<uint8_t>(timing.outputs.size(), 0)) << "a command wrote data";
      }
    }
  }
}

TEST(TimingBackend, IsNamedAndRunsOnTheFlowEngineOnly) {
  EXPECT_EQ(parseBackendKind("timing"), BackendKind::kTiming);
  EXPECT_EQ(toString(BackendKind::kTiming), "timing");
  try {
    (void)parseBackendKind("fast");
    FAIL() << "an unknown backend was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("rtl, approx, timing"), std::string::npos) << e.what();
  }
  setenv("WEFT_APPROX_ENGINE", "reference", 1);
  EXPECT_THROW((void)createBackend(BackendKind::kTiming, hw::HwConfig::load("weft8")), std::invalid_argument);
  unsetenv("WEFT_APPROX_ENGINE");
}

}  // namespace
}  // namespace weft::sim
