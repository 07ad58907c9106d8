// The approx backend's engine (approx/engine.h) against the reference agents it was derived from
// (approx/approx_device.h, WEFT_APPROX_ENGINE=reference), which the RTL cross-checks pin: on
// random and streaming programs, at odd configurations, with the data path inline and on its
// own thread, the two must agree exactly: cycles, every counter read through the registers at
// arbitrary cycles mid-run, STATUS and RING_HEAD, snapshots, outputs; also across soft resets
// in the middle of traffic and after errors.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "weft/sim/backend.h"
#include "weft/sim/testing/programs.h"
#include "weft/sim/testing/ring_driver.h"

namespace weft::sim {
namespace {

struct EngineCase {
  std::string name, json;  // json empty: a named configuration
  const char* threads;     // WEFT_APPROX_THREADS
};

std::ostream& operator<<(std::ostream& os, const EngineCase& c) { return os << c.name << "/threads" << c.threads; }

const char* kOdd = R"({"name": "odd", "base": "weft8", "params": {
  "Rows": 4, "Cols": 12, "InSpadRows": 64, "WSpadRows": 16, "AccRows": 64, "ParamRows": 2,
  "BusBytes": 4, "MaxOutstanding": 2, "CmdQueueDepth": 2, "TokenDepth": 2,
  "DramBytesPerCycle": 3, "DramLatencyCycles": 0, "DramBurstBytes": 64, "DramMiB": 16}})";
const char* kOddOs = R"({"name": "oddos", "base": "weft8", "params": {
  "Rows": 5, "Cols": 12, "InSpadRows": 64, "WSpadRows": 16, "AccRows": 64, "ParamRows": 2,
  "BusBytes": 4, "MaxOutstanding": 2, "CmdQueueDepth": 2, "TokenDepth": 2, "Dataflow": "OS",
  "DramBytesPerCycle": 3, "DramLatencyCycles": 0, "DramBurstBytes": 64, "DramMiB": 16}})";
const char* kSlowDram = R"({"name": "slowdram", "base": "weft16", "params": {
  "DramBytesPerCycle": 2, "DramLatencyCycles": 300, "MaxOutstanding": 5, "CmdQueueDepth": 4}})";
const char* kWide = R"({"name": "wide", "base": "weft16", "params": {
  "Rows": 32, "Cols": 24, "BusBytes": 64, "DramBytesPerCycle": 64, "DramLatencyCycles": 20}})";

// One device of each engine, driven by the same calls; every observation must match.
class Pair {
 public:
  Pair(const hw::HwConfig& config, const char* threads) {
    setenv("WEFT_APPROX_THREADS", threads, 1);
    for (int i = 0; i < 2; ++i) {
      setenv("WEFT_APPROX_ENGINE", i == 0 ? "reference" : "flow", 1);
      devices_[i] = createBackend(BackendKind::kApprox, config);
      rings_[i] = std::make_unique<testing::RingDriver>(*devices_[i], layout_.ringBase, layout_.ringSize);
      rings_[i]->init();
    }
    unsetenv("WEFT_APPROX_ENGINE");
    unsetenv("WEFT_APPROX_THREADS");
  }

  template <typename F>
  void both(F f) {
    for (int i = 0; i < 2; ++i) f(*devices_[i], *rings_[i]);
  }

  // Every register the driver can read, read the same way on both (a counter read latches HI).
  void compareRegisters(const std::string& when) {
    std::vector<uint32_t> values[2];
    std::vector<uint32_t> addrs = {hw::reg::kStatus, hw::reg::kRingHead, hw::reg::kRingTail, hw::reg::kIrqStatus,
                                   hw::reg::kCtrl};
    for (size_t c = 0; c < hw::kNumCounters; ++c) {
      addrs.push_back(hw::counterAddr(static_cast<hw::Counter>(c)));
      addrs.push_back(hw::counterAddr(static_cast<hw::Counter>(c)) + 4);
    }
    both([&](IDeviceBackend& d, testing::RingDriver&) {
      auto& v = values[&d == devices_[0].get() ? 0 : 1];
      for (uint32_t a : addrs) v.push_back(d.readReg(a));
    });
    for (size_t i = 0; i < addrs.size(); ++i) {
      EXPECT_EQ(values[1][i], values[0][i]) << when << ": register " << std::hex << addrs[i] << std::dec
                                            << (i >= 5 ? " (" + std::string(hw::kCounterNames[(i - 5) / 2]) + ")" : "");
    }
    EXPECT_EQ(devices_[1]->cycle(), devices_[0]->cycle()) << when;
  }

  void runProgram(const testing::Program& p, const std::string& when, uint64_t cut = 0) {
    both([&](IDeviceBackend& d, testing::RingDriver& r) {
      testing::writeInputs(d, p);
      r.submit(p.commands);
    });
    if (cut > 0) {  // a look in the middle
      both([&](IDeviceBackend& d, testing::RingDriver&) { d.runUntilInterrupt(cut); });
      compareRegisters(when + ", mid-run");
    }
    uint32_t irq[2];
    int i = 0;
    both([&](IDeviceBackend&, testing::RingDriver& r) { irq[i++] = r.runToInterrupt(50'000'000); });
    EXPECT_EQ(irq[1], irq[0]) << when;
    compareRegisters(when + ", at the interrupt");
    std::vector<uint8_t> out[2], snap[2];
    i = 0;
    both([&](IDeviceBackend& d, testing::RingDriver&) {
      out[i] = testing::deviceOutputs(d, p);
      snap[i].resize(hw::kSnapshotBytes);
      d.readDram(p.snapshotAddr, snap[i].data(), snap[i].size());
      ++i;
    });
    EXPECT_EQ(out[1], out[0]) << when << ": outputs";
    EXPECT_EQ(snap[1], snap[0]) << when << ": snapshot record";
  }

  testing::ProgramLayout layout_;

 private:
  std::unique_ptr<IDeviceBackend> devices_[2];
  std::unique_ptr<testing::RingDriver> rings_[2];
};

class ApproxEngines : public ::testing::TestWithParam<EngineCase> {
 protected:
  hw::HwConfig config() const {
    return GetParam().json.empty() ? hw::HwConfig::load(GetParam().name)
                                   : hw::HwConfig::fromJson(GetParam().json, GetParam().name);
  }
};

TEST_P(ApproxEngines, RandomProgramsWithLooksMidRun) {
  const auto cfg = config();
  Pair pair(cfg, GetParam().threads);
  std::mt19937 rng(7);
  for (uint32_t seed = 1; seed <= 24; ++seed) {
    const auto p = testing::randomProgram(cfg, seed, 1 + seed % 5, pair.layout_);
    pair.runProgram(p, "seed " + std::to_string(seed), seed % 3 == 0 ? 0 : 50 + rng() % 3000);
  }
  pair.runProgram(testing::gemmStreamProgram(cfg, 12, 40, pair.layout_), "stream", 2000);
  for (uint32_t seed = 1; seed <= 6; ++seed) {
    const auto p = testing::randomVectorProgram(cfg, seed, 12, seed % 2 == 0, pair.layout_);
    pair.runProgram(p, "vector seed " + std::to_string(seed), seed % 3 == 0 ? 0 : 50 + rng() % 3000);
  }
}

TEST_P(ApproxEngines, SoftResetsMidTraffic) {
  const auto cfg = config();
  Pair pair(cfg, GetParam().threads);
  std::mt19937 rng(11);
  for (int round = 0; round < 8; ++round) {
    const auto stream = testing::gemmStreamProgram(cfg, 6, 48, pair.layout_);
    const uint64_t cut = 20 + rng() % 4000;
    pair.both([&](IDeviceBackend& d, testing::RingDriver& r) {
      testing::writeInputs(d, stream);
      r.submit(stream.commands);
      d.runUntilInterrupt(cut);
    });
    pair.compareRegisters("round " + std::to_string(round) + " before the reset");
    pair.both([&](IDeviceBackend&, testing::RingDriver& r) { r.softReset(); });
    pair.compareRegisters("round " + std::to_string(round) + " after the reset");
    pair.runProgram(testing::randomProgram(cfg, 100 + round, 3, pair.layout_), "after reset " + std::to_string(round),
                    round % 2 ? 100 : 0);
  }
}

TEST_P(ApproxEngines, ErrorsHaltThenSoftResetRecovers) {
  const auto cfg = config();
  Pair pair(cfg, GetParam().threads);
  const auto p = testing::randomProgram(cfg, 5, 3, pair.layout_);
  auto commands = p.commands;
  hw::GemmCmd bad;
  bad.kRows = 0;  // bad_length, halfway through
  commands.insert(commands.begin() + commands.size() / 2, bad.encode());
  pair.both([&](IDeviceBackend& d, testing::RingDriver& r) {
    testing::writeInputs(d, p);
    r.submit(commands);
    r.runToInterrupt(10'000'000);
  });
  pair.compareRegisters("halted");
  pair.both([&](IDeviceBackend& d, testing::RingDriver& r) {
    d.runUntilInterrupt(5000);  // commands dispatched before it run to completion
    r.softReset();
  });
  pair.compareRegisters("after the soft reset");
  pair.runProgram(testing::randomProgram(cfg, 6, 2, pair.layout_), "after the error");
}

INSTANTIATE_TEST_SUITE_P(Configs, ApproxEngines,
                         ::testing::Values(EngineCase{"weft8", "", "1"}, EngineCase{"weft16", "", "2"},
                                           EngineCase{"odd", kOdd, "2"}, EngineCase{"slowdram", kSlowDram, "1"},
                                           EngineCase{"wide", kWide, "2"}, EngineCase{"weft16os", "", "2"},
                                           EngineCase{"oddos", kOddOs, "1"}),
                         [](const auto& info) { return info.param.name + "_threads" + info.param.threads; });

}  // namespace
}  // namespace weft::sim
