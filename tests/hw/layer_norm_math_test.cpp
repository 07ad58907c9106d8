// LAYER_NORM's fixed-point arithmetic (weft/hw/vector_ops.h, as the RTL computes it) against the
// real normalization: the integer square root is exact, and an element's output is
// (x - mean) / sqrt(variance + epsilon) * 2^outShift to within one unit plus a few parts in 10^8.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "weft/hw/vector_ops.h"

namespace weft::hw::vec {
namespace {

TEST(LayerNormMath, IntegerSquareRootIsTheFloor) {
  std::mt19937_64 rng(3);
  for (uint64_t a : {uint64_t{0}, uint64_t{1}, uint64_t{3}, uint64_t{4}, uint64_t{1} << 62, ~uint64_t{0},
                     (uint64_t{1} << 32) * (uint64_t{1} << 32 >> 1)}) {
    const unsigned __int128 r = isqrt64(a);
    EXPECT_LE(r * r, a) << a;
    EXPECT_GT((r + 1) * (r + 1), a) << a;
  }
  for (int i = 0; i < 20000; ++i) {
    const uint64_t a = rng() >> (rng() % 64);
    const unsigned __int128 r = isqrt64(a);
    EXPECT_LE(r * r, a);
    EXPECT_GT((r + 1) * (r + 1), a);
  }
}

// Random rows (lengths 1 .. 4096, zero points, spreads from one level to the whole byte,
// epsilons from 0 to past the variance): every element within one unit of the real value.
TEST(LayerNormMath, OutputsAreTheNormalizedRowInFixedPoint) {
  std::mt19937 rng(11);
  auto uni = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int trial = 0; trial < 400; ++trial) {
    const auto n = static_cast<uint32_t>(trial < 4 ? trial + 1 : uni(1, 4096));
    const int zp = uni(-128, 255), centre = uni(-128, 255), spread = uni(0, 255);
    const auto outShift = static_cast<unsigned>(uni(0, 20));
    std::vector<int32_t> x(n);
    int32_t sum = 0, squares = 0;
    for (auto& v : x) {
      v = std::clamp(centre + uni(-spread, spread), -128, 255) - zp;
      sum += v;
      squares += v * v;
    }
    const double mean = static_cast<double>(sum) / n;
    double variance = 0;
    for (int32_t v : x) variance += (v - mean) * (v - mean);
    variance /= n;
    const double epsilonQ = uni(0, 3) == 0 ? 0.0 : std::pow(10.0, uni(-6, 2));  // in squared input units
    const auto eps = static_cast<uint64_t>(std::llround(epsilonQ * n * n));
    const LayerNormScale s = layerNormScale(sum, squares, n, eps, outShift);
    const double denominator = variance + static_cast<double>(eps) / (double{1.0} * n * n);
    for (uint32_t i = 0; i < n; ++i) {
      const double want = denominator == 0 ? 0.0 : (x[i] - mean) / std::sqrt(denominator) * std::ldexp(1.0, outShift);
      const int32_t got = layerNormOutput(s, x[i], n, sum);
      ASSERT_NEAR(got, want, 1.0 + 1e-7 * std::fabs(want)) << "n " << n << " element " << i << " shift " << outShift;
    }
  }
}

TEST(LayerNormMath, EqualElementsWithoutEpsilonGiveZero) {
  const LayerNormScale s = layerNormScale(7 * 100, 49 * 100, 100, 0, 12);
  EXPECT_EQ(s.reciprocal, 0);
  EXPECT_EQ(layerNormOutput(s, 7, 100, 700), 0);
}

}  // namespace
}  // namespace weft::hw::vec
