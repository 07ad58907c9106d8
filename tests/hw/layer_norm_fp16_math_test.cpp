// LAYER_NORM's binary16 mode arithmetic (weft/hw/layer_norm_fp16.h, the RTL's bit for bit; the
// RTL oracle tests hold the two equal): how close its reciprocal square root and its rows come to
// the real functions, its defined answers at the edges, and the STORE's fp16_affine mode.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "weft/hw/layer_norm_fp16.h"

namespace weft::hw::vec {
namespace {

namespace fp = hw::fp;

double value(uint32_t bits) { return fp::toFloat(bits); }

// 1/sqrt(v) within 2^-23 relative for every positive finite binary32, subnormals included (the
// integer root's and the reciprocal's floors, then one rounding to 24 bits).
TEST(LayerNormFp16Math, TheReciprocalSquareRootIsWithinOneUlp) {
  std::mt19937 rng(5);
  double worst = 0;
  auto check = [&](uint32_t v) {
    const double want = 1.0 / std::sqrt(value(v));
    const double got = value(layerNormFp16Rsqrt(v));
    worst = std::max(worst, std::abs(got - want) / want);
  };
  for (uint32_t v = 1; v < 1000; ++v) check(v);                      // the least subnormals
  for (uint32_t e = 0; e < 255; ++e) check(e << 23 | 0x7fffffu);     // each binade's top
  for (uint32_t e = 1; e < 255; ++e) check(e << 23);                 // powers of two: exact
  for (int i = 0; i < 2000000; ++i) check(static_cast<uint32_t>(rng()) % 0x7f800000u + 1);
  EXPECT_LT(worst, std::ldexp(1.0, -23));
  EXPECT_EQ(layerNormFp16Rsqrt(fp::bitsOf(1.0f)), fp::bitsOf(1.0f));
  EXPECT_EQ(layerNormFp16Rsqrt(fp::bitsOf(4.0f)), fp::bitsOf(0.5f));
  EXPECT_EQ(layerNormFp16Rsqrt(fp::bitsOf(0.25f)), fp::bitsOf(2.0f));
}

TEST(LayerNormFp16Math, ZeroInfinityNegativeAndNaNHaveDefinedAnswers) {
  EXPECT_EQ(layerNormFp16Rsqrt(0), 0u) << "a row with no spread and no epsilon writes zeros";
  EXPECT_EQ(layerNormFp16Rsqrt(0x80000000u), 0u);
  EXPECT_EQ(layerNormFp16Rsqrt(0x7f800000u), 0u);
  EXPECT_EQ(layerNormFp16Rsqrt(fp::bitsOf(-1.0f)), fp::kFp32QuietNaN);
  EXPECT_EQ(layerNormFp16Rsqrt(0x7fc00001u), fp::kFp32QuietNaN);
  // A constant row: mean exact, d = 0, y = +0 (with or without epsilon).
  const uint16_t three = 0x4200;
  uint32_t sum = 0, squares = 0;
  for (int i = 0; i < 768; ++i) {
    sum = fp::fp32Add(sum, fp::fp16ToFp32(three));
    squares = fp::fp32Add(squares, fp::fp16Mul(three, three));
  }
  for (uint32_t eps : {0u, fp::bitsOf(1e-5f)}) {
    const LayerNormFp16Scale s = layerNormFp16Scale(sum, squares, 768, eps);
    EXPECT_EQ(s.mean, fp::bitsOf(3.0f));
    EXPECT_EQ(layerNormFp16Output(s, three), 0u);
  }
}

// Whole rows as the hardware sums them (lane by lane, then across Cols/2 = 8 lanes) against
// layer normalization in double on the same binary16 inputs: within 2e-4 absolute where the mean
// is within 3 standard deviations (the variance as E[x^2] - mean^2 in binary32), every size from
// one element to 4096.
TEST(LayerNormFp16Math, RowsAreWithinTwoTenThousandthsOfDouble) {
  std::mt19937 rng(7);
  double worst = 0;
  for (uint32_t n : {2u, 7u, 64u, 100u, 768u, 1024u, 4096u}) {
    for (double ratio : {0.0, 1.0, 3.0}) {
      for (double sigma : {1e-2, 1.0, 30.0}) {
        std::normal_distribution<float> draw(static_cast<float>(ratio * sigma), static_cast<float>(sigma));
        std::vector<uint16_t> x(n);
        for (auto& h : x) h = fp::fp32ToFp16(fp::bitsOf(draw(rng)));
        const uint32_t lanes = 8;
        std::vector<uint32_t> s1(lanes), s2(lanes);
        for (uint32_t e = 0; e < n; ++e) {
          s1[e % lanes] = fp::fp32Add(s1[e % lanes], fp::fp16ToFp32(x[e]));
          s2[e % lanes] = fp::fp32Add(s2[e % lanes], fp::fp16Mul(x[e], x[e]));
        }
        uint32_t sum = 0, squares = 0;
        for (uint32_t l = 0; l < lanes; ++l) {
          sum = fp::fp32Add(sum, s1[l]);
          squares = fp::fp32Add(squares, s2[l]);
        }
        const float eps = 1e-5f;
        const LayerNormFp16Scale s = layerNormFp16Scale(sum, squares, n, fp::bitsOf(eps));
        double mean = 0, var = 0;
        for (uint16_t h : x) mean += fp::fp16Value(h);
        mean /= n;
        for (uint16_t h : x) var += (fp::fp16Value(h) - mean) * (fp::fp16Value(h) - mean);
        var /= n;
        for (uint16_t h : x) {
          const double want = (fp::fp16Value(h) - mean) / std::sqrt(var + eps);
          worst = std::max(worst, std::abs(value(layerNormFp16Output(s, h)) - want));
        }
      }
    }
  }
  EXPECT_LT(worst, 2e-4);
}

TEST(LayerNormFp16Math, AffineStoreMultipliesThenAdds) {
  const uint16_t noLo = 0xfc00, noHi = 0x7c00;
  EXPECT_EQ(fp::storeFp16Affine(fp::bitsOf(1.5f), fp::bitsOf(2.0f), fp::bitsOf(0.25f), noLo, noHi), 0x4280);  // 3.25
  EXPECT_EQ(fp::storeFp16Affine(fp::bitsOf(-1.0f), 0, fp::bitsOf(0.5f), noLo, noHi), 0x3800);  // gamma 0: beta
  EXPECT_EQ(fp::storeFp16Affine(fp::bitsOf(60000.0f), fp::bitsOf(2.0f), 0, noLo, noHi), 0x7c00);  // past 65504
  EXPECT_EQ(fp::storeFp16Affine(fp::kFp32QuietNaN, fp::bitsOf(1.0f), 0, 0, 0x4600), fp::kFp16QuietNaN);
  EXPECT_EQ(fp::storeFp16Affine(fp::bitsOf(9.0f), fp::bitsOf(1.0f), 0, 0, 0x4600), 0x4600);  // relu6
}

}  // namespace
}  // namespace weft::hw::vec
