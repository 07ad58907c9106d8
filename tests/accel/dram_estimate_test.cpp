// The compiler's estimates with a cycle-level DRAM (issue 32 item 6; CostModel.h's DramCost,
// DramCost.cpp): the pricing derived from the device, and the estimate of whole layers against
// their run on the approx backend at weft16-lpddr4 (one configuration a process: the device is a
// process singleton). Before the DRAM-aware pricing the estimates assumed DramBytesPerCycle (25)
// and fell short of the run by up to 67 % (a fully-connected layer, which streams its weights at
// one LPDDR4 channel's rate: requests are decided one after the other).
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "AccelTestUtil.h"
#include "CostModel.h"
#include "weft/hw/config.h"

namespace weft::accel::test {
namespace {

TEST(DramEstimate, SimpleDramHasNoDevicePricing) {
  for (const char* name : {"weft8", "weft16", "weft8os", "weft16os"}) {
    const auto config = hw::HwConfig::load(name);
    EXPECT_FALSE(dramCostFor(config).has_value()) << name;
    EXPECT_FALSE(CostModel(config).dram.has_value()) << name;
    EXPECT_EQ(CostModel(config).latency, static_cast<double>(config.get(hw::Param::kDramLatencyCycles))) << name;
  }
}

// LPDDR4-3200 (tCK 0.625 ns) at 1 GHz: a 32-byte transaction every tCCD = 8 tCK in a channel,
// reads decided one after the other; rorabachco keeps 64 transactions (2 KB) in one channel, and
// the next channel's first takes a cycle.
TEST(DramEstimate, Lpddr4PricingFromTheDevice) {
  const auto d = dramCostFor(hw::HwConfig::load("weft16-lpddr4"));
  ASSERT_TRUE(d.has_value());
  EXPECT_DOUBLE_EQ(d->txBytes, 32);
  const double gap = (63 * 8.0 + 1) / 64;
  EXPECT_DOUBLE_EQ(d->readTxCycles, gap * 0.625);
  // Turnarounds read -> write (RL 28 + BL/2 8 - WL 14 + tRTRS 1) and back (WL 14 + 8 + tWTR 16)
  // a drain of 32, at two channels' share of four.
  EXPECT_DOUBLE_EQ(d->writeTxCycles, (gap + 61.0 / 32) * 0.625 * 0.5);
  EXPECT_DOUBLE_EQ(d->rowBytes, 2048);
  EXPECT_DOUBLE_EQ(d->activateCycles, (29 + 29) * 0.625);
  EXPECT_DOUBLE_EQ(d->latency, (2 + 28 + 8) * 0.625 + 2);
  const CostModel cost(hw::HwConfig::load("weft16-lpddr4"));
  // A merged 1 KB weight load: 32 transactions of one channel.
  const double tx = gap * 0.625;
  EXPECT_DOUBLE_EQ(cost.mergedLoad(1, 64, 16).channelCycles, 32 * tx);
  // A 16-byte row a request, 64 bytes apart (a 64-channel image's im2col row): one transaction,
  // and a row opened every 2 KB of the walk.
  EXPECT_DOUBLE_EQ(cost.rowLoad(10, 16, 64).channelCycles, 10 * (tx + 64.0 / 2048 * 36.25));
  // Rows 6 bytes apart start anywhere in a beat: 21 bytes touch 1 + 20/32 transactions.
  EXPECT_DOUBLE_EQ(cost.rowLoad(1, 21, 6).channelCycles, (1 + 20.0 / 32) * tx + 21.0 / 2048 * 36.25);
}

TEST(DramEstimate, OtherDevices) {
  // DDR4-3200, one channel, bank groups interleaved every 64 bytes: tCCD_S = the burst, 4 tCK.
  const auto ddr4 = dramCostFor(hw::HwConfig::load("weft16-ddr4"));
  ASSERT_TRUE(ddr4.has_value());
  EXPECT_DOUBLE_EQ(ddr4->txBytes, 64);
  EXPECT_DOUBLE_EQ(ddr4->readTxCycles, 4 * 0.625);
  // HBM2 (tCK 1 ns): 32 transactions of a row in a channel at tCCD_L = 2, then the next channel.
  const auto hbm2 = dramCostFor(hw::HwConfig::load("weft16-hbm2"));
  ASSERT_TRUE(hbm2.has_value());
  EXPECT_DOUBLE_EQ(hbm2->txBytes, 64);
  EXPECT_DOUBLE_EQ(hbm2->readTxCycles, (31 * 2.0 + 1) / 32);
}

struct Shape {
  const char* what;
  OpModel model;
  double tolerance;  // of |estimate - run| / run
};

ConvCase conv(uint32_t size, uint32_t in, uint32_t out, uint32_t filter, uint32_t stride) {
  ConvCase c;
  c.height = c.width = size;
  c.inChannels = in;
  c.outChannels = out;
  c.filterH = c.filterW = filter;
  c.strideH = c.strideW = stride;
  c.implicitPadding = true;
  c.in = {nn::OperandType::TENSOR_QUANT8_ASYMM, 0.5f, 127};
  c.filter = {nn::OperandType::TENSOR_QUANT8_ASYMM, 0.01f, 130};
  c.out = {nn::OperandType::TENSOR_QUANT8_ASYMM, 4.0f, 120};
  c.activation = 1;
  return c;
}

// Each layer's estimate (the tiling search's timeline, in the execution profile) within its
// tolerance of the approx run at weft16-lpddr4. The DRAM's state carries over between runs (open
// rows, refresh), as on a device, so a layer's cycles move by a few per cent with what ran before.
TEST(DramEstimate, LayersAtLpddr4AreWithinTheirToleranceOfTheRun) {
  auto device = approxDevice("weft16-lpddr4");
  std::mt19937 rng(7);
  FcCase fc;
  fc.inputDims = {1, 512};
  fc.units = 1000;
  fc.in = {nn::OperandType::TENSOR_QUANT8_ASYMM, 0.5f, 127};
  fc.weights = {nn::OperandType::TENSOR_QUANT8_ASYMM, 0.01f, 130};
  fc.out = {nn::OperandType::TENSOR_QUANT8_ASYMM, 4.0f, 120};
  std::vector<Shape> shapes;
  shapes.push_back({"CONV_2D 28x28x64 -> 64, 3x3", makeConvModel(conv(28, 64, 64, 3, 1), rng), 0.10});
  shapes.push_back({"CONV_2D 14x14x256 -> 256, 1x1", makeConvModel(conv(14, 256, 256, 1, 1), rng), 0.10});
  // The weakest: a packed stem (-10 % here) and a fully-connected layer (-15 %; -67 % before).
  shapes.push_back({"CONV_2D 56x56x3 -> 64, 7x7 / 2", makeConvModel(conv(56, 3, 64, 7, 2), rng), 0.15});
  shapes.push_back({"FULLY_CONNECTED 512 -> 1000", makeFcModel(fc, rng), 0.20});
  for (const Shape& s : shapes) {
    auto prepared = prepare(*device, s.model.model);
    ASSERT_TRUE(prepared.ok()) << s.what << ": " << prepared.error().message;
    auto run = runOnPrepared(*prepared.value(), s.model);
    ASSERT_TRUE(run.ok()) << s.what << ": " << run.error().message;
    const auto& op = run.value().execution->profile.operations.at(0);
    ASSERT_GT(op.cycles, 0u);
    const double error = (static_cast<double>(op.estimatedCycles) - static_cast<double>(op.cycles)) /
                         static_cast<double>(op.cycles);
    std::printf("[dram estimate] %s: run %llu, estimate %llu (%+.1f %%); %s\n", s.what,
                static_cast<unsigned long long>(op.cycles), static_cast<unsigned long long>(op.estimatedCycles),
                100 * error, op.mapping.c_str());
    EXPECT_LE(std::abs(error), s.tolerance) << s.what << ": run " << op.cycles << ", estimate " << op.estimatedCycles;
  }
}

}  // namespace
}  // namespace weft::accel::test
