// The post-processing arithmetic of the store unit, bit for bit as the RTL computes it
// (rtl/weft_postproc.sv). It is the gemmlowp/TFLite fixed-point requantization that NNAPI's
// reference kernels use, so accelerator outputs can match the CPU reference exactly.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>

namespace weft::hw {

// (a * b * 2) >> 32, rounded to nearest (ties away from zero), saturating the one overflow case.
constexpr int32_t saturatingRoundingDoublingHighMul(int32_t a, int32_t b) {
  if (a == b && a == std::numeric_limits<int32_t>::min()) {
    return std::numeric_limits<int32_t>::max();
  }
  const int64_t ab = static_cast<int64_t>(a) * static_cast<int64_t>(b);
  const int64_t nudge = ab >= 0 ? (int64_t{1} << 30) : (1 - (int64_t{1} << 30));
  // Division, not a shift: gemmlowp rounds this quotient toward zero.
  return static_cast<int32_t>((ab + nudge) / (int64_t{1} << 31));
}

// x / 2^exponent rounded to nearest, ties away from zero.
constexpr int32_t roundingDivideByPOT(int32_t x, int exponent) {
  const int32_t mask = static_cast<int32_t>((int64_t{1} << exponent) - 1);
  const int32_t remainder = x & mask;
  const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

// shift > 0 multiplies by 2^shift first (wrapping, as the hardware does), shift < 0 divides.
// The hardware saturates the shift to [-31, 31].
constexpr int32_t requantize(int32_t value, int32_t multiplier, int shift) {
  shift = std::clamp(shift, -31, 31);
  const int left = shift > 0 ? shift : 0;
  const int right = shift > 0 ? 0 : -shift;
  const auto shifted = static_cast<int32_t>(static_cast<uint32_t>(value) << left);
  return roundingDivideByPOT(saturatingRoundingDoublingHighMul(shifted, multiplier), right);
}

// Parameters of one output column in requant8 mode (one entry of a parameter-memory row).
struct ColumnParams {
  int32_t bias = 0;
  int32_t multiplier = 0;
  int8_t shift = 0;
};

// One STORE column in requant8 mode: the value whose low 8 bits reach DRAM.
constexpr int32_t postprocess(int32_t acc, const ColumnParams& p, int32_t outZeroPoint,
                              int32_t clampMin, int32_t clampMax) {
  const auto biased = static_cast<int32_t>(static_cast<uint32_t>(acc) + static_cast<uint32_t>(p.bias));
  const int64_t v = static_cast<int64_t>(requantize(biased, p.multiplier, p.shift)) + outZeroPoint;
  return static_cast<int32_t>(std::clamp<int64_t>(v, clampMin, clampMax));
}

}  // namespace weft::hw
