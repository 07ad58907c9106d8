// Costing on its own (CommandCost.h): what a command costs, read off its fields. Each expected
// figure is worked out by hand from CostModel.h's formulas at the named configuration (weft16:
// 16 x 16, 16-byte beats, 16 bytes a cycle, 100 cycles latency, 32-byte bursts, 64 requests in
// flight), and is what the command generator's inline estimates gave the same command before
// costing was its own step: the tiling search chooses plans by these numbers, so a change here
// moves cycles (and `weft baselines` says where).
#include <gtest/gtest.h>

#include "CommandCost.h"
#include "weft/hw/config.h"

namespace weft::accel {
namespace {

// Exactly: every figure here is a sum of multiples of 1/32, which doubles hold exactly.
::testing::AssertionResult costIs(const CommandCost& c, double busy, double done, double channel) {
  if (c.busyCycles == busy && c.doneCycles == done && c.channelCycles == channel) {
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "busy " << c.busyCycles << ", done " << c.doneCycles << ", channel "
                                       << c.channelCycles << "; expected " << busy << ", " << done << ", " << channel;
}
#define EXPECT_COST(cost, busy, done, channel) EXPECT_TRUE(costIs(cost, busy, done, channel))

CommandCost costOf(const hw::HwConfig& config, const TypedCommand& cmd, LoadPricing pricing = LoadPricing::kByFields) {
  return estimate(CostModel(config), PlannedCommand{cmd, {}, pricing});
}

hw::LoadCmd load(hw::Mem dst, uint32_t rowBytes, uint32_t stride0, uint32_t count0, uint32_t count1 = 1,
                 uint32_t count2 = 1) {
  hw::LoadCmd l;
  l.dst = dst;
  l.rowBytes = rowBytes;
  l.stride0 = stride0;
  l.count0 = count0;
  l.count1 = count1;
  l.count2 = count2;
  return l;
}

// A request of n bytes at weft16 occupies the channel for ((n - 1) / 32 + 1) bursts of 32 bytes
// at 16 bytes a cycle (a random alignment): 8 bytes 2.4375 cycles, 16 bytes 2.9375, 26 bytes
// 3.5625, 32 bytes 3.9375, 64 bytes 5.9375, 128 bytes 9.9375, 1008 bytes 64.9375, 1024 bytes
// 65.9375.
TEST(CommandCost, AWholeRunOfFullRowsIsMergedIntoLargeRequests) {
  const auto config = hw::HwConfig::load("weft16");
  // 64 weight rows of 16 bytes, contiguous: one 1024-byte request (65.9375 cycles on the
  // channel, 64 beats), done a round trip and 64 beats later.
  EXPECT_COST(costOf(config, load(hw::Mem::kW, 16, 16, 64)), 67.9375, 67.9375 + 100 + 64, 64);
  // Two runs (count1) of 8 rows: a 128-byte request each.
  EXPECT_COST(costOf(config, load(hw::Mem::kW, 16, 16, 8, 2)), 2 + 2 * 9.9375, 2 + 2 * 9.9375 + 164, 16);
  // Parameter rows are 9 x Cols bytes: 7 to a request (1008 bytes).
  EXPECT_COST(costOf(config, load(hw::Mem::kParam, 144, 144, 7)), 66.9375, 66.9375 + 164, 63);
  // The vector scratchpad's rows are Cols bytes, runs of count2 too.
  EXPECT_COST(costOf(config, load(hw::Mem::kVec, 16, 16, 8, 1, 2)), 2 + 2 * 9.9375, 2 + 2 * 9.9375 + 164, 16);
}

TEST(CommandCost, RowsTheUnitCannotMergeAreARequestEach) {
  const auto config = hw::HwConfig::load("weft16");
  // A row costs max(1, its request's channel time, round trip / requests in flight): 16 rows of
  // 16 bytes 2.9375 each; the load is done a round trip and a beat after its last request.
  const double rows16 = 2 + 16 * 2.9375;
  const double done16 = rows16 + 100 + 1;
  const double channel16 = 16 * 2.9375;
  EXPECT_COST(costOf(config, load(hw::Mem::kIn, 16, 48, 16)), rows16, done16, channel16);  // strided rows
  EXPECT_COST(costOf(config, load(hw::Mem::kIn, 8, 8, 16)), 2 + 16 * 2.4375, 2 + 16 * 2.4375 + 101,
             16 * 2.4375);  // part rows
  hw::LoadCmd packed = load(hw::Mem::kIn, 16, 16, 16);
  packed.pack = true;
  EXPECT_COST(costOf(config, packed), rows16, done16, channel16);  // packed rows are never merged
  // Rows of Rows bytes that are not whole beats (BusBytes 32 > Rows 16) are not merged either.
  EXPECT_COST(costOf(config.with("BusBytes", 32), load(hw::Mem::kIn, 16, 16, 16)), 2 + 16 * 2.9375,
             2 + 16 * 2.9375 + 100 + 1, channel16);
}

// The two pricings the command generator names (PlannedCommand.h): where the load unit's rule and
// the generator's estimates part, the estimate is the generator's.
TEST(CommandCost, TheGeneratorsPricingsOverrideTheMergeRule) {
  const auto config = hw::HwConfig::load("weft16");
  // An im2col box load of a 16-channel image at stride 1 (chunks of 16 bytes, 16 apart): the
  // unit merges its rows, its estimate is a request a row.
  const hw::LoadCmd box = load(hw::Mem::kIn, 16, 16, 8, 2);
  EXPECT_COST(costOf(config, box), 2 + 2 * 9.9375, 2 + 2 * 9.9375 + 164, 16);
  EXPECT_COST(costOf(config, box, LoadPricing::kPerRow), 2 + 16 * 2.9375, 2 + 16 * 2.9375 + 101, 16 * 2.9375);
  // A pixel-major load of 4 chunks a pixel for 3 pixels: runs of 4 rows (64 bytes, 5.9375
  // cycles), merged even where Rows is not whole beats.
  const auto wide = config.with("BusBytes", 32);
  const hw::LoadCmd pixels = load(hw::Mem::kIn, 16, 16, 4, 3);
  EXPECT_COST(costOf(wide, pixels), 2 + 12 * 2.9375, 2 + 12 * 2.9375 + 100 + 1, 12 * 2.9375);
  // Merged at 32-byte beats: a 64-byte request is 5.9375 cycles, done 32 beats of 32 bytes on.
  EXPECT_COST(costOf(wide, pixels, LoadPricing::kMergedRuns), 2 + 3 * 5.9375, 2 + 3 * 5.9375 + 100 + 32, 12);
}

TEST(CommandCost, AStoreWritesARequestARowOfEveryTile) {
  const auto config = hw::HwConfig::load("weft16");
  hw::StoreCmd s;
  s.mode = hw::StoreMode::kRequant8;
  s.rowBytes = 16;
  s.count0 = 7;
  s.count1 = 7;
  // 49 rows of 16 bytes: a row is max(1 beat, 2.9375 cycles on the channel).
  EXPECT_COST(costOf(config, s), 4 + 49 * 2.9375, 4 + 49 * 2.9375 + 100, 49 * 2.9375);
  // Two tiles, the last of 10 columns: 26 bytes a row.
  s.tiles = 2;
  s.rowBytes = 10;
  EXPECT_COST(costOf(config, s), 4 + 49 * 3.5625, 4 + 49 * 3.5625 + 100, 49 * 3.5625);
  s.rowBytes = 16;  // 32 bytes
  EXPECT_COST(costOf(config, s), 4 + 49 * 3.9375, 4 + 49 * 3.9375 + 100, 49 * 3.9375);
  // The unit issues a tile a cycle: on 64-byte beats at 64 bytes a cycle, five tiles whose last
  // is one column (65 bytes: 2 beats, 1.5 cycles on the channel) take 5 cycles a row.
  s.tiles = 5;
  s.rowBytes = 1;
  s.count1 = 1;
  const auto wide = config.with("BusBytes", 64).with("DramBytesPerCycle", 64);
  EXPECT_COST(costOf(wide, s), 4 + 7 * 5, 4 + 7 * 5 + 100, 7 * 1.5);
  // A column is the mode's bytes: 16 fp16 columns are 32 bytes, 16 raw32 ones 64.
  s.tiles = 1;
  s.rowBytes = 16;
  s.mode = hw::StoreMode::kFp16;
  EXPECT_COST(costOf(config, s), 4 + 7 * 3.9375, 4 + 7 * 3.9375 + 100, 7 * 3.9375);
  s.mode = hw::StoreMode::kRaw32;
  EXPECT_COST(costOf(config, s), 4 + 7 * 5.9375, 4 + 7 * 5.9375 + 100, 7 * 5.9375);
}

TEST(CommandCost, AGemmStreamsItsRowsStepByStep) {
  const auto ws = hw::HwConfig::load("weft16");
  hw::GemmCmd g;
  g.mRows = 100;
  g.kRows = 16;
  // Weight-stationary: a step holds the array for max(M, Cols) + 1 cycles and is done when its
  // skew has drained: max(busy, K) + Rows + Cols + 4.
  EXPECT_COST(costOf(ws, g), 101, 137, 0);
  // Steps over K follow one another: the last completes a step's drain after the others.
  g.kSteps = 3;
  EXPECT_COST(costOf(ws, g), 303, 2 * 101 + 137, 0);
  // Groups of rows count as rows; the drain waits for a preload longer than the rows; kept
  // weights are not waited for.
  g.kSteps = 1;
  g.mRows = 10;
  g.mGroups = 3;
  g.kRows = 40;
  EXPECT_COST(costOf(ws, g), 31, 40 + 36, 0);
  g.keepWeights = true;
  EXPECT_COST(costOf(ws, g), 31, 31 + 36, 0);
  // A GEMM shorter than Cols rows leaves a bubble: the next preload needs Cols cycles.
  g.mRows = 3;
  g.mGroups = 2;
  EXPECT_COST(costOf(ws, g), 17, 17 + 36, 0);
  // Output-stationary: whole blocks of Rows rows, drained 2 x Rows + Cols + 4 after the last.
  g = hw::GemmCmd{};
  g.mRows = 20;
  g.kRows = 16;
  EXPECT_COST(costOf(hw::HwConfig::load("weft16os"), g), 32, 32 + 32 + 16 + 4, 0);
}

TEST(CommandCost, VectorCommandsTakeTheirClosedFormSchedule) {
  const auto config = hw::HwConfig::load("weft16");
  // A slot a cycle from cycle 1, done when the last slot's write leaves the 6-stage pipe.
  hw::EltwiseCmd e;
  e.count0 = 10;
  e.count1 = 3;
  EXPECT_COST(costOf(config, e), 30 + 6, 30 + 6, 0);
  hw::WindowCmd w;
  w.outH = 2;
  w.outW = 3;
  w.kH = 3;
  w.kW = 3;
  EXPECT_COST(costOf(config, w), 54 + 6, 54 + 6, 0);
  // SOFTMAX's three passes of `count` slots, 3 cycles apart, the last after the reciprocal's 9.
  hw::SoftmaxCmd s;
  s.count = 5;
  // Slots in cycles [1, 6), [8, 13), [24, 29); the last write 5 cycles after cycle 28.
  EXPECT_COST(costOf(config, s), 34, 34, 0);
  EXPECT_COST(costOf(config, hw::BarrierCmd{}), 0, 0, 0);
}

}  // namespace
}  // namespace weft::accel
