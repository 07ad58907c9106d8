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

// LPDDR4-3200 (tCK 0.625 ns) at 1 GHz: a 32-byte transaction every tCCD = 8 tCK in a channel at
// best (5 accelerator cycles), reads decided one request after the other; rorabachco gives each
// of the four channels 2 KB of address in turn. A stream within one channel is measured on the
// device model (tCCD, the activates where it enters a bank, refresh); a request's transactions
// in two channels overlap, so it costs the larger part.
TEST(DramEstimate, Lpddr4PricingFromTheDevice) {
  const auto d = dramCostFor(hw::HwConfig::load("weft16-lpddr4"));
  ASSERT_TRUE(d.has_value());
  EXPECT_DOUBLE_EQ(d->txBytes, 32);
  EXPECT_EQ(d->chunkBytes, 2048u);
  EXPECT_EQ(d->channels, 4u);
  std::printf("[dram estimate] lpddr4: read %.3f (within a channel %.3f), write entry %.3f, write share %.3f "
              "cycles a transaction\n",
              d->readTxCycles, d->alignedTxCycles, d->writeTxCycles, d->writeChannelCycles);
  EXPECT_GT(d->alignedTxCycles, 8 * 0.625);
  EXPECT_LT(d->alignedTxCycles, 1.25 * 8 * 0.625);
  const CostModel cost(hw::HwConfig::load("weft16-lpddr4"));
  // The most one channel holds of a request of n transactions, wherever in the 64 transactions
  // of a chunk it starts: 1 of 1; 2 of 2 but where it starts on the chunk's last (1/64); 1 KB
  // (32): 32 where it starts in the first 33, else the larger part, 28 on average.
  EXPECT_DOUBLE_EQ(cost.largestShare(1), 1);
  EXPECT_DOUBLE_EQ(cost.largestShare(2), 2 - 1.0 / 64);
  EXPECT_DOUBLE_EQ(cost.largestShare(32), (33 * 32 + 736) / 64.0);
  EXPECT_DOUBLE_EQ(d->readTxCycles, 28.0 / 32 * d->alignedTxCycles);
  // A write's time in its channel: a stream's transaction plus the turnarounds read -> write (RL
  // 28 + BL/2 8 - WL 14 + tRTRS 1) and back (WL 14 + 8 + tWTR 16) once a drain of 32; the reads'
  // share of it one channel's of four, the store's rate two channels'.
  const double write = d->readTxCycles + 61.0 / 32 * 0.625;
  EXPECT_DOUBLE_EQ(d->writeChannelCycles, write / 4);
  EXPECT_DOUBLE_EQ(d->writeTxCycles, write / 2);
  EXPECT_DOUBLE_EQ(d->rowBytes, 2048);
  EXPECT_DOUBLE_EQ(d->activateCycles, (29 + 29) * 0.625);
  EXPECT_DOUBLE_EQ(d->latency, (2 + 28 + 8) * 0.625 + 2);
  const double in = d->alignedTxCycles;
  // A request that opens its row is decided tRP + tRCD after it is offered (2 cycles), plus a
  // burst (8) for each transaction after its first: of its transactions' stream price, what is
  // more than that comes back from the activate's (BERT's fc2 loads 256 bytes a token, each
  // request a row conflict: 116 DRAM cycles in the run, 131 priced before).
  EXPECT_DOUBLE_EQ(d->openedRequestCredit(1), in - 2 * 0.625);
  EXPECT_DOUBLE_EQ(d->openedRequestCredit(8), 8 * in - 7 * 8 * 0.625 - 2 * 0.625);
  EXPECT_DOUBLE_EQ(d->openCycles(2, 8), 2 * (36.25 - d->openedRequestCredit(8)));
  EXPECT_NEAR(8 * in + d->openCycles(1, 8), (29 + 29 + 7 * 8 + 2) * 0.625, 1e-9);
  // A device whose stream price holds more than an activate: opening a row costs nothing more,
  // and never less.
  DramCost slow;
  slow.alignedTxCycles = 20, slow.burstTxCycles = 1, slow.activateCycles = 10, slow.offerCycles = 1;
  EXPECT_DOUBLE_EQ(slow.openedRequestCredit(8), 8 * 20 - 7 - 1);
  EXPECT_DOUBLE_EQ(slow.openCycles(3, 8), 0);
  // A merged 1 KB weight load, wherever it lies: 28 transactions' time on average.
  EXPECT_DOUBLE_EQ(cost.mergedLoad(1, 64, 16).channelCycles, 28 * in);
  // A 16-byte row a request, 64 bytes apart (a 64-channel image's im2col row): one transaction,
  // and a row opened every 2 KB of the walk.
  EXPECT_DOUBLE_EQ(cost.rowLoad(10, 16, 64).channelCycles, 10 * (in + d->openCycles(64.0 / 2048, 1)));
  // Rows 6 bytes apart start anywhere in a 2-byte lattice of the transaction: 21 bytes touch 1 +
  // 10/16 transactions on average (those starting past byte 11 touch two).
  EXPECT_DOUBLE_EQ(cost.rowLoad(1, 21, 6).channelCycles,
                   cost.largestShare(1.625) * in + d->openCycles(21.0 / 2048, cost.largestShare(1.625)));
  // A depthwise layer's two channel groups of each pixel of a 256-channel image: runs of 32
  // bytes 256 apart, each a transaction (the runs start on one) and an eighth of a row.
  EXPECT_DOUBLE_EQ(cost.mergedLoad(28, 2, 16, 256, 64).channelCycles, 28 * (in + d->openCycles(256.0 / 2048, 1)));
  // Writes: 64-byte rows 128 apart, starting on a transaction, two transactions each.
  EXPECT_DOUBLE_EQ(cost.store(10, 64, 4, 128, 0).channelCycles, 10 * 2 * d->writeChannelCycles);
  EXPECT_DOUBLE_EQ(cost.store(10, 64, 4, 128, 16).channelCycles, 10 * 3 * d->writeChannelCycles);

  // Once the tensors are placed (the program's schedule), a request costs its larger part where
  // it lies: 1 KB from byte 1408 of a chunk holds 20 transactions there and 12 in the next
  // channel; from byte 960, all 32 in one (ResNet-18's fully-connected weights, which ran at 5.9
  // cycles a transaction, MobileNet's at 4.7 from 1408).
  CostModel placed(hw::HwConfig::load("weft16-lpddr4"));
  placed.placed = true;
  EXPECT_DOUBLE_EQ(placed.mergedLoad(1, 64, 16, 0, 2048 * 5 + 1408).channelCycles, 20 * in);
  EXPECT_DOUBLE_EQ(placed.mergedLoad(1, 64, 16, 0, 960).channelCycles, 32 * in);
  // 16 KB from 1408: requests from 1408 (20 + 12) and 384 (32) of a chunk in turn.
  EXPECT_DOUBLE_EQ(placed.mergedLoad(1, 1024, 16, 0, 1408).channelCycles, 8 * (20 + 32) * in);
}

// Where a request starts within a transaction, from its address and its stride: exact where the
// transaction divides the regions' alignment, else the mean over where the region starts.
TEST(DramEstimate, TransactionsARequestTouches) {
  const CostModel lpddr4(hw::HwConfig::load("weft16-lpddr4"));  // 32-byte transactions
  EXPECT_DOUBLE_EQ(lpddr4.meanTransactions(32, 0, 0), 1);
  EXPECT_DOUBLE_EQ(lpddr4.meanTransactions(32, 16, 0), 2);
  EXPECT_DOUBLE_EQ(lpddr4.meanTransactions(64, 64, 128), 2);
  EXPECT_DOUBLE_EQ(lpddr4.meanTransactions(1, 31, 0), 1);
  EXPECT_DOUBLE_EQ(lpddr4.meanTransactions(33, 0, 0), 2);
  EXPECT_DOUBLE_EQ(lpddr4.meanTransactions(16, 0, 16), 1);  // 0 and 16: one each
  EXPECT_DOUBLE_EQ(lpddr4.meanTransactions(17, 0, 16), 1.5);  // 0: one; 16: two
  // Against a count over the requests themselves.
  for (uint64_t bytes : {1, 7, 16, 31, 32, 40, 64, 100, 1024}) {
    for (uint64_t stride : {0, 1, 3, 6, 16, 24, 32, 48, 100, 256}) {
      for (uint64_t addr : {0, 5, 16, 33, 64, 4000}) {
        const uint64_t n = stride == 0 ? 1 : 32 * 64;
        double touched = 0;
        for (uint64_t i = 0; i < n; ++i) {
          const uint64_t a = addr + i * stride;
          touched += static_cast<double>((a + bytes - 1) / 32 - a / 32 + 1);
        }
        EXPECT_NEAR(lpddr4.meanTransactions(bytes, addr, stride), touched / static_cast<double>(n), 1e-12)
            << bytes << " bytes at " << addr << " + i * " << stride;
      }
    }
  }
}

// The rows a placed walk of requests opens, bank by bank (walkRowOpens). A TRANSPOSE's load of
// heads to tokens reads 16 bytes of each of 12 heads (12,608 bytes apart), then the next 16 bytes
// of each: the 12 rows stay open across the walk, where a rate per request (a row a request, the
// stride being past a bank's row) priced ViT's 12 such layers at 411,409 cycles against a run of
// 79,000 (+420 %).
TEST(DramEstimate, RowsANestedWalkOpens) {
  const auto d = dramCostFor(hw::HwConfig::load("weft16-lpddr4"));
  ASSERT_TRUE(d.has_value());
  ASSERT_TRUE(d->mapping);
  const double row = d->rowBytes;  // 2 KB
  // A stream: a row every rowBytes, as the rate says.
  const RequestWalk stream{0, 16, 1024, 16, 1, 0, 1, 0};
  EXPECT_DOUBLE_EQ(walkRowOpens(*d, stream), 16 * 1024 / row);
  // Twelve heads, 42 tokens of 16 bytes apart by 64: each head's walk stays within a row or two.
  const RequestWalk heads{266240, 16, 12, 12608, 42, 64, 1, 0};
  const double opens = walkRowOpens(*d, heads);
  EXPECT_GE(opens, 12);
  EXPECT_LE(opens, 3 * 12);
  // The same requests, each 12,608 bytes past the one before (no walk comes back): a row each.
  const RequestWalk apart{0, 16, 504, 12608, 1, 0, 1, 0};
  EXPECT_DOUBLE_EQ(walkRowOpens(*d, apart), 504);
  // Placed, the load's channel time follows the rows its walk opens; the search (tensors at 0,
  // no walk known) keeps the rate.
  CostModel placed(hw::HwConfig::load("weft16-lpddr4"));
  placed.placed = true;
  const CostModel search(hw::HwConfig::load("weft16-lpddr4"));
  const double walked = placed.rowLoad(504, 16, 12608, heads.addr, &heads).channelCycles;
  const double rated = search.rowLoad(504, 16, 12608, heads.addr, &heads).channelCycles;
  EXPECT_DOUBLE_EQ(rated, placed.rowLoad(504, 16, 12608, heads.addr).channelCycles);
  EXPECT_LT(walked, rated / 3);
  placed.openRows = {};  // each walk on its own (the model carries the rows from walk to walk)
  // (A 16-byte request is one transaction: its row's opening is priced net of it, openCycles.)
  EXPECT_NEAR(walked - placed.rowLoad(504, 16, 12608, heads.addr, &apart).channelCycles + d->openCycles(504, 1),
              d->openCycles(opens, 1), 1e-9);
  // A long walk is visited up to kWalkSample requests and scaled.
  const RequestWalk longStream{0, 16, 64 * kWalkSample, 16, 1, 0, 1, 0};
  EXPECT_NEAR(walkRowOpens(*d, longStream), 16.0 * 64 * kWalkSample / row, 1e-9);
}

// A program's walks go on in the rows the walks before them left open (CostModel::openRows):
// GPT-2's probs x V reads 32 of each 64-byte row of the cache, two LOADs to a channel's 2 KB
// row; each walked alone counted a row it did not open (or two, where it crossed a channel's
// chunk), and the layer was estimated 39 % over its run at weft16-lpddr4. A STORE's writes to
// another row of the same bank leave that row open instead.
TEST(DramEstimate, WalksGoOnInTheRowsTheWalksBeforeLeftOpen) {
  const auto d = dramCostFor(hw::HwConfig::load("weft16-lpddr4"));
  ASSERT_TRUE(d.has_value());
  ASSERT_TRUE(d->mapping);
  const RequestWalk first{0, 32, 16, 64, 1, 0, 1, 0};      // 32 bytes of each of 16 rows, 1 KB
  const RequestWalk second{1024, 32, 16, 64, 1, 0, 1, 0};  // the same channel's next 1 KB
  OpenRows rows;
  EXPECT_DOUBLE_EQ(walkRowOpens(*d, first, &rows), 1);
  EXPECT_DOUBLE_EQ(walkRowOpens(*d, second, &rows), 0);
  EXPECT_DOUBLE_EQ(walkRowOpens(*d, second), 1);  // alone: the bank's row is not known
  // 64 KB on: the same channel and bank, the next row.
  ASSERT_EQ(d->mapping->decode(65536).channel, d->mapping->decode(0).channel);
  ASSERT_EQ(d->mapping->decode(65536).bank, d->mapping->decode(0).bank);
  ASSERT_NE(d->mapping->decode(65536).row, d->mapping->decode(0).row);
  const RequestWalk elsewhere{65536, 64, 8, 64, 1, 0, 1, 0};
  EXPECT_DOUBLE_EQ(walkRowOpens(*d, elsewhere, &rows), 1);
  EXPECT_DOUBLE_EQ(walkRowOpens(*d, second, &rows), 1);

  // Placed, the cost model carries the rows from command to command, STOREs included; the
  // tiling search (views at address 0) keeps none.
  CostModel placed(hw::HwConfig::load("weft16-lpddr4"));
  placed.placed = true;
  const double opening = placed.mergedLoad(16, 2, 16, 64, first.addr, &first).rowOpenCycles;
  EXPECT_DOUBLE_EQ(opening, d->openCycles(1, 1));
  EXPECT_DOUBLE_EQ(placed.mergedLoad(16, 2, 16, 64, second.addr, &second).rowOpenCycles, 0);
  const RequestWalk store{65536, 64, 8, 64, 1, 0, 1, 0};
  placed.store(8, 64, 4, 64, store.addr, &store);
  EXPECT_DOUBLE_EQ(placed.mergedLoad(16, 2, 16, 64, second.addr, &second).rowOpenCycles, d->openCycles(1, 1));
}

// Where placed, a merged LOAD's requests are priced where they lie for the load unit too: a
// 32-byte run on a 32-byte boundary is one LPDDR4 transaction, not the 1.5 of a run anywhere
// (the unit's time was 1.5x its channel time on GPT-2's probs x V).
TEST(DramEstimate, PlacedMergedRunsKeepTheLoadUnitAtTheirChannelTime) {
  CostModel placed(hw::HwConfig::load("weft16-lpddr4"));
  placed.placed = true;
  const auto d = placed.dram;
  ASSERT_TRUE(d.has_value());
  const RequestWalk runs{4096, 32, 16, 64, 1, 0, 1, 0};
  const CommandCost c = placed.mergedLoad(16, 2, 16, 64, runs.addr, &runs);
  EXPECT_NEAR(c.channelCycles - c.rowOpenCycles, 16 * d->alignedTxCycles, 1e-9);
  EXPECT_NEAR(c.busyCycles, 2 + c.channelCycles, 1e-9);
  EXPECT_DOUBLE_EQ(c.portCycles, 16 * 2);  // 32 bytes a run: two beats of 16
  const CostModel search(hw::HwConfig::load("weft16-lpddr4"));
  EXPECT_GT(search.mergedLoad(16, 2, 16, 64, runs.addr, &runs).busyCycles, 1.4 * 16 * d->alignedTxCycles);
}

TEST(DramEstimate, OtherDevices) {
  // DDR4-3200, one channel, bank groups interleaved every 64 bytes: tCCD_S = the burst, 4 tCK at
  // best; one channel, so a write costs the reads all its time.
  const auto ddr4 = dramCostFor(hw::HwConfig::load("weft16-ddr4"));
  ASSERT_TRUE(ddr4.has_value());
  EXPECT_DOUBLE_EQ(ddr4->txBytes, 64);
  EXPECT_GE(ddr4->readTxCycles, 4 * 0.625);
  EXPECT_LT(ddr4->readTxCycles, 2 * 4 * 0.625);
  EXPECT_DOUBLE_EQ(ddr4->writeChannelCycles, ddr4->writeTxCycles);
  // HBM2 (tCK 1 ns): 32 transactions of a row in a channel at tCCD_L = 2 at best.
  const auto hbm2 = dramCostFor(hw::HwConfig::load("weft16-hbm2"));
  ASSERT_TRUE(hbm2.has_value());
  EXPECT_DOUBLE_EQ(hbm2->txBytes, 64);
  EXPECT_GE(hbm2->readTxCycles, 1.0);
  EXPECT_LT(hbm2->readTxCycles, 2 * 2.0);
  for (const auto* d : {&*ddr4, &*hbm2}) {
    std::printf("[dram estimate] %.0f-byte transactions: read %.3f (within a channel %.3f), write entry %.3f, "
                "write share %.3f cycles; channels take %llu bytes in turn\n",
                d->txBytes, d->readTxCycles, d->alignedTxCycles, d->writeTxCycles, d->writeChannelCycles,
                static_cast<unsigned long long>(d->chunkBytes));
  }
}

// Column commands one after the other in one bank group wait tCCD_L, not a stream's tCCD_S: at
// DDR4's rorabachcobg the bank group changes every 64 bytes, so a head split's 64 bytes of each
// token, 768 bytes apart, stay in one (8 tCK, 5 cycles at 1 GHz, a request, where a stream's
// transactions alternate groups at about 4.3 tCK), and so do a packed stem's 9-byte rows 6 bytes
// apart, each reading the transaction the one before read; from LOAD to LOAD too. Requests an odd
// number of transactions apart, or of two, alternate groups. LPDDR4 has no bank groups
// (tCCD_S = tCCD_L): its stream's rate holds.
TEST(DramEstimate, ColumnCommandsInOneBankGroupWaitForTheLongColumnToColumnDelay) {
  const auto ddr4Config = hw::HwConfig::load("weft16-ddr4");
  const auto d = dramCostFor(ddr4Config);
  ASSERT_TRUE(d.has_value());
  const double sameGroup = d->sameGroupRequestCycles, stream = d->alignedTxCycles;
  std::printf("[dram estimate] ddr4: a column command in the bank group of the one before %.3f cycles, a "
              "stream's transaction %.3f\n", sameGroup, stream);
  EXPECT_GE(sameGroup, 8 * 0.625);
  EXPECT_LT(sameGroup, 1.25 * 8 * 0.625);
  EXPECT_GT(sameGroup, 1.5 * stream);
  // A fresh model for each walk: the groups carry over from walk to walk.
  const auto columns = [&](uint64_t requests, uint64_t bytes, uint64_t stride) {
    return CostModel(ddr4Config).columnCycles(requests, bytes, stride, 0);
  };
  // (The first kColumnSample requests walked, the rest at their rate.)
  const double headSplit = (stream + 63 * sameGroup) * 2;
  EXPECT_NEAR(columns(128, 64, 768), headSplit, 1e-9);     // 12 transactions apart: one group
  EXPECT_NEAR(columns(64, 64, 704), 64 * stream, 1e-9);     // 11 apart: the groups alternate
  EXPECT_NEAR(columns(64, 128, 768), 128 * stream, 1e-9);   // two transactions a request
  EXPECT_GT(columns(64, 9, 6), 64 * 1.5 * stream);                    // a packed stem's rows
  const CostModel carried(ddr4Config);
  EXPECT_DOUBLE_EQ(carried.columnCycles(1, 16, 0, 0), stream);      // nothing before it
  EXPECT_DOUBLE_EQ(carried.columnCycles(1, 16, 0, 16), sameGroup);  // the transaction the LOAD before read
  EXPECT_DOUBLE_EQ(carried.columnCycles(1, 16, 0, 64), stream);     // the next: the other group
  // A LOAD of a head's 128 requests prices its channel so, row by row or in merged runs.
  RequestWalk walk;
  walk.bytes = 64, walk.count0 = 128, walk.stride0 = 768;
  // (and the rows they open besides).
  EXPECT_GE(CostModel(ddr4Config).rowLoad(128, 64, 768, 0, &walk).channelCycles, headSplit);
  const double merged = CostModel(ddr4Config).mergedLoad(128, 4, 16, 768).channelCycles;
  EXPECT_GE(merged, headSplit);
  EXPECT_LT(CostModel(ddr4Config).mergedLoad(128, 4, 16, 704).channelCycles, merged - 100 * (sameGroup - stream));
  const CostModel lpddr4(hw::HwConfig::load("weft16-lpddr4"));
  EXPECT_DOUBLE_EQ(lpddr4.columnCycles(128, 32, 768, 0), 0);
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
  // The weakest were a packed stem (-10 % before the DRAM's pricing was measured on the device;
  // -3 % now) and a fully-connected layer (-67 % before any DRAM pricing; -15 % while the search's
  // estimate, the mean over where its weights may lie, was the one reported; -6 % now that the
  // placed program's schedule is).
  shapes.push_back({"CONV_2D 56x56x3 -> 64, 7x7 / 2", makeConvModel(conv(56, 3, 64, 7, 2), rng), 0.10});
  shapes.push_back({"FULLY_CONNECTED 512 -> 1000", makeFcModel(fc, rng), 0.10});
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
