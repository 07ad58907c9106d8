// SOFTMAX's binary16 mode arithmetic (weft/hw/softmax_fp16.h, the RTL's bit for bit; the RTL
// oracle tests hold the two equal): how close its exponential, reciprocal and outputs come to
// the real functions, and its defined answers at the edges.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "weft/hw/softmax_fp16.h"

namespace weft::hw::vec {
namespace {

namespace fp = hw::fp;

uint32_t expOf(uint32_t t, uint32_t max) {
  const SoftmaxExpSplit s = softmaxExpSplit(t, max);
  return softmaxExp(s, softmaxFp16TableEntry(s.k));
}

double value(uint32_t bits) { return fp::toFloat(bits); }

// exp(d) for d in (-32, 0]: within 6e-6 relative (the fixed point's 2^-20 steps, the table's
// rounding, the first-order step over the last 12 bits and the truncation to 24 bits).
TEST(SoftmaxFp16Math, TheExponentialIsWithinSixMillionthsRelative) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> d(-31.999f, 0.0f);
  double worst = 0;
  for (int i = 0; i < 200000; ++i) {
    const float x = i < 1000 ? -static_cast<float>(i) / 32 : d(rng);
    const double e = value(expOf(fp::bitsOf(x), 0));
    worst = std::max(worst, std::abs(e - std::exp(static_cast<double>(x))) / std::exp(static_cast<double>(x)));
  }
  EXPECT_LT(worst, 6e-6);
  EXPECT_EQ(expOf(0, 0), 0x3f800000u) << "exp(0) is exactly 1";
  EXPECT_EQ(expOf(fp::bitsOf(5.0f), fp::bitsOf(5.0f)), 0x3f800000u) << "the maximum's own exponential";
}

TEST(SoftmaxFp16Math, FarBelowTheMaximumOrNotANumberIsZero) {
  EXPECT_EQ(expOf(fp::bitsOf(-32.0f), 0), 0u);
  EXPECT_EQ(expOf(fp::bitsOf(-1e30f), 0), 0u);
  EXPECT_EQ(expOf(0xff800000u, 0), 0u) << "-infinity";
  EXPECT_EQ(expOf(fp::kFp32QuietNaN, 0), 0u);
  EXPECT_EQ(expOf(0xff800000u, 0xff800000u), 0u) << "-inf - -inf is NaN";
  EXPECT_NE(expOf(fp::bitsOf(-31.99f), 0), 0u);
  EXPECT_EQ(softmaxFp16Output(0, softmaxFp16Scale(0x3f800000u), 0x3f800000u), 0u);
}

// The reciprocal of the sum: gemmlowp's 1/(1+x) of its fraction, scaled by its exponent.
TEST(SoftmaxFp16Math, TheOutputIsTheExponentialOverTheSum) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> e(1e-12f, 1.0f), s(1.0f, 4096.0f);
  double worst = 0;
  for (int i = 0; i < 100000; ++i) {
    const uint32_t eb = fp::bitsOf(e(rng)), sb = fp::bitsOf(s(rng));
    const double out = value(softmaxFp16Output(eb, softmaxFp16Scale(sb), sb));
    const double exact = value(eb) / value(sb);
    worst = std::max(worst, std::abs(out - exact) / exact);
  }
  EXPECT_LT(worst, 2e-7);
  EXPECT_EQ(softmaxFp16Output(0x3f800000u, softmaxFp16Scale(0x3f800000u), 0x3f800000u), 0x3f7fffffu)
      << "1/1: gemmlowp's reciprocal of 1 saturates just below 1 (Q0.31's largest value)";
}

// Whole rows as the vector unit computes them, against softmax in double: well inside binary16's
// tolerance (5 x 2^-10) before the STORE rounds to binary16.
TEST(SoftmaxFp16Math, RowsMatchTheRealSoftmax) {
  std::mt19937 rng(7);
  for (const float spread : {0.01f, 1.0f, 8.0f, 60.0f}) {
    std::uniform_real_distribution<float> x(-spread, spread);
    std::vector<uint16_t> row(777);
    for (uint16_t& h : row) h = fp::fp32ToFp16(fp::bitsOf(x(rng)));
    uint32_t max = 0xff800000u, sum = 0;
    for (uint16_t h : row)
      if (fp::fp32Greater(fp::fp16ToFp32(h), max)) max = fp::fp16ToFp32(h);
    for (uint16_t h : row) sum = fp::fp32Add(sum, expOf(fp::fp16ToFp32(h), max));
    double exactSum = 0;
    for (uint16_t h : row) exactSum += std::exp(fp::fp16Value(h) - value(max));
    const int32_t scale = softmaxFp16Scale(sum);
    for (uint16_t h : row) {
      const double out = value(softmaxFp16Output(expOf(fp::fp16ToFp32(h), max), scale, sum));
      const double exact = std::exp(fp::fp16Value(h) - value(max)) / exactSum;
      EXPECT_NEAR(out, exact, 1e-5 * exact + 1e-12) << "spread " << spread;
    }
  }
}

}  // namespace
}  // namespace weft::hw::vec
