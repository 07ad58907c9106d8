// The IDeviceBackend contract, as value-parameterized tests every backend binary instantiates
// (tests/sim/approx_backend_test.cpp, tests/sim/rtl_backend_test.cpp): registers, programs run
// to the interrupt with the functional model's outputs, error halts and soft reset, the
// watchdog path (timeout, hardReset, next program), DRAM bounds.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <thread>
#include <vector>
#include <memory>
#include <string>

#include "weft/sim/backend.h"
#include "weft/sim/testing/programs.h"
#include "weft/sim/testing/ring_driver.h"

namespace weft::sim {

struct BackendCase {
  BackendKind kind;
  std::string name;
  std::string json;  // a configuration file's text; empty: `name` is a named configuration
};

inline std::string caseName(const ::testing::TestParamInfo<BackendCase>& info) {
  return std::string(toString(info.param.kind)) + "_" + info.param.name;
}

inline void PrintTo(const BackendCase& c, std::ostream* os) { *os << toString(c.kind) << "/" << c.name; }

inline hw::HwConfig loadCase(const BackendCase& c) {
  return c.json.empty() ? hw::HwConfig::load(c.name) : hw::HwConfig::fromJson(c.json, c.name);
}

// Cycles any test program here needs, with a wide margin.
inline constexpr uint64_t kProgramBudget = 2'000'000;

class BackendTest : public ::testing::TestWithParam<BackendCase> {
 protected:
  void SetUp() override {
    config = loadCase(GetParam());
    device = createBackend(GetParam().kind, config);
    ring = std::make_unique<testing::RingDriver>(*device, layout.ringBase, layout.ringSize);
    ring->init();
  }

  uint32_t reg(uint32_t addr) { return device->readReg(addr); }
  hw::Error statusError() {
    return static_cast<hw::Error>((reg(hw::reg::kStatus) & hw::reg::kStatusErrorMask) >> hw::reg::kStatusErrorLsb);
  }
  uint64_t snapshotCounter(const testing::Program& p, hw::Counter c) {
    uint64_t v = 0;
    device->readDram(p.snapshotAddr + 8 * (1 + static_cast<size_t>(c)), &v, 8);
    return v;
  }

  // Runs a random program and checks it against the functional model.
  void runRandomProgram(uint32_t seed, unsigned tiles) {
    const auto p = testing::randomProgram(config, seed, tiles, layout);
    testing::writeInputs(*device, p);
    ring->submit(p.commands);
    ASSERT_EQ(ring->runToInterrupt(kProgramBudget), hw::reg::kIrqStatusDoneMask) << "seed " << seed;
    EXPECT_EQ(testing::deviceOutputs(*device, p), testing::functionalOutputs(config, p)) << "seed " << seed;
    uint64_t tag = 0;
    device->readDram(p.snapshotAddr, &tag, 8);
    EXPECT_EQ(tag, seed);
  }

  hw::HwConfig config;
  std::unique_ptr<IDeviceBackend> device;
  testing::ProgramLayout layout;
  std::unique_ptr<testing::RingDriver> ring;
};

TEST_P(BackendTest, IdentityAndConfigurationReadBack) {
  EXPECT_EQ(device->kind(), GetParam().kind);
  EXPECT_EQ(reg(hw::reg::kId), hw::reg::kIdValue);
  EXPECT_EQ(reg(hw::reg::kVersion), hw::reg::kVersionValue);
  for (const auto& r : hw::reg::kRegisters) {
    if (r.param < 0) continue;
    EXPECT_EQ(reg(r.addr), static_cast<uint32_t>(config.get(static_cast<hw::Param>(r.param)))) << r.name;
  }
  EXPECT_EQ(device->dramBytes(), config.dramBytes());
}

TEST_P(BackendTest, RegisterSemantics) {
  using namespace hw::reg;
  device->writeReg(kCtrl, 0);  // nothing fetches while we play with the pointers
  EXPECT_EQ(reg(kCtrl), 0u);
  device->writeReg(kRingBaseLo, 0x12340);
  device->writeReg(kRingBaseHi, 0x5);
  device->writeReg(kRingSize, 77);
  device->writeReg(kRingTail, 3);
  EXPECT_EQ(reg(kRingBaseLo), 0x12340u);
  EXPECT_EQ(reg(kRingBaseHi), 0x5u);
  EXPECT_EQ(reg(kRingSize), 77u);
  EXPECT_EQ(reg(kRingTail), 3u);
  EXPECT_EQ(reg(kRingHead), 0u);  // disabled: nothing fetched
  EXPECT_EQ(reg(kStatus), 0u);
  // Read-only and undefined registers ignore writes; undefined ones read 0.
  device->writeReg(kId, 1);
  device->writeReg(kRingHead, 2);
  device->writeReg(kStatus, 0xffff);
  device->writeReg(0x03c, 5);
  EXPECT_EQ(reg(kId), kIdValue);
  EXPECT_EQ(reg(kRingHead), 0u);
  EXPECT_EQ(reg(kStatus), 0u);
  EXPECT_EQ(reg(0x03c), 0u);
  EXPECT_EQ(reg(0x0fc), 0u);
  device->writeReg(kIrqMask, kIrqStatusDoneMask);
  EXPECT_EQ(reg(kIrqMask), kIrqStatusDoneMask);

  // The counters count every cycle; LO latches, HI returns the latched half.
  const uint64_t c0 = ring->readCounter(hw::Counter::kCycles);
  const uint64_t before = device->cycle();
  const uint64_t c1 = ring->readCounter(hw::Counter::kCycles);
  EXPECT_GT(c1, c0);
  EXPECT_EQ(c1 - c0, device->cycle() - before);  // one LO/HI pair apart
  EXPECT_EQ(reg(hw::counterAddr(hw::Counter::kCycles) + 4), 0u);
  EXPECT_EQ(ring->readCounter(hw::Counter::kCmdsRetired), 0u);
}

TEST_P(BackendTest, InterruptStatusIsWriteOneToClearAndMasked) {
  using namespace hw::reg;
  device->writeReg(kIrqMask, 0);
  hw::BarrierCmd b;
  b.irq = true;
  ring->submit({b.encode()});
  EXPECT_FALSE(device->runUntilInterrupt(5000));  // masked: the line stays low
  EXPECT_EQ(reg(kIrqStatus), kIrqStatusDoneMask);
  device->writeReg(kIrqStatus, kIrqStatusErrorMask);  // a 1 elsewhere clears nothing
  EXPECT_EQ(reg(kIrqStatus), kIrqStatusDoneMask);
  device->writeReg(kIrqMask, kIrqStatusDoneMask);
  const uint64_t at = device->cycle();
  EXPECT_TRUE(device->runUntilInterrupt(5000));  // unmasked: already high, returns at once
  EXPECT_EQ(device->cycle(), at);
  device->writeReg(kIrqStatus, kIrqStatusDoneMask);
  EXPECT_EQ(reg(kIrqStatus), 0u);
  EXPECT_FALSE(device->runUntilInterrupt(100));
}

TEST_P(BackendTest, RandomProgramsRunToTheInterruptWithTheFunctionalOutputs) {
  for (uint32_t seed = 1; seed <= 3; ++seed) runRandomProgram(seed, 4);
  EXPECT_EQ(reg(hw::reg::kStatus), 0u);
  EXPECT_EQ(reg(hw::reg::kRingHead), ring->tail());
}

TEST_P(BackendTest, SnapshotCountersAccountForTheProgram) {
  const auto p = testing::gemmStreamProgram(config, 4, 32, layout);
  testing::writeInputs(*device, p);
  ring->submit(p.commands);
  ASSERT_EQ(ring->runToInterrupt(kProgramBudget), hw::reg::kIrqStatusDoneMask);
  uint64_t rdBytes = hw::kCommandBytes * p.commands.size(), rows = 0, wrBytes = 0;
  for (const auto& c : p.commands) {
    switch (static_cast<hw::Opcode>(c.get(hw::field::kOpcode))) {
      case hw::Opcode::kLoad: {
        const auto l = hw::LoadCmd::decode(c);
        rdBytes += uint64_t{l.rowBytes} * l.count0 * l.count1 * l.count2;
        break;
      }
      case hw::Opcode::kGemm: {
        const auto g = hw::GemmCmd::decode(c);
        rows += uint64_t{g.mRows} * g.mGroups;
        break;
      }
      case hw::Opcode::kStore: {
        const auto s = hw::StoreCmd::decode(c);
        const uint64_t e = hw::columnBytes(s.mode);
        wrBytes += (uint64_t{s.tiles - 1} * config.cols() + s.rowBytes) * e * s.count0 * s.count1;
        break;
      }
      default: break;
    }
  }
  EXPECT_EQ(snapshotCounter(p, hw::Counter::kDmaRdBytes), rdBytes);
  EXPECT_EQ(snapshotCounter(p, hw::Counter::kDmaWrBytes), wrBytes);
  EXPECT_EQ(snapshotCounter(p, hw::Counter::kArrayRows), rows);
  EXPECT_EQ(snapshotCounter(p, hw::Counter::kCmdsRetired), p.commands.size() - 1);
  const uint64_t cycles = snapshotCounter(p, hw::Counter::kCycles);
  EXPECT_GT(cycles, rows);
  EXPECT_LE(cycles, device->cycle());
  EXPECT_LE(snapshotCounter(p, hw::Counter::kBusy), cycles);
  EXPECT_GE(snapshotCounter(p, hw::Counter::kComputeActive), rows);
  EXPECT_GT(snapshotCounter(p, hw::Counter::kLoadActive), 0u);
  EXPECT_GT(snapshotCounter(p, hw::Counter::kStoreActive), 0u);
  // Everything the program read and wrote is counted once the interrupt is taken.
  EXPECT_EQ(ring->readCounter(hw::Counter::kCmdsRetired), p.commands.size());
}

// Each error: a valid command, then the bad one, then a barrier that would raise `done`.
struct ErrorCase {
  const char* name;
  hw::Error error;
  hw::CommandWord (*make)(const hw::HwConfig&);
};

inline const ErrorCase kErrorCases[] = {
    {"opcode", hw::Error::kBadOpcode, [](const hw::HwConfig&) {
       hw::CommandWord c;
       c.set(hw::field::kOpcode, 11);
       return c;
     }},
    {"address", hw::Error::kBadAddress, [](const hw::HwConfig& cfg) {
       hw::LoadCmd l;
       l.dst = hw::Mem::kIn;
       l.rowBytes = 1;
       l.spadAddr = cfg.inSpadRows() - 1;
       l.count0 = 2;
       l.count1 = l.count2 = 1;
       return l.encode();
     }},
    {"length", hw::Error::kBadLength, [](const hw::HwConfig& cfg) {
       hw::GemmCmd g;
       g.kRows = cfg.rows() + 1;
       g.mRows = 1;
       return g.encode();
     }},
    {"value", hw::Error::kBadValue, [](const hw::HwConfig&) {
       hw::LayerNormCmd n;  // an output fraction past 20 bits
       n.count = 1;
       n.lastLanes = 1;
       n.outShift = 21;
       return n.encode();
     }},
};

TEST_P(BackendTest, ErrorsHaltTheControllerUntilSoftReset) {
  using namespace hw::reg;
  for (const ErrorCase& e : kErrorCases) {
    SCOPED_TRACE(e.name);
    hw::LoadCmd ok;
    ok.dst = hw::Mem::kW;
    ok.rowBytes = 1;
    ok.count0 = ok.count1 = ok.count2 = 1;
    hw::BarrierCmd b;
    b.irq = true;
    ring->submit({ok.encode(), e.make(config), b.encode()});
    EXPECT_EQ(ring->runToInterrupt(100000), kIrqStatusErrorMask);
    EXPECT_EQ(statusError(), e.error);
    EXPECT_TRUE(reg(kStatus) & kStatusHaltedMask);
    // Halted: the barrier after the bad command never runs.
    EXPECT_FALSE(device->runUntilInterrupt(2000));
    ring->softReset();
    EXPECT_EQ(reg(kStatus), 0u);
    EXPECT_EQ(reg(kIrqStatus), 0u);
    EXPECT_EQ(reg(kRingHead), 0u);
    runRandomProgram(7, 2);
  }
}

TEST_P(BackendTest, BadRingHalts) {
  using namespace hw::reg;
  device->writeReg(kRingSize, 4);
  device->writeReg(kRingTail, 6);
  EXPECT_EQ(ring->runToInterrupt(10000), kIrqStatusErrorMask);
  EXPECT_EQ(statusError(), hw::Error::kBadRing);
  ring->softReset();
  runRandomProgram(8, 1);
}

TEST_P(BackendTest, WatchdogTimeoutThenHardResetThenTheNextProgramWorks) {
  using namespace hw::reg;
  runRandomProgram(9, 1);
  // A GEMM waiting for a load->compute token no load pushes: the device hangs.
  hw::GemmCmd g;
  g.kRows = 1;
  g.mRows = 1;
  g.header.wait0 = true;
  hw::BarrierCmd b;
  b.irq = true;
  ring->submit({g.encode(), b.encode()});
  const uint64_t before = device->cycle();
  EXPECT_FALSE(device->runUntilInterrupt(20000));
  EXPECT_EQ(device->cycle() - before, 20000u);
  EXPECT_TRUE(reg(kStatus) & kStatusBusyMask);
  EXPECT_GT(ring->readCounter(hw::Counter::kStallComputeToken), 10000u);

  device->hardReset();
  EXPECT_EQ(reg(kCtrl), 0u);
  EXPECT_EQ(reg(kStatus), 0u);
  EXPECT_EQ(reg(kRingTail), 0u);
  EXPECT_LT(ring->readCounter(hw::Counter::kCycles), 1000u);  // counters restart with the reset
  EXPECT_GE(device->cycle(), before + 20000);                  // the backend's clock does not
  ring->init();
  runRandomProgram(10, 3);
}

TEST_P(BackendTest, DramBoundsAreEnforced) {
  const uint64_t size = device->dramBytes();
  uint8_t buf[16] = {1, 2, 3};
  EXPECT_THROW(device->writeDram(size - 8, buf, 16), std::out_of_range);
  EXPECT_THROW(device->readDram(size, buf, 1), std::out_of_range);
  uint8_t last = 0xee;
  device->readDram(size - 1, &last, 1);
  EXPECT_EQ(last, 0);  // the failed write changed nothing

  // The device itself reading past the end: the run reports the fault, a hard reset recovers.
  hw::LoadCmd l;
  l.dst = hw::Mem::kIn;
  l.rowBytes = config.rows();
  l.dramAddr = size - 1;  // rows of at least 2 bytes
  l.count0 = l.count1 = l.count2 = 1;
  hw::BarrierCmd b;
  b.irq = true;
  ring->submit({l.encode(), b.encode()});
  EXPECT_THROW(device->runUntilInterrupt(100000), std::out_of_range);
  device->hardReset();
  ring->init();
  runRandomProgram(11, 2);
}

TEST_P(BackendTest, AnUnboundedRunStopsAtTheInterrupt) {
  const auto p = testing::randomProgram(config, 13, 1, layout);
  testing::writeInputs(*device, p);
  ring->submit(p.commands);
  EXPECT_TRUE(device->runUntilInterrupt(UINT64_MAX));
  EXPECT_LT(device->cycle(), kProgramBudget);
}

TEST_P(BackendTest, CallsFromSeveralThreadsAreSerialized) {
  std::vector<std::thread> threads;
  std::atomic<int> bad{0};
  const uint64_t before = device->cycle();
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 25; ++i) {
        if (device->readReg(hw::reg::kId) != hw::reg::kIdValue) ++bad;
        uint8_t b = 0;
        device->readDram(0, &b, 1);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(device->cycle() - before, 100u);  // a cycle per register access, none lost
}

TEST_P(BackendTest, StatsCountSimulatedCyclesAndTime) {
  const BackendStats s0 = device->stats();
  runRandomProgram(12, 2);
  const BackendStats s1 = device->stats();
  EXPECT_GT(s1.cyclesSimulated, s0.cyclesSimulated);
  EXPECT_GT(s1.wallSeconds, s0.wallSeconds);
  EXPECT_LE(s1.cyclesSimulated, device->cycle());
}

}  // namespace weft::sim
