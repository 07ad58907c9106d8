// SOFTMAX in binary16 mode (hw/spec/isa.json softmax.fp16), bit for bit as the RTL computes it
// (rtl/weft_fp_pkg.sv softmax_exp_split, softmax_exp, softmax_fp_out; rtl/weft_vec_lane.sv).
//
// Why not the quant8 path's table of exp(-d): binary16 inputs spread over 2^40 and the distance
// to the maximum is not a small integer. The exponential is computed as 2^(-u) with u = |d|
// log2(e) in fixed point (20 fraction bits): its integer part is the result's exponent, the top 8
// fraction bits index a table of 2^(k/256) (Q1.30, written by the driver into the vector unit's
// lookup table), and the 12 below take one first-order step, 1 + r ln 2 (its error is under
// 4e-6 relative, against binary16's 4.9e-4). The sum is binary32 and the reciprocal is the
// quant8 softmax's fixed-point one (gemmlowp's, on the sum's fraction), so only the exp and the
// two multiplies are new hardware.
#pragma once

#include <cmath>
#include <cstdint>

#include "weft/hw/fp16.h"
#include "weft/hw/vector_ops.h"

namespace weft::hw::vec {

inline constexpr uint64_t kLog2eQ30 = 1549082005;  // round(log2(e) * 2^30)
inline constexpr uint64_t kLn2Q20 = 726817;        // round(ln(2) * 2^20)

// The table entry k (of LutEntries) for the fp16 exp: 2^(k/256) in Q1.30, rounded.
inline uint32_t softmaxFp16TableEntry(uint32_t k) {
  return static_cast<uint32_t>(std::llround(std::exp2(k / 256.0) * 1073741824.0));
}

// exp(t - M) split as the lane registers it: zero when |d| >= 32 or d is not a number
// (d = fp32_add(t, -M)); else, with u = |d| log2(e) in Q.20, 2^(-n + f/2^20) where n is u
// rounded up to an integer and f = n*2^20 - u, as k (f's top 8 bits) and r (the 12 below).
struct SoftmaxExpSplit {
  bool zero = true;
  uint32_t n = 0;  // the exponent's magnitude: ceil(u / 2^20), 0 .. 49
  uint32_t k = 0;  // the table index, 0 .. 255
  uint32_t r = 0;  // the rest, 0 .. 4095
};

inline SoftmaxExpSplit softmaxExpSplit(uint32_t t, uint32_t max) {
  const uint32_t d = fp::fp32Add(t, max ^ 0x80000000u);
  const uint32_t e = (d >> 23) & 0xffu;
  if (e >= 132) return {};  // |d| >= 32, infinity or NaN
  // a = floor(|d| * 2^20): the significand times 2^(e - 130); subnormals give 0.
  const uint32_t sig = 0x800000u | (d & 0x7fffffu);
  uint64_t a = 0;
  if (e >= 130) {
    a = uint64_t{sig} << (e - 130);
  } else if (e != 0 && 130 - e <= 23) {
    a = sig >> (130 - e);
  }
  const uint64_t u = (a * kLog2eQ30) >> 30;
  const auto n = static_cast<uint32_t>((u + 0xfffff) >> 20);
  const auto f = static_cast<uint32_t>((uint64_t{n} << 20) - u);
  return {false, n, f >> 12, f & 0xfffu};
}

// Position of the most significant set bit of v (v != 0).
constexpr int msb64(uint64_t v) {
  int m = 0;
  while (v >>= 1) ++m;
  return m;
}

// m * 2^(exponent - bias) truncated to 24 significant bits, as binary32 (m != 0; the caller keeps
// the biased exponent within 1 .. 254).
constexpr uint32_t fp32FromScaled(uint64_t m, int biasedAtBit0) {
  const int top = msb64(m);
  const uint64_t sig = top >= 23 ? m >> (top - 23) : m << (23 - top);
  return static_cast<uint32_t>((top + biasedAtBit0) << 23) | static_cast<uint32_t>(sig & 0x7fffffu);
}

// e = 2^(-n) * m / 2^30, m = T + floor(T * r * ln2 / 2^40), T the table entry of k: always a
// normal binary32 (n <= 49, m < 2^33), or +0.
inline uint32_t softmaxExp(const SoftmaxExpSplit& s, uint32_t tableEntry) {
  if (s.zero) return 0;
  const uint64_t m = tableEntry + ((uint64_t{tableEntry} * (s.r * kLn2Q20)) >> 40);
  if (m == 0) return 0;
  return fp32FromScaled(m, 127 - 30 - static_cast<int>(s.n));
}

// The reciprocal of the sum S (binary32) in Q0.31: gemmlowp's 1/(1+x) of its 23 fraction bits.
inline int32_t softmaxFp16Scale(uint32_t sum) {
  return softmaxScale(static_cast<int32_t>(0x80000000u | (sum & 0x7fffffu) << 8)).scale;
}

// out = e * scale * 2^-31 * 2^-(S's exponent - 127), truncated to 24 significant bits; +0 for
// e = 0 and below binary32's normal range, infinity above it.
inline uint32_t softmaxFp16Output(uint32_t e, int32_t scale, uint32_t sum) {
  if ((e & 0x7f800000u) == 0 || scale <= 0) return 0;
  const uint64_t p = uint64_t{0x800000u | (e & 0x7fffffu)} * static_cast<uint32_t>(scale);
  const int biased = msb64(p) + static_cast<int>((e >> 23) & 0xffu) - static_cast<int>((sum >> 23) & 0xffu) + 73;
  if (biased <= 0) return 0;
  if (biased >= 255) return 0x7f800000u;
  return fp32FromScaled(p, biased - msb64(p));
}

}  // namespace weft::hw::vec
