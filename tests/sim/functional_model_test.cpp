#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "weft/hw/postproc.h"
#include "weft/sim/functional_model.h"
#include "weft/sim/postproc_row.h"

namespace weft::sim {
namespace {

class FunctionalModelTest : public ::testing::Test {
 protected:
  hw::HwConfig config = hw::HwConfig::load("weft8");
  FunctionalModel model{config};
  DramStorage dram{1 << 20};
  void run(const hw::CommandWord& c) {
    ASSERT_EQ(model.check(c), hw::Error::kNone);
    model.execute(c, dram);
  }
};

TEST_F(FunctionalModelTest, LoadWalksThreeLevelsAndZeroFills) {
  for (uint32_t i = 0; i < 4096; ++i) dram.data()[i] = static_cast<uint8_t>(i * 7);
  hw::LoadCmd l;
  l.dst = hw::Mem::kIn;
  l.rowBytes = 3;
  l.spadAddr = 5;
  l.dramAddr = 100;
  l.count0 = 2; l.stride0 = 10;
  l.count1 = 3; l.stride1 = 100;
  l.count2 = 2; l.stride2 = 1000;
  run(l.encode());
  uint32_t row = 5;
  for (uint32_t i2 = 0; i2 < 2; ++i2)
    for (uint32_t i1 = 0; i1 < 3; ++i1)
      for (uint32_t i0 = 0; i0 < 2; ++i0, ++row) {
        const uint32_t addr = 100 + i2 * 1000 + i1 * 100 + i0 * 10;
        for (uint32_t b = 0; b < 8; ++b) {
          EXPECT_EQ(model.inRow(row)[b], b < 3 ? dram.data()[addr + b] : 0) << row << " " << b;
        }
      }
}

TEST_F(FunctionalModelTest, GemmAndRequantStoreMatchAStraightforwardComputation) {
  std::mt19937 rng(1);
  std::uniform_int_distribution<int> byte(0, 255);
  const unsigned R = config.rows(), C = config.cols(), M = 5, K = 6;
  // inputs at 0, weights at 4096, params at 8192
  for (unsigned i = 0; i < 4096; ++i) dram.data()[i] = static_cast<uint8_t>(byte(rng));
  for (unsigned i = 0; i < 4096; ++i) dram.data()[4096 + i] = static_cast<uint8_t>(byte(rng));
  std::vector<hw::ColumnParams> params(C);
  for (unsigned n = 0; n < C; ++n) {
    params[n] = {static_cast<int32_t>(n * 100) - 300, (1 << 30) + static_cast<int32_t>(n * 12345), static_cast<int8_t>(-(int)n % 5)};
    std::memcpy(dram.data() + 8192 + 4 * n, &params[n].bias, 4);
    std::memcpy(dram.data() + 8192 + 4 * C + 4 * n, &params[n].multiplier, 4);
    dram.data()[8192 + 8 * C + n] = static_cast<uint8_t>(params[n].shift);
  }
  hw::LoadCmd li; li.dst = hw::Mem::kIn; li.rowBytes = R; li.count0 = M; li.stride0 = R; li.count1 = li.count2 = 1;
  hw::LoadCmd lw; lw.dst = hw::Mem::kW; lw.rowBytes = C; lw.dramAddr = 4096; lw.count0 = K; lw.stride0 = C; lw.count1 = lw.count2 = 1;
  hw::LoadCmd lp; lp.dst = hw::Mem::kParam; lp.rowBytes = 9 * C; lp.dramAddr = 8192; lp.count0 = lp.count1 = lp.count2 = 1;
  hw::GemmCmd g; g.kRows = K; g.mRows = M; g.inZp = 128; g.wZp = 3; g.wSigned = true;
  hw::StoreCmd s; s.rowBytes = C; s.count0 = M; s.count1 = 1; s.stride0 = C; s.dramAddr = 12288;
  s.outZp = 10; s.clampMin = 0; s.clampMax = 255;
  for (const auto& c : {li.encode(), lw.encode(), lp.encode(), g.encode(), s.encode()}) run(c);
  for (unsigned m = 0; m < M; ++m) {
    for (unsigned n = 0; n < C; ++n) {
      int32_t acc = 0;
      for (unsigned k = 0; k < K; ++k) {
        const int32_t x = dram.data()[m * R + k] - 128;
        const int32_t w = static_cast<int8_t>(dram.data()[4096 + k * C + n]) - 3;
        acc += x * w;
      }
      EXPECT_EQ(model.accRow(m)[n], acc);
      EXPECT_EQ(dram.data()[12288 + m * C + n], static_cast<uint8_t>(hw::postprocess(acc, params[n], 10, 0, 255)));
    }
  }
}

// Odd sizes: 5 k rows (a half pair), 12 columns (a group of 8 and a remainder), accumulation,
// keep_weights, signed and unsigned operands with their extreme zero points.
TEST(FunctionalModelGemm, OddShapesMatchAStraightforwardComputation) {
  const auto cfg = hw::HwConfig::load("weft8").with("Rows", 5).with("Cols", 12);
  FunctionalModel model(cfg);
  DramStorage dram(1 << 20);
  std::mt19937 rng(7);
  for (unsigned i = 0; i < 8192; ++i) dram.data()[i] = static_cast<uint8_t>(rng());
  const unsigned R = cfg.rows(), C = cfg.cols(), M = 9;
  auto run = [&](const hw::CommandWord& c) {
    ASSERT_EQ(model.check(c), hw::Error::kNone);
    model.execute(c, dram);
  };
  hw::LoadCmd li; li.dst = hw::Mem::kIn; li.rowBytes = R; li.count0 = M; li.stride0 = R; li.count1 = li.count2 = 1;
  hw::LoadCmd lw; lw.dst = hw::Mem::kW; lw.rowBytes = C; lw.dramAddr = 4096; lw.count0 = R; lw.stride0 = C; lw.count1 = lw.count2 = 1;
  run(li.encode());
  run(lw.encode());
  std::vector<int32_t> want(M * C, 0);
  struct Step { bool inSigned, wSigned, keep, accumulate; int32_t inZp, wZp; };
  const Step steps[] = {{false, true, false, false, 255, -128}, {true, false, true, true, -128, 0},
                        {true, true, false, true, 127, 127}};
  int32_t wZp = 0;
  bool wSigned = false;
  for (const Step& s : steps) {
    hw::GemmCmd g; g.kRows = R; g.mRows = M; g.inSigned = s.inSigned; g.inZp = s.inZp;
    g.keepWeights = s.keep; g.accumulate = s.accumulate;
    if (!s.keep) { wZp = s.wZp; wSigned = s.wSigned; g.wSigned = wSigned; g.wZp = wZp; }
    run(g.encode());
    for (unsigned m = 0; m < M; ++m) {
      for (unsigned n = 0; n < C; ++n) {
        uint32_t sum = s.accumulate ? static_cast<uint32_t>(want[m * C + n]) : 0;
        for (unsigned k = 0; k < R; ++k) {
          const uint8_t xb = dram.data()[m * R + k], wb = dram.data()[4096 + k * C + n];
          const int32_t x = (s.inSigned ? static_cast<int8_t>(xb) : xb) - s.inZp;
          const int32_t w = (wSigned ? static_cast<int8_t>(wb) : wb) - wZp;
          sum += static_cast<uint32_t>(x * w);
        }
        want[m * C + n] = static_cast<int32_t>(sum);
        ASSERT_EQ(model.accRow(m)[n], want[m * C + n]) << "m " << m << " n " << n;
      }
    }
  }
}

// w_transposed: weight row w_addr + n holds column n's K weights; the same GEMM as the plain one
// on the tile transposed in DRAM. Refused where there is no transposer (output-stationary or
// non-square arrays) and where its Cols rows pass the scratchpad's end.
TEST(FunctionalModelGemm, TransposedWeightsAreTheTileTransposed) {
  const auto cfg = hw::HwConfig::load("weft8");
  const unsigned R = cfg.rows(), C = cfg.cols(), M = 5, K = 6;
  DramStorage dram(1 << 20);
  std::mt19937 rng(11);
  for (unsigned i = 0; i < 8192; ++i) dram.data()[i] = static_cast<uint8_t>(rng());
  // The tile as [N, K] rows at 4096 and as [K, N] rows (its transpose) at 6144.
  for (unsigned n = 0; n < C; ++n) {
    for (unsigned k = 0; k < R; ++k) dram.data()[6144 + k * C + n] = dram.data()[4096 + n * C + k];
  }
  std::vector<int32_t> results[2];
  for (int transposed = 0; transposed < 2; ++transposed) {
    FunctionalModel model(cfg);
    hw::LoadCmd li; li.dst = hw::Mem::kIn; li.rowBytes = R; li.count0 = M; li.stride0 = R; li.count1 = li.count2 = 1;
    hw::LoadCmd lw; lw.dst = hw::Mem::kW; lw.rowBytes = C; lw.dramAddr = transposed ? 4096 : 6144;
    lw.spadAddr = 3; lw.count0 = transposed ? C : R; lw.stride0 = C; lw.count1 = lw.count2 = 1;
    hw::GemmCmd g; g.kRows = K; g.mRows = M; g.wAddr = 3; g.inSigned = true; g.inZp = -7; g.wZp = 100;
    g.wTransposed = transposed != 0;
    for (const hw::CommandWord& c : {li.encode(), lw.encode(), g.encode()}) {
      ASSERT_EQ(model.check(c), hw::Error::kNone);
      model.execute(c, dram);
    }
    for (unsigned m = 0; m < M; ++m) results[transposed].insert(results[transposed].end(), model.accRow(m), model.accRow(m) + C);
  }
  EXPECT_EQ(results[0], results[1]);
  EXPECT_NE(results[0], std::vector<int32_t>(results[0].size(), 0));

  hw::GemmCmd g; g.kRows = 4; g.mRows = 1; g.wTransposed = true;
  g.wAddr = cfg.wSpadRows() - C + 1;  // k_rows rows fit, Cols do not
  EXPECT_EQ(FunctionalModel(cfg).check(g.encode()), hw::Error::kBadAddress);
  g.wAddr = 0;
  EXPECT_EQ(FunctionalModel(cfg).check(g.encode()), hw::Error::kNone);
  EXPECT_EQ(FunctionalModel(hw::HwConfig::load("weft8os")).check(g.encode()), hw::Error::kBadValue);
  EXPECT_EQ(FunctionalModel(cfg.with("Cols", 12)).check(g.encode()), hw::Error::kBadValue);
  g.keepWeights = true;  // ignored then, as w_addr and k_rows are
  EXPECT_EQ(FunctionalModel(cfg.with("Cols", 12)).check(g.encode()), hw::Error::kNone);
}

// The row-at-once post-processing against hw::postprocess, column by column: random values with
// the extremes mixed in (INT32_MIN accumulators, biases and multipliers, shifts past +-31,
// zero points and clamps at their limits, clamp_min above clamp_max).
TEST(RequantizeRow, IsBitExactWithPostprocess) {
  std::mt19937 rng(11);
  auto pick = [&](std::initializer_list<int32_t> extremes, int32_t lo, int32_t hi) {
    if (rng() % 4 == 0) return *(extremes.begin() + rng() % extremes.size());
    return std::uniform_int_distribution<int32_t>(lo, hi)(rng);
  };
  constexpr uint32_t kCols = 21;  // two groups of 8 and a remainder
  std::vector<int32_t> acc(kCols), bias(kCols), mult(kCols), left(kCols), right(kCols);
  std::vector<int8_t> shift(kCols);
  uint8_t out[kCols];
  for (int trial = 0; trial < 20000; ++trial) {
    for (uint32_t n = 0; n < kCols; ++n) {
      acc[n] = pick({INT32_MIN, INT32_MAX, 0, -1}, INT32_MIN, INT32_MAX);
      bias[n] = pick({INT32_MIN, INT32_MAX, 0}, -100000, 100000);
      mult[n] = pick({INT32_MIN, INT32_MAX, 0, 1 << 30}, INT32_MIN, INT32_MAX);
      shift[n] = static_cast<int8_t>(pick({-128, 127, -31, 31, -32, 32, 0}, -40, 40));
      left[n] = requantLeft(shift[n]);
      right[n] = requantRight(shift[n]);
    }
    const int32_t zp = pick({-32768, 32767, 0}, -300, 300);
    const int32_t lo = pick({-32768, 32767, -128, 0}, -300, 300);
    const int32_t hi = pick({-32768, 32767, 127, 255}, -300, 300);
    requantizeRow(acc.data(), {bias.data(), mult.data(), left.data(), right.data()}, kCols, zp, lo, hi, out);
    for (uint32_t n = 0; n < kCols; ++n) {
      const hw::ColumnParams p{bias[n], mult[n], shift[n]};
      ASSERT_EQ(out[n], static_cast<uint8_t>(hw::postprocess(acc[n], p, zp, lo, hi)))
          << "acc " << acc[n] << " bias " << bias[n] << " mult " << mult[n] << " shift " << int{shift[n]}
          << " zp " << zp << " clamp " << lo << ".." << hi;
    }
  }
}

TEST_F(FunctionalModelTest, ChecksReportTheDocumentedErrors) {
  hw::CommandWord bad;
  bad.set(hw::field::kOpcode, 15);
  EXPECT_EQ(model.check(bad), hw::Error::kBadOpcode);
  hw::LoadCmd l; l.dst = hw::Mem::kIn; l.rowBytes = 9; l.count0 = l.count1 = l.count2 = 1;
  EXPECT_EQ(model.check(l.encode()), hw::Error::kBadLength);  // row larger than 8 bytes
  l.rowBytes = 8; l.spadAddr = config.inSpadRows();
  EXPECT_EQ(model.check(l.encode()), hw::Error::kBadAddress);
  hw::GemmCmd g; g.kRows = 4; g.mRows = 1; g.inZp = -1;
  EXPECT_EQ(model.check(g.encode()), hw::Error::kBadValue);  // unsigned input, negative zero point
  g.inZp = 0; g.kRows = 0;
  EXPECT_EQ(model.check(g.encode()), hw::Error::kBadLength);
  hw::StoreCmd s; s.rowBytes = 8; s.count0 = s.count1 = 1; s.paramRow = config.paramRows();
  EXPECT_EQ(model.check(s.encode()), hw::Error::kBadAddress);
}

TEST_F(FunctionalModelTest, TokenProtocolErrorsAreReported) {
  hw::GemmCmd g; g.kRows = 1; g.mRows = 1; g.header.wait0 = true;
  run(g.encode());
  ASSERT_EQ(model.protocolErrors().size(), 1u);
  EXPECT_NE(model.protocolErrors()[0].find("load->compute"), std::string::npos);
  hw::LoadCmd l; l.dst = hw::Mem::kIn; l.rowBytes = 1; l.count0 = l.count1 = l.count2 = 1;
  l.header.signal1 = true;
  run(l.encode());
  run(g.encode());
  EXPECT_EQ(model.protocolErrors().size(), 1u);
}

}  // namespace
}  // namespace weft::sim
