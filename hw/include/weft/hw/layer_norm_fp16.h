// LAYER_NORM in binary16 mode (hw/spec/isa.json layer_norm.fp16), bit for bit as the RTL computes
// it (rtl/weft_vec_rsqrt.sv, rtl/weft_vec_lane.sv, rtl/weft_fp_pkg.sv fp32_mul_with).
//
// The sums pass adds each lane's x (binary16, exact in binary32) and x*x (fp16_mul, exact) into
// binary32 sums S1 and S2 (fp32_add, rows in order, then the lanes in order). Between the passes
// the statistics are formed once per row in binary32: mean = S1 / N and q = S2 / N (the exact
// quotients rounded, fp32_div_count), var = q - mean*mean (fp32_mul, fp32_add; a negative
// result of the rounding is +0), v = var + epsilon, and rstd = 1 / sqrt(v) by the quant8 path's
// integer square root and reciprocal on v's significand (so no new iteration exists in the RTL):
// the exponent made even, s = isqrt(V << 2k), r = floor(2^61 / s), r rounded to 24 bits. The
// output pass writes y = (x - mean) * rstd (fp32_add, fp32_mul) as binary32; the STORE's
// fp16_affine mode applies gamma and beta (y * gamma + beta) and rounds to binary16.
//
// Precision: rstd is within 2^-23 relative of 1/sqrt(v) (r's floor and its rounding); the
// variance from E[x^2] - mean^2 loses about (mean^2 / var) * N * 2^-24 relative at worst, which
// for a row of 4096 with |mean| <= 3 standard deviations is under 2.2e-3 and typically far less.
#pragma once

#include <cstdint>

#include "weft/hw/fp16.h"
#include "weft/hw/vector_ops.h"

namespace weft::hw::vec {

// 1 / sqrt(v) for a binary32 v >= 0: +0 for +0 or -0 (a row with no spread and no epsilon writes
// zeros) and for +infinity, the quiet NaN for a NaN or a negative v; otherwise within 2^-23.
inline uint32_t layerNormFp16Rsqrt(uint32_t v) {
  const uint32_t e = (v >> 23) & 0xffu;
  if (fp::isNaN32(v) || ((v >> 31) != 0 && (v & 0x7fffffffu) != 0)) return fp::kFp32QuietNaN;
  if ((v & 0x7fffffffu) == 0 || e == 0xff) return 0;
  // v = sig * 2^(ex - 150); with the exponent made even, V * 2^E.
  const uint32_t sig = e != 0 ? (0x800000u | (v & 0x7fffffu)) : (v & 0x7fffffu);
  const uint32_t ex = e != 0 ? e : 1;
  const bool odd = (ex & 1u) != 0;
  const uint64_t big = odd ? uint64_t{sig} << 1 : uint64_t{sig};
  const int halfE = (static_cast<int>(ex) - (odd ? 151 : 150)) / 2;  // exact: even
  int msb = 63;
  while (((big >> msb) & 1) == 0) --msb;
  const int k = (63 - msb) >> 1;
  const uint64_t r = (uint64_t{1} << 61) / isqrt64(big << (2 * k));  // (2^29, 2^30]
  // 1/sqrt(v) = r * 2^(k - 61 - E/2): r rounded to 24 bits (a carry to 2^24 is the next binade).
  const uint64_t kept = r >> 6, rest = r & 63;
  const uint64_t r24 = kept + ((rest > 32 || (rest == 32 && (kept & 1) != 0)) ? 1 : 0);
  return static_cast<uint32_t>((static_cast<uint64_t>(k + 94 - halfE) << 23) + r24);
}

struct LayerNormFp16Scale {
  uint32_t mean = 0;  // binary32
  uint32_t rstd = 0;  // binary32
};

// The statistics of a row of n elements from its binary32 sums (S1 of x, S2 of x*x) and the
// binary32 epsilon.
inline LayerNormFp16Scale layerNormFp16Scale(uint32_t sum, uint32_t squares, uint32_t n, uint32_t eps) {
  const uint32_t mean = fp::fp32DivCount(sum, n);
  const uint32_t q = fp::fp32DivCount(squares, n);
  uint32_t var = fp::fp32Add(q, fp::fp32Mul(mean, mean) ^ 0x80000000u);
  if ((var >> 31) != 0 && !fp::isNaN32(var)) var = 0;  // below zero by rounding (or -0)
  return {mean, layerNormFp16Rsqrt(fp::fp32Add(var, eps))};
}

// The output pass: one element h (binary16) of the row, as binary32.
inline uint32_t layerNormFp16Output(const LayerNormFp16Scale& s, uint16_t h) {
  return fp::fp32Mul(fp::fp32Add(fp::fp16ToFp32(h), s.mean ^ 0x80000000u), s.rstd);
}

}  // namespace weft::hw::vec
