// The fp16 datapath's arithmetic (fp16 products, fp32 accumulation, fp16 results; the vector
// unit's fp16 reductions and lookups), bit for bit as the RTL computes it (rtl/weft_fp_pkg.sv): IEEE 754 binary16 and binary32, round to nearest
// even, subnormals kept, and every NaN result the canonical quiet NaN.
//
// Values travel as their bit patterns (uint16_t, uint32_t): the models move bytes, and a NaN's
// payload must not depend on what the host's floating point unit does with it. The binary32
// sum and product are the host's own (IEEE arithmetic, which C++ on x86-64 and AArch64 gives
// without -ffast-math); the conversions are spelt out, as the RTL does them.
#pragma once

#include <cstdint>
#include <cstring>

namespace weft::hw::fp {

inline constexpr uint32_t kFp32QuietNaN = 0x7fc00000u;
inline constexpr uint16_t kFp16QuietNaN = 0x7e00u;

inline float toFloat(uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

inline uint32_t bitsOf(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  return bits;
}

inline bool isNaN32(uint32_t bits) { return (bits & 0x7fffffffu) > 0x7f800000u; }

// binary16 -> binary32, exact.
inline uint32_t fp16ToFp32(uint16_t h) {
  const uint32_t sign = uint32_t{h & 0x8000u} << 16;
  const uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 31) return m != 0 ? kFp32QuietNaN : sign | 0x7f800000u;
  if (e != 0) return sign | ((e + 112) << 23) | (m << 13);
  if (m == 0) return sign;
  // A subnormal, m * 2^-24: its leading one at bit 9 - lz becomes the hidden bit.
  uint32_t lz = 0;
  while ((m << lz & 0x200u) == 0) ++lz;
  return sign | ((112 - lz) << 23) | (((m << (lz + 1)) & 0x3ffu) << 13);
}

// The binary32 product of two binary16 values: exact (at most 22 significand bits, always in
// binary32's normal range).
inline uint32_t fp16Mul(uint16_t a, uint16_t b) {
  const uint32_t p = bitsOf(toFloat(fp16ToFp32(a)) * toFloat(fp16ToFp32(b)));
  return isNaN32(p) ? kFp32QuietNaN : p;
}

// binary32 + binary32, rounded to nearest even.
inline uint32_t fp32Add(uint32_t a, uint32_t b) {
  const uint32_t s = bitsOf(toFloat(a) + toFloat(b));
  return isNaN32(s) ? kFp32QuietNaN : s;
}

// binary32 * binary32, rounded to nearest even (IEEE's product: subnormals in and out).
inline uint32_t fp32Mul(uint32_t a, uint32_t b) {
  const uint32_t p = bitsOf(toFloat(a) * toFloat(b));
  return isNaN32(p) ? kFp32QuietNaN : p;
}

// binary32 -> binary16, rounded to nearest even (past 65504 to infinity, below the least
// subnormal's half to zero).
inline uint16_t fp32ToFp16(uint32_t f) {
  const auto sign = static_cast<uint16_t>((f >> 16) & 0x8000u);
  const uint32_t e = (f >> 23) & 0xffu, m = f & 0x7fffffu;
  if (e == 0xff) return m != 0 ? kFp16QuietNaN : static_cast<uint16_t>(sign | 0x7c00u);
  if (e >= 143) return static_cast<uint16_t>(sign | 0x7c00u);
  if (e >= 113) {
    // Ten fraction bits kept, thirteen rounded away; a carry runs into the exponent (up to
    // infinity, exactly its encoding).
    const uint32_t kept = ((e - 112) << 10) | (m >> 13);
    const uint32_t rest = m & 0x1fffu;
    const bool up = rest > 0x1000u || (rest == 0x1000u && (kept & 1u) != 0);
    return static_cast<uint16_t>(sign | (kept + (up ? 1 : 0)));
  }
  // Subnormal: {1, m} * 2^(e - 150) in units of 2^-24 is {1, m} >> (126 - e).
  const uint32_t shift = 126 - e;
  if (e == 0 || shift > 25) return sign;  // under a quarter of the least subnormal
  const uint32_t sig = 0x800000u | m;
  const uint32_t q = sig >> shift;
  const uint32_t rest = sig & ((1u << shift) - 1), half = 1u << (shift - 1);
  const bool up = rest > half || (rest == half && (q & 1u) != 0);
  return static_cast<uint16_t>(sign | (q + (up ? 1 : 0)));  // a carry into bit 10 is the least normal
}

inline bool isNaN16(uint16_t h) { return (h & 0x7fffu) > 0x7c00u; }

// a > b for binary32 values, numerically: false when either is a NaN, -0 equals +0 (the vector
// unit's fp16 max).
inline bool fp32Greater(uint32_t a, uint32_t b) { return !isNaN32(a) && !isNaN32(b) && toFloat(a) > toFloat(b); }

// binary32 / count for a count of 1 .. 2^24: the exact quotient rounded to nearest even
// (subnormal results rounded at their own precision, as IEEE division does); +0 for count 0
// (the vector unit's fp16 average of no taps).
inline uint32_t fp32DivCount(uint32_t a, uint32_t count) {
  if (count == 0) return 0;
  const uint32_t q = bitsOf(toFloat(a) / static_cast<float>(count));
  return isNaN32(q) ? kFp32QuietNaN : q;
}

// The integer 0 .. 255 as binary16, exactly.
inline uint16_t u8ToFp16(uint8_t v) {
  if (v == 0) return 0;
  int p = 7;
  while ((v >> p) == 0) --p;  // the leading one
  return static_cast<uint16_t>(((15 + p) << 10) | ((uint32_t{v} << (10 - p)) & 0x3ffu));
}

// ELTWISE lut in fp16 mode: the piece e = lut[h >> 8] of a piecewise-linear function, its value
// at the piece's start (e's low half, binary16) plus its slope (e's high half, binary16, per unit
// of h's low byte) times h's low byte.
inline uint32_t lutPiece(uint32_t entry, uint16_t h) {
  return fp32Add(fp16ToFp32(static_cast<uint16_t>(entry & 0xffffu)),
                 fp16Mul(static_cast<uint16_t>(entry >> 16), u8ToFp16(static_cast<uint8_t>(h & 0xffu))));
}

// binary16 as a float (exact): for comparisons.
inline float fp16Value(uint16_t h) { return toFloat(fp16ToFp32(h)); }

// STORE mode fp16 for one column (hw/spec/isa.json): the accumulator word plus the bias word as
// binary32, rounded to binary16, clamped to [lo, hi] read as binary16 values (numeric
// comparisons: -0 equals +0, and a NaN bound clamps nothing); a NaN stays the canonical NaN.
// clampFp16 is that clamp.
inline uint16_t clampFp16(uint16_t h, uint16_t lo, uint16_t hi) {
  if (isNaN16(h)) return h;
  if (fp16Value(h) < fp16Value(lo)) return lo;
  if (fp16Value(h) > fp16Value(hi)) return hi;
  return h;
}

inline uint16_t storeFp16(uint32_t acc, uint32_t bias, uint16_t lo, uint16_t hi) {
  return clampFp16(fp32ToFp16(fp32Add(acc, bias)), lo, hi);
}

// STORE mode fp16_affine: the accumulator word times the multiplier word, plus the bias word, each
// step a binary32 operation rounded to nearest even (fp32_mul, then fp32_add), then as fp16 mode.
inline uint16_t storeFp16Affine(uint32_t acc, uint32_t mult, uint32_t bias, uint16_t lo, uint16_t hi) {
  return clampFp16(fp32ToFp16(fp32Add(fp32Mul(acc, mult), bias)), lo, hi);
}

}  // namespace weft::hw::fp
