// The vector unit's lane arithmetic, bit for bit as the RTL computes it (rtl/weft_vec_lane.sv,
// rtl/weft_fixed_pkg.sv): the WINDOW reductions' final division, ELTWISE's requantized add, and
// SOFTMAX's fixed-point reciprocal and output scaling (gemmlowp's, as NNAPI's reference kernels
// use them, so accelerator outputs can match the CPU reference exactly).
#pragma once

#include <cstdint>
#include <limits>

#include "weft/hw/generated.h"
#include "weft/hw/postproc.h"

namespace weft::hw::vec {

// x / 2^exponent rounded to nearest, ties away from zero, for a 64-bit x and exponents 0 .. 63.
constexpr int64_t roundingDivideByPOT64Wide(int64_t x, int exponent) {
  const int64_t mask = static_cast<int64_t>((uint64_t{1} << exponent) - 1);
  const int64_t remainder = x & mask;
  const int64_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

// x / 2^exponent rounded to nearest, ties away from zero, for exponents 0 .. 63 (gemmlowp's
// RoundingDivideByPOT widened to 64 bits, so exponents past 31 stay defined).
constexpr int32_t roundingDivideByPOT64(int32_t x, int exponent) {
  return static_cast<int32_t>(roundingDivideByPOT64Wide(x, exponent));
}

// x * 2^exponent saturated to int32 (SaturatingRoundingMultiplyByPOT<exponent>, exponent > 0).
constexpr int32_t saturatingShiftLeft(int32_t x, int exponent) {
  const int32_t threshold = static_cast<int32_t>((int64_t{1} << (31 - exponent)) - 1);
  if (x > threshold) return std::numeric_limits<int32_t>::max();
  if (x < -threshold) return std::numeric_limits<int32_t>::min();
  return static_cast<int32_t>(static_cast<uint32_t>(x) << exponent);
}

constexpr int32_t roundingHalfSum(int32_t a, int32_t b) {
  const int64_t sum = int64_t{a} + int64_t{b};
  return static_cast<int32_t>((sum + (sum >= 0 ? 1 : -1)) / 2);
}

constexpr int32_t wrappingAdd(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}

// A byte as the lane reads it, minus a zero point.
constexpr int32_t operand(uint8_t byte, bool isSigned, int32_t zeroPoint) {
  return (isSigned ? static_cast<int32_t>(static_cast<int8_t>(byte)) : static_cast<int32_t>(byte)) - zeroPoint;
}

// The raw minimum of an 8-bit type: 0 unsigned, -128 signed.
constexpr int32_t typeMin(bool isSigned) { return isSigned ? -128 : 0; }

// WINDOW: the reduction of `count` valid taps into what the accumulator row receives.
constexpr int32_t windowResult(WinKind kind, int32_t reduced, uint32_t count) {
  const auto n = static_cast<int32_t>(count);
  switch (kind) {
    case WinKind::kAvg: {
      if (n == 0) return 0;
      const int32_t half = n / 2;
      return (reduced >= 0 ? reduced + half : reduced - half) / n;
    }
    case WinKind::kMean:
      return n == 0 ? 0 : reduced / n;
    case WinKind::kDwconv:
    case WinKind::kMax:
      return reduced;
  }
  return reduced;
}

// ELTWISE add: requantize(a << leftShift, aMult, aShift) + requantize(b << leftShift, ...).
constexpr int32_t eltwiseAdd(int32_t a, int32_t b, int leftShift, int32_t aMult, int aShift, int32_t bMult,
                             int bShift) {
  const auto sa = static_cast<int32_t>(static_cast<uint32_t>(a) << leftShift);
  const auto sb = static_cast<int32_t>(static_cast<uint32_t>(b) << leftShift);
  return wrappingAdd(requantize(sa, aMult, aShift), requantize(sb, bMult, bShift));
}

// SOFTMAX's reciprocal of a sum of exponentials (Q12.19): gemmlowp's
// one_over_one_plus_x_for_x_in_0_1 of the sum shifted to [1, 2), and its leading zeros.
struct SoftmaxScale {
  int32_t scale;  // Q0.31
  int headroom;   // leading zeros of the sum (32 for 0)
};

constexpr SoftmaxScale softmaxScale(int32_t sum) {
  const auto u = static_cast<uint32_t>(sum);
  int h = 32;
  for (int i = 31; i >= 0; --i) {
    if (u & (uint32_t{1} << i)) {
      h = 31 - i;
      break;
    }
  }
  const auto shifted = static_cast<int32_t>((u << (h & 31)) - (uint32_t{1} << 31));
  const int32_t halfDenominator = roundingHalfSum(shifted, std::numeric_limits<int32_t>::max());
  constexpr int32_t k48Over17 = 1515870810, kNeg32Over17 = -1010580540, kOneQ2 = 1 << 29;
  int32_t x = wrappingAdd(k48Over17, saturatingRoundingDoublingHighMul(halfDenominator, kNeg32Over17));
  for (int i = 0; i < 3; ++i) {
    const int32_t t = saturatingRoundingDoublingHighMul(halfDenominator, x);
    const int32_t oneMinus = static_cast<int32_t>(static_cast<uint32_t>(kOneQ2) - static_cast<uint32_t>(t));
    x = wrappingAdd(x, saturatingShiftLeft(saturatingRoundingDoublingHighMul(x, oneMinus), 2));
  }
  return {saturatingShiftLeft(x, 1), h};
}

// SOFTMAX pass 2: one element's contribution to the sum (its exp, Q0.31, rescaled to Q12.19).
constexpr int32_t softmaxSumTerm(int32_t expEntry) { return roundingDivideByPOT64(expEntry, 12); }

// SOFTMAX pass 3: one element's output before the STORE's clamp.
constexpr int32_t softmaxOutput(const SoftmaxScale& s, int32_t expEntry, bool isSigned) {
  return roundingDivideByPOT64(saturatingRoundingDoublingHighMul(s.scale, expEntry), 35 - s.headroom) +
         typeMin(isSigned);
}

// LAYER_NORM (hw/spec/isa.json): the statistics of a row of N elements x (sums S1 of x, S2 of
// x*x) become a reciprocal square root r and a rounding shift, so that an element's output,
// roundingDivideByPOT((N*x - S1) * r, shift), is (x - mean) / sqrt(variance + epsilon) in
// Q(outShift). The RTL forms V = N*S2 - S1^2 + eps (modulo 2^64), normalizes it by an even shift
// 2k, takes its integer square root and divides 2^61 by it, two bits a cycle each.
struct LayerNormScale {
  int64_t reciprocal = 0;  // floor(2^61 / isqrt(V << 2k)), in (2^29, 2^30]; 0 when V = 0
  int shift = 0;           // 61 - k - outShift
};

// floor(sqrt(a)) by the restoring method, two bits of a an iteration (the RTL does two a cycle).
constexpr uint32_t isqrt64(uint64_t a) {
  uint64_t remainder = 0, root = 0;
  for (int i = 31; i >= 0; --i) {
    remainder = (remainder << 2) | ((a >> (2 * i)) & 3);
    const uint64_t trial = (root << 2) | 1;
    if (remainder >= trial) {
      remainder -= trial;
      root = (root << 1) | 1;
    } else {
      root <<= 1;
    }
  }
  return static_cast<uint32_t>(root);
}

constexpr LayerNormScale layerNormScale(int32_t sum, int32_t squares, uint32_t n, uint64_t eps, unsigned outShift) {
  const uint64_t v = uint64_t{n} * static_cast<uint32_t>(squares) -
                     static_cast<uint64_t>(int64_t{sum} * int64_t{sum}) + eps;
  if (v == 0) return {0, static_cast<int>(61 - outShift)};
  int msb = 63;
  while (((v >> msb) & 1) == 0) --msb;
  const int k = (63 - msb) >> 1;
  const uint64_t s = isqrt64(v << (2 * k));
  return {static_cast<int64_t>((uint64_t{1} << 61) / s), 61 - k - static_cast<int>(outShift)};
}


// LAYER_NORM's output pass: one element x (byte - zero point) of a row of n with sum S1.
constexpr int32_t layerNormOutput(const LayerNormScale& s, int32_t x, uint32_t n, int32_t sum) {
  const int64_t centred = static_cast<int32_t>(static_cast<uint32_t>(n) * static_cast<uint32_t>(x) -
                                               static_cast<uint32_t>(sum));
  return static_cast<int32_t>(roundingDivideByPOT64Wide(centred * s.reciprocal, s.shift));
}

}  // namespace weft::hw::vec
