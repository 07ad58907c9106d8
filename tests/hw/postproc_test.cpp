#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "weft/hw/postproc.h"

namespace weft::hw {
namespace {

TEST(PostProc, RoundingDivideByPotRoundsHalfAwayFromZero) {
  EXPECT_EQ(roundingDivideByPOT(5, 1), 3);
  EXPECT_EQ(roundingDivideByPOT(-5, 1), -3);
  EXPECT_EQ(roundingDivideByPOT(4, 1), 2);
  EXPECT_EQ(roundingDivideByPOT(-6, 2), -2);
  EXPECT_EQ(roundingDivideByPOT(7, 0), 7);
}

TEST(PostProc, SrdhmSaturatesTheOneOverflow) {
  constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
  EXPECT_EQ(saturatingRoundingDoublingHighMul(kMin, kMin), std::numeric_limits<int32_t>::max());
  EXPECT_EQ(saturatingRoundingDoublingHighMul(1 << 30, 1 << 30), 1 << 29);
}

// requantize(v, M, s) approximates v * M * 2^(s - 31) to within one unit.
TEST(PostProc, RequantizeApproximatesTheRealMultiplier) {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int32_t> acc(-(1 << 20), 1 << 20);
  std::uniform_int_distribution<int32_t> mult(1 << 30, std::numeric_limits<int32_t>::max());
  std::uniform_int_distribution<int> shift(-12, 2);
  for (int i = 0; i < 10000; ++i) {
    const int32_t v = acc(rng), m = mult(rng);
    const int s = shift(rng);
    const double real = static_cast<double>(v) * m * std::ldexp(1.0, s - 31);
    if (std::abs(real) > 2e9) continue;
    EXPECT_NEAR(requantize(v, m, s), real, 1.0) << v << " " << m << " " << s;
  }
}

TEST(PostProc, PostprocessAddsBiasZeroPointAndClamps) {
  const ColumnParams p{100, 1 << 30, 0};  // multiply by 0.5
  EXPECT_EQ(postprocess(100, p, 10, 0, 255), 110);
  EXPECT_EQ(postprocess(1000, p, 10, 0, 255), 255);
  EXPECT_EQ(postprocess(-1000, p, 10, 0, 255), 0);
  EXPECT_EQ(postprocess(-1000, p, 10, -128, 127), -128);
}

}  // namespace
}  // namespace weft::hw
