// Pins the cycle-level behaviour rtl/README.md documents (the cycle-approximate model is
// written from it): per-unit active cycles of isolated commands and back-to-back GEMMs.
#include <gtest/gtest.h>

#include "session.h"

namespace weft::rtltest {
namespace {

constexpr uint64_t kReadLatency = 12, kWriteLatency = 6;

class RtlTiming : public ::testing::TestWithParam<std::string> {
 protected:
  // Runs cmds (each group after the previous has drained) and returns the counter's increase.
  static uint64_t activeDelta(RtlDevice& dev, const std::vector<hw::CommandWord>& cmds, hw::Counter c) {
    const uint64_t before = dev.stepper().readCounter(c);
    std::vector<hw::CommandWord> prog = cmds;
    prog.push_back(barrier(true));
    EXPECT_EQ(dev.run(prog), hw::reg::kIrqStatusDoneMask);
    return dev.stepper().readCounter(c) - before;
  }
};

hw::GemmCmd gemm(unsigned k, uint32_t m, uint32_t wAddr, uint32_t accAddr) {
  hw::GemmCmd g;
  g.kRows = k;
  g.mRows = m;
  g.wAddr = wAddr;
  g.accAddr = accAddr;
  return g;
}

TEST_P(RtlTiming, GemmTakesRowsPlusRowsPlusColsPlusOneCycles) {
  RtlDevice dev(GetParam(), kReadLatency, kWriteLatency);
  dev.initRing();
  const unsigned R = dev.rows(), C = dev.cols();
  for (uint32_t m : {1u, 7u, 40u}) {
    for (unsigned k : {1u, R}) {
      EXPECT_EQ(activeDelta(dev, {gemm(k, m, 0, 0).encode()}, hw::Counter::kComputeActive), m + R + C + 1)
          << "m " << m << " k " << k;
    }
  }
}

TEST_P(RtlTiming, BackToBackGemmsStreamOneRowPerCycle) {
  RtlDevice dev(GetParam(), kReadLatency, kWriteLatency);
  dev.initRing();
  const unsigned R = dev.rows(), C = dev.cols();
  const uint32_t m = 40;  // >= Cols: every weight buffer is free again in time
  std::vector<hw::CommandWord> cmds;
  for (int i = 0; i < 6; ++i) {
    hw::GemmCmd g = gemm(R, m, (i % 2) * R, (i % 2) * m);
    g.keepWeights = (i == 5);
    cmds.push_back(g.encode());
  }
  EXPECT_EQ(activeDelta(dev, cmds, hw::Counter::kComputeActive), 6 * m + R + C + 1);
  EXPECT_EQ(dev.stepper().readCounter(hw::Counter::kArrayRows), 6u * m);
}

TEST_P(RtlTiming, ShortGemmsWaitForTheWeightBufferToDrain) {
  RtlDevice dev(GetParam(), kReadLatency, kWriteLatency);
  dev.initRing();
  const unsigned R = dev.rows(), C = dev.cols();
  const uint32_t m = 2;  // < Cols: the third GEMM's preload waits for the first to drain
  std::vector<hw::CommandWord> cmds;
  for (int i = 0; i < 3; ++i) cmds.push_back(gemm(R, m, (i % 2) * R, 0).encode());
  // Relative to GEMM 1's start: each preload holds the weight read port for k_rows cycles,
  // so GEMM 2 starts at R; GEMM 3 reuses GEMM 1's buffer, free Cols cycles after GEMM 1's
  // last row entered the array (m): it starts at max(2R, m + Cols), streams from the next cycle.
  const uint64_t p3 = std::max<uint64_t>(2 * R, m + C);
  EXPECT_EQ(activeDelta(dev, cmds, hw::Counter::kComputeActive), p3 + m + R + C + 1);
}

TEST_P(RtlTiming, EachPreloadReadsItsWeightRowsOnce) {
  RtlDevice dev(GetParam(), kReadLatency, kWriteLatency);
  dev.initRing();
  const unsigned R = dev.rows();
  const unsigned k = R > 3 ? R - 3 : 1;
  hw::GemmCmd again = gemm(k, 40, 0, 0);
  again.keepWeights = true;
  activeDelta(dev, {gemm(k, 40, 0, 0).encode(), again.encode(), gemm(R, 3, R, 0).encode()},
              hw::Counter::kComputeActive);
  EXPECT_EQ(dev.stepper().readCounter(hw::Counter::kWspadRdRows), k + R) << "keep_weights reads none";
}

TEST_P(RtlTiming, LoadOfSingleRowRequestsTakesRowsPlusLatencyPlusOne) {
  RtlDevice dev(GetParam(), kReadLatency, kWriteLatency);
  dev.initRing();
  hw::LoadCmd l = Session::load(hw::Mem::kIn, 0, 0x100000, 1, 10);
  l.stride0 = 3;  // not contiguous: one request per row
  EXPECT_EQ(activeDelta(dev, {l.encode()}, hw::Counter::kLoadActive), 10 + kReadLatency + 1);
  // Contiguous full rows: one merged request, whose beats arrive one per cycle.
  const unsigned R = dev.rows();
  const hw::LoadCmd merged = Session::load(hw::Mem::kIn, 0, 0x100000, R, 10);
  const uint64_t beatsPerRow = R / dev.config().busBytes();
  EXPECT_EQ(activeDelta(dev, {merged.encode()}, hw::Counter::kLoadActive),
            1 + kReadLatency + 10 * beatsPerRow);
}

TEST_P(RtlTiming, StoreOfSingleBeatRowsTakesRowsPlusFivePlusWriteLatency) {
  RtlDevice dev(GetParam(), kReadLatency, kWriteLatency);
  dev.initRing();
  hw::StoreCmd s;
  s.mode = hw::StoreMode::kRequant8;
  s.rowBytes = dev.cols();
  s.dramAddr = 0x500000;
  s.stride0 = 64;
  s.count0 = 10;
  s.count1 = 1;
  EXPECT_EQ(activeDelta(dev, {s.encode()}, hw::Counter::kStoreActive), 10 + 5 + kWriteLatency);
  // raw32 rows of 4*Cols bytes take 4*Cols/BusBytes beats each: the beats are the bottleneck.
  s.mode = hw::StoreMode::kRaw32;
  const uint64_t beats = 4 * dev.cols() / dev.config().busBytes();
  EXPECT_EQ(activeDelta(dev, {s.encode()}, hw::Counter::kStoreActive), 10 * beats + 5 + kWriteLatency);
}

INSTANTIATE_TEST_SUITE_P(rtl, RtlTiming, ::testing::Values("weft8", "weft16", "weft16fp"), configName);

// The output-stationary array (Dataflow OS): blocks of Rows slots, no preload; a GEMM ends
// 2*Rows + Cols + 2 cycles after its last block's last slot.
class RtlTimingOs : public RtlTiming {};

uint64_t blockSlots(uint32_t m, unsigned rows) { return uint64_t{(m + rows - 1) / rows} * rows; }

TEST_P(RtlTimingOs, GemmTakesItsBlocksPlusTwoRowsPlusColsPlusTwoCycles) {
  RtlDevice dev(GetParam(), kReadLatency, kWriteLatency);
  dev.initRing();
  const unsigned R = dev.rows(), C = dev.cols();
  for (uint32_t m : {1u, 7u, 40u, 2 * R}) {
    for (unsigned k : {1u, R}) {
      const uint64_t before = dev.stepper().readCounter(hw::Counter::kArrayRows);
      EXPECT_EQ(activeDelta(dev, {gemm(k, m, 0, 0).encode()}, hw::Counter::kComputeActive),
                blockSlots(m, R) + 2 * R + C + 2)
          << "m " << m << " k " << k;
      EXPECT_EQ(dev.stepper().readCounter(hw::Counter::kArrayRows) - before, blockSlots(m, R))
          << "every slot of the blocks, the empty ones too";
    }
  }
}

TEST_P(RtlTimingOs, BackToBackGemmsStreamBlockAfterBlock) {
  RtlDevice dev(GetParam(), kReadLatency, kWriteLatency);
  dev.initRing();
  const unsigned R = dev.rows(), C = dev.cols();
  // Short GEMMs and new weights every time: no preload and no buffer to drain.
  for (uint32_t m : {2u, 40u}) {
    std::vector<hw::CommandWord> cmds;
    for (int i = 0; i < 6; ++i) {
      hw::GemmCmd g = gemm(R, m, (i % 2) * R, (i % 2) * m);
      g.keepWeights = (i == 5);
      cmds.push_back(g.encode());
    }
    EXPECT_EQ(activeDelta(dev, cmds, hw::Counter::kComputeActive), 6 * blockSlots(m, R) + 2 * R + C + 2)
        << "m " << m;
  }
}

TEST_P(RtlTimingOs, EveryBlockReadsTheWeightRowsAgain) {
  RtlDevice dev(GetParam(), kReadLatency, kWriteLatency);
  dev.initRing();
  const unsigned R = dev.rows();
  const unsigned k = R > 3 ? R - 3 : 1;
  hw::GemmCmd again = gemm(k, 2 * R + 1, 0, 0);  // three blocks
  again.keepWeights = true;
  activeDelta(dev, {gemm(k, 40, 0, 0).encode(), again.encode(), gemm(R, 3, R, 0).encode()},
              hw::Counter::kComputeActive);
  EXPECT_EQ(dev.stepper().readCounter(hw::Counter::kWspadRdRows), blockSlots(40, R) / R * k + 3 * k + R)
      << "k_rows a block, keep_weights too";
}

INSTANTIATE_TEST_SUITE_P(rtl, RtlTimingOs, ::testing::Values("weft8os", "weft16os"), configName);

}  // namespace
}  // namespace weft::rtltest
