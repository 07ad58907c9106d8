// The DRAM timing rule of sim/include/weft/sim/dram_model.h, case by case.
#include <gtest/gtest.h>

#include <numeric>
#include <vector>

#include "weft/sim/dram_model.h"

namespace weft::sim {
namespace {

// The one-pipe DRAM (Dram "simple") of these rates; the cycle-level device's fields stay unset.
DramTiming simpleTiming(uint32_t bytesPerCycle, uint32_t latencyCycles, uint32_t burstBytes) {
  DramTiming t;
  t.bytesPerCycle = bytesPerCycle, t.latencyCycles = latencyCycles, t.burstBytes = burstBytes;
  return t;
}

class DramModelTest : public ::testing::Test {
 protected:
  DramStorage storage{1 << 20};
  DramTiming timing = simpleTiming(16, 100, 32);
  DramModel dram{storage, timing};
  uint8_t buf[4096] = {};
};

TEST_F(DramModelTest, ParametersComeFromTheConfiguration) {
  const auto cfg = hw::HwConfig::load("weft8").with("DramLatencyCycles", 7).with("DramBurstBytes", 64);
  const DramTiming t = DramTiming::fromConfig(cfg);
  EXPECT_EQ(t.bytesPerCycle, 8u);
  EXPECT_EQ(t.latencyCycles, 7u);
  EXPECT_EQ(t.burstBytes, 64u);
}

TEST_F(DramModelTest, LoneReadReturnsItsFirstBeatAfterTheLatency) {
  EXPECT_EQ(dram.read(0, buf, 16, 1000), 1100u);
  EXPECT_EQ(dram.channelFreeCycle(), 1002u);  // one 32-byte burst at 16 B/cycle
}

TEST_F(DramModelTest, LoneWriteIsAcknowledgedAfterTheLatency) {
  EXPECT_EQ(dram.write(64, buf, 32, 50), 150u);
  EXPECT_EQ(dram.channelFreeCycle(), 52u);
}

TEST_F(DramModelTest, RequestHoldsTheChannelForEveryAlignedBurstItTouches) {
  EXPECT_EQ(dram.holdCycles(0, 1), 2u);     // 1 burst
  EXPECT_EQ(dram.holdCycles(0, 32), 2u);    // 1 burst
  EXPECT_EQ(dram.holdCycles(31, 2), 4u);    // straddles: 2 bursts
  EXPECT_EQ(dram.holdCycles(16, 32), 4u);   // unaligned 32 bytes: 2 bursts
  EXPECT_EQ(dram.holdCycles(0, 4095), 256u);  // 128 bursts
  dram.setTiming(simpleTiming(24, 100, 32));
  EXPECT_EQ(dram.holdCycles(0, 32), 2u);    // ceil(32 / 24)
  EXPECT_EQ(dram.holdCycles(0, 96), 4u);    // ceil(96 / 24)
}

TEST_F(DramModelTest, BackToBackRequestsQueueOnTheChannel) {
  EXPECT_EQ(dram.read(0, buf, 64, 10), 110u);   // holds 10..13
  EXPECT_EQ(dram.read(64, buf, 64, 11), 114u);  // starts at 14
  EXPECT_EQ(dram.write(128, buf, 32, 12), 118u);  // writes share the channel: starts at 18
  EXPECT_EQ(dram.channelFreeCycle(), 20u);
  // After an idle gap a request starts at its issue cycle again.
  EXPECT_EQ(dram.read(0, buf, 16, 500), 600u);
}

TEST_F(DramModelTest, StreamIsBandwidthBound) {
  // 100 requests of 64 bytes issued at once: 4 cycles each at 16 B/cycle.
  uint64_t last = 0;
  for (int i = 0; i < 100; ++i) last = dram.read(64 * i, buf, 64, 0);
  EXPECT_EQ(last, 99u * 4 + 100);
  EXPECT_EQ(dram.stats().busyCycles, 400u);
  EXPECT_EQ(dram.stats().reads, 100u);
  EXPECT_EQ(dram.stats().bytesRead, 6400u);
}

TEST_F(DramModelTest, ZeroLatencyReturnsAtTheStartOfService) {
  dram.setTiming(simpleTiming(16, 0, 32));
  EXPECT_EQ(dram.read(0, buf, 32, 5), 5u);
  EXPECT_EQ(dram.read(0, buf, 32, 5), 7u);
}

TEST_F(DramModelTest, TimingOnlyCallsFollowTheSameRule) {
  EXPECT_EQ(dram.timeRead(0, 64, 10), 110u);
  EXPECT_EQ(dram.timeWrite(0, 64, 10), 114u);
  EXPECT_EQ(dram.stats().writes, 1u);
  EXPECT_EQ(dram.stats().bytesWritten, 64u);
}

TEST_F(DramModelTest, MovesTheData) {
  std::vector<uint8_t> src(300);
  std::iota(src.begin(), src.end(), 0);
  dram.write(1000, src.data(), 300, 0);
  std::vector<uint8_t> dst(300);
  dram.read(1000, dst.data(), 300, 0);
  EXPECT_EQ(src, dst);
  EXPECT_EQ(storage.data()[1000 + 299], src[299]);
}

TEST_F(DramModelTest, OutOfRangeThrowsAndChangesNothing) {
  dram.read(0, buf, 32, 0);
  const uint64_t free = dram.channelFreeCycle();
  const DramStats before = dram.stats();
  EXPECT_THROW(dram.read(storage.size() - 8, buf, 16, 10), std::out_of_range);
  buf[0] = 0xAB;
  EXPECT_THROW(dram.write(storage.size(), buf, 1, 10), std::out_of_range);
  EXPECT_EQ(dram.channelFreeCycle(), free);
  EXPECT_EQ(dram.stats().reads, before.reads);
  EXPECT_EQ(dram.stats().writes, before.writes);
  EXPECT_EQ(storage.data()[storage.size() - 1], 0);
}

}  // namespace
}  // namespace weft::sim
