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

INSTANTIATE_TEST_SUITE_P(rtl, RtlTiming, ::testing::Values("weft8", "weft16"), configName);

}  // namespace
}  // namespace weft::rtltest
