// The SystemC harness's mechanics, with a small fake in place of the RTL: register accesses
// over TLM with annotated delays, DRAM requests forwarded through the DRAM target and timed
// by the DRAM model, the interrupt, runs bounded by cycles, one sync per quantum, faults.
//
// SystemC elaborates once per process, so every test shares one elaboration (made on first
// use) and leaves the fake idle: the binary passes run whole or one test per process.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#include "weft/sim/harness/dram_target.h"
#include "weft/sim/harness/host_port.h"
#include "weft/sim/harness/rtl_harness.h"

namespace weft::sim {
namespace {

// The one-pipe DRAM (Dram "simple") of these rates; the cycle-level device's fields stay unset.
DramTiming simpleTiming(uint32_t bytesPerCycle, uint32_t latencyCycles, uint32_t burstBytes) {
  DramTiming t;
  t.bytesPerCycle = bytesPerCycle, t.latencyCycles = latencyCycles, t.burstBytes = burstBytes;
  return t;
}

// A job engine: writing N to kStart reads 64 bytes at kSrc, waits N cycles after the data's
// first beat, writes the first 16 of them to kDst and raises the interrupt on the write's
// acknowledgement. Register reads take 2 cycles, writes 1, as on weft_top's bus.
class FakeDevice final : public ClockedDevice {
 public:
  static constexpr uint32_t kId = 0x0, kStart = 0x10, kSrc = 0x14, kDst = 0x18, kIrq = 0x1c;

  explicit FakeDevice(IDramPort& dram) : dram_(dram) {}

  uint64_t cycle() const override { return cycle_; }
  bool irq() const override { return irq_; }

  uint64_t run(uint64_t maxCycles) override {
    ++batches;
    uint64_t n = 0;
    for (; n < maxCycles && !irq_; ++n) tick();
    return n;
  }
  void step(uint64_t cycles) override {
    for (uint64_t i = 0; i < cycles; ++i) tick();
  }

  uint32_t readReg(uint32_t addr) override {
    step(2);
    return addr == kId ? 0x57454654 : addr == kIrq ? irq_ : 0;
  }

  void writeReg(uint32_t addr, uint32_t value) override {
    step(1);
    if (addr == kSrc) src_ = value;
    if (addr == kDst) dst_ = value;
    if (addr == kIrq && (value & 1)) irq_ = false;
    if (addr == kStart) {
      wait_ = value;
      phase_ = Phase::kIssueRead;
    }
  }

  void reset() override {
    phase_ = Phase::kIdle;
    irq_ = false;
    step(4);
  }

  // What happened, for the assertions.
  uint64_t readIssue = 0, readReady = 0, writeIssue = 0, writeAck = 0;
  uint64_t batches = 0;

 private:
  enum class Phase { kIdle, kIssueRead, kWaitData, kWaitAck };
  void tick() {
    clock();
    ++cycle_;
  }
  void clock() {
    switch (phase_) {
      case Phase::kIssueRead:
        readIssue = cycle_;
        readReady = dram_.read(src_, data_, 64, cycle_);
        writeIssue = readReady + wait_;
        phase_ = Phase::kWaitData;
        break;
      case Phase::kWaitData:
        if (cycle_ == writeIssue) {
          writeAck = dram_.write(dst_, data_, 16, cycle_);
          phase_ = Phase::kWaitAck;
        }
        break;
      case Phase::kWaitAck:
        if (cycle_ == writeAck) {
          irq_ = true;
          phase_ = Phase::kIdle;
        }
        break;
      case Phase::kIdle:
        break;
    }
  }

  IDramPort& dram_;
  uint64_t cycle_ = 0;
  bool irq_ = false;
  Phase phase_ = Phase::kIdle;
  uint32_t src_ = 0, dst_ = 0, wait_ = 0;
  uint8_t data_[64] = {};
};

constexpr uint64_t kQuantum = 1000;
constexpr uint32_t kLatency = 50;

// The elaborated system: DRAM target, harness around the fake, host port, irq wire.
struct System {
  ClockMap clock;
  DramStorage storage{1 << 20};
  DramModel dram{storage, simpleTiming(16, kLatency, 32)};
  sc_core::sc_signal<bool> irq{"irq"};
  DramTarget target{"dram", dram, clock};
  FakeDevice* fake = nullptr;
  RtlHarness harness{"harness",
                     [this](IDramPort& port) {
                       auto d = std::make_unique<FakeDevice>(port);
                       fake = d.get();
                       return d;
                     },
                     clock, kQuantum};
  HostPort host{"host", harness};

  System() {
    clock.rebase(sc_core::SC_ZERO_TIME, 0, ClockMap::periodOf(250));  // 4 ns
    harness.dramSocket.bind(target.socket);
    host.socket.bind(harness.regSocket);
    harness.irq_o(irq);
    host.irq_i(irq);
  }
};

System& sys() {
  static System* s = [] {
    setenv("SC_COPYRIGHT_MESSAGE", "DISABLE", 1);
    return new System;  // SystemC modules live as long as the process
  }();
  return *s;
}

// Runs a host operation; its error (call() returns it rather than throwing) is thrown here.
void call(System& s, const std::function<void()>& op) {
  if (auto error = s.host.call(op)) std::rethrow_exception(error);
}

// SystemC time and the device's cycles agree whenever the host has control.
void expectInSync() {
  EXPECT_EQ(sc_core::sc_time_stamp(), sys().clock.timeOf(sys().fake->cycle()));
}

TEST(RtlHarness, RegisterAccessesTakeTheirBusCyclesInSimulatedTime) {
  System& s = sys();
  uint32_t id = 0;
  const uint64_t c0 = s.fake->cycle();
  call(s, [&] { id = s.host.readReg(FakeDevice::kId); });
  EXPECT_EQ(id, 0x57454654u);
  EXPECT_EQ(s.fake->cycle() - c0, 2u);
  expectInSync();
  call(s, [&] { s.host.writeReg(0x20, 1); });
  EXPECT_EQ(s.fake->cycle() - c0, 3u);
  expectInSync();
  EXPECT_THROW(call(s, [&] { s.host.readReg(4096); }), std::invalid_argument);
}

TEST(RtlHarness, ClockPeriodComesFromClockMHz) {
  System& s = sys();
  const sc_core::sc_time t0 = sc_core::sc_time_stamp();
  call(s, [&] { s.host.runUntilInterrupt(1000); });
  EXPECT_EQ(sc_core::sc_time_stamp() - t0, sc_core::sc_time(4000, sc_core::SC_NS));
}

TEST(RtlHarness, RunsStopAfterMaxCyclesWithOneSyncPerQuantum) {
  System& s = sys();
  const uint64_t c0 = s.fake->cycle();
  const uint64_t batches0 = s.fake->batches;
  bool irq = true;
  call(s, [&] { irq = s.host.runUntilInterrupt(100'000); });
  EXPECT_FALSE(irq);
  EXPECT_EQ(s.fake->cycle() - c0, 100'000u);
  expectInSync();
  // Batches end at quantum boundaries: 100 quanta, plus one for the unaligned start.
  EXPECT_LE(s.fake->batches - batches0, 100'000 / kQuantum + 1);
}

TEST(RtlHarness, DramRequestsAreTimedByTheDramModelThroughTlm) {
  System& s = sys();
  for (int i = 0; i < 64; ++i) s.storage.data()[0x1000 + i] = static_cast<uint8_t>(i + 1);
  bool irq = false;
  call(s, [&] {
    s.host.writeReg(FakeDevice::kSrc, 0x1000);
    s.host.writeReg(FakeDevice::kDst, 0x2000);
    s.host.writeReg(FakeDevice::kStart, 30);
    irq = s.host.runUntilInterrupt(10'000);
  });
  ASSERT_TRUE(irq);
  FakeDevice& f = *s.fake;
  // Idle channel: first beat after the latency; the write waits 30 cycles, then its
  // acknowledgement comes after the latency again (64 bytes held the channel 4 cycles only).
  EXPECT_EQ(f.readReady, f.readIssue + kLatency);
  EXPECT_EQ(f.writeIssue, f.readReady + 30);
  EXPECT_EQ(f.writeAck, f.writeIssue + kLatency);
  EXPECT_EQ(f.cycle(), f.writeAck + 1);  // stopped once the line was high
  expectInSync();
  EXPECT_EQ(std::memcmp(s.storage.data() + 0x2000, s.storage.data() + 0x1000, 16), 0);
  EXPECT_TRUE(s.irq.read());

  // The line stays up until cleared: the next run returns at once.
  const uint64_t c = f.cycle();
  call(s, [&] { irq = s.host.runUntilInterrupt(10'000); });
  EXPECT_TRUE(irq);
  EXPECT_EQ(f.cycle(), c);
  call(s, [&] { s.host.writeReg(FakeDevice::kIrq, 1); });
  EXPECT_FALSE(s.irq.read());
}

TEST(RtlHarness, DramFaultsReachTheHostAndResetRecovers) {
  System& s = sys();
  EXPECT_THROW(call(s, [&] {
                 s.host.writeReg(FakeDevice::kSrc, (1 << 20) - 8);
                 s.host.writeReg(FakeDevice::kStart, 1);
                 s.host.runUntilInterrupt(10'000);
               }),
               std::out_of_range);
  call(s, [&] { s.host.hardReset(); });
  expectInSync();
  bool irq = true;
  call(s, [&] { irq = s.host.runUntilInterrupt(100); });
  EXPECT_FALSE(irq);
}

}  // namespace
}  // namespace weft::sim
