#include "weft/sim/postproc_row.h"

#include "weft/sim/gemm_rows.h"

#include <immintrin.h>

#include <algorithm>
#include <cstdlib>

// GCC 12 warns inside its own AVX-512 intrinsics (their _mm512_undefined_* operand, GCC bug
// 105593); the code is correct and GCC 13 is quiet.
#pragma GCC diagnostic push  // popped at the end: a unity batch goes on with other files
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

namespace weft::sim {
namespace {

// One column, exactly as hw::postprocess, with the shift already split.
int32_t requantizeOne(int32_t acc, int32_t bias, int32_t multiplier, int32_t left, int32_t right, int32_t outZp,
                      int32_t clampMin, int32_t clampMax) {
  const auto biased = static_cast<int32_t>(static_cast<uint32_t>(acc) + static_cast<uint32_t>(bias));
  const auto shifted = static_cast<int32_t>(static_cast<uint32_t>(biased) << left);
  const int32_t v = hw::roundingDivideByPOT(hw::saturatingRoundingDoublingHighMul(shifted, multiplier), right);
  const int64_t z = std::max<int64_t>(int64_t{v} + outZp, clampMin);  // std::clamp's order:
  return static_cast<int32_t>(std::min<int64_t>(z, clampMax));         // max with lo, min with hi
}

void requantizeRowScalar(const int32_t* acc, const RequantColumns& c, uint32_t count, int32_t outZp, int32_t clampMin,
                         int32_t clampMax, uint8_t* out) {
  for (uint32_t n = 0; n < count; ++n) {
    out[n] = static_cast<uint8_t>(
        requantizeOne(acc[n], c.bias[n], c.multiplier[n], c.left[n], c.right[n], outZp, clampMin, clampMax));
  }
}

__attribute__((target("avx2"))) inline __m256i load8(const int32_t* p) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}

// (a * b * 2) >> 32 rounded, of the int32 lanes whose products land in the 64-bit lanes of
// `product` (the even ones as given, the odd ones after a 32-bit shift).
__attribute__((target("avx2"))) inline __m256i highMulHalf(__m256i product) {
  const __m256i zero = _mm256_setzero_si256();
  const __m256i negative = _mm256_cmpgt_epi64(zero, product);
  const __m256i nudge = _mm256_blendv_epi8(_mm256_set1_epi64x(int64_t{1} << 30),
                                           _mm256_set1_epi64x(1 - (int64_t{1} << 30)), negative);
  const __m256i y = _mm256_add_epi64(product, nudge);
  // Division by 2^31 toward zero: add 2^31 - 1 to negative values, then shift. The low 32 bits
  // of a logical and an arithmetic shift by 31 agree, and the quotient fits 32 bits.
  const __m256i yNegative = _mm256_cmpgt_epi64(zero, y);
  const __m256i biasedY = _mm256_add_epi64(y, _mm256_and_si256(yNegative, _mm256_set1_epi64x(0x7fffffff)));
  return _mm256_srli_epi64(biasedY, 31);
}

__attribute__((target("avx2"))) void requantizeRowAvx2(const int32_t* acc, const RequantColumns& c, uint32_t count,
                                                       int32_t outZp, int32_t clampMin, int32_t clampMax,
                                                       uint8_t* out) {
  const __m256i zero = _mm256_setzero_si256();
  const __m256i one = _mm256_set1_epi32(1);
  const __m256i intMin = _mm256_set1_epi32(INT32_MIN);
  const __m256i intMax = _mm256_set1_epi32(INT32_MAX);
  // clamp(v + zp, lo, hi) == clamp(v, lo - zp, hi - zp) + zp, without the int32 overflow.
  const __m256i lo = _mm256_set1_epi32(clampMin - outZp);
  const __m256i hi = _mm256_set1_epi32(clampMax - outZp);
  const __m256i zp = _mm256_set1_epi32(outZp);
  uint32_t n = 0;
  for (; n + 8 <= count; n += 8) {
    const __m256i a = _mm256_sllv_epi32(_mm256_add_epi32(load8(acc + n), load8(c.bias + n)), load8(c.left + n));
    const __m256i b = load8(c.multiplier + n);
    // Saturating rounding doubling high multiply.
    const __m256i even = highMulHalf(_mm256_mul_epi32(a, b));
    const __m256i odd = highMulHalf(_mm256_mul_epi32(_mm256_srli_epi64(a, 32), _mm256_srli_epi64(b, 32)));
    __m256i v = _mm256_blend_epi32(even, _mm256_slli_epi64(odd, 32), 0xAA);
    const __m256i overflow = _mm256_and_si256(_mm256_cmpeq_epi32(a, b), _mm256_cmpeq_epi32(a, intMin));
    v = _mm256_blendv_epi8(v, intMax, overflow);
    // Rounding divide by 2^right, half away from zero.
    const __m256i right = load8(c.right + n);
    const __m256i mask = _mm256_sub_epi32(_mm256_sllv_epi32(one, right), one);
    const __m256i remainder = _mm256_and_si256(v, mask);
    const __m256i threshold = _mm256_sub_epi32(_mm256_srai_epi32(mask, 1), _mm256_cmpgt_epi32(zero, v));
    v = _mm256_sub_epi32(_mm256_srav_epi32(v, right), _mm256_cmpgt_epi32(remainder, threshold));
    // Zero point and clamp in std::clamp's order: max with lo, then min with hi.
    const __m256i atLeastLo = _mm256_blendv_epi8(v, lo, _mm256_cmpgt_epi32(lo, v));
    v = _mm256_add_epi32(_mm256_blendv_epi8(atLeastLo, hi, _mm256_cmpgt_epi32(atLeastLo, hi)), zp);
    alignas(32) int32_t lanes[8];
    _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), v);
    for (int i = 0; i < 8; ++i) out[n + i] = static_cast<uint8_t>(lanes[i]);
  }
  requantizeRowScalar(acc + n, {c.bias + n, c.multiplier + n, c.left + n, c.right + n}, count - n, outZp, clampMin,
                      clampMax, out + n);
}

// (a * b * 2) >> 32 rounded, as highMulHalf, for 8 64-bit products.
__attribute__((target("avx512f,avx512bw"))) inline __m512i highMulHalf512(__m512i product) {
  const __m512i zero = _mm512_setzero_si512();
  const __mmask8 negative = _mm512_cmplt_epi64_mask(product, zero);
  const __m512i nudge = _mm512_mask_blend_epi64(negative, _mm512_set1_epi64(int64_t{1} << 30),
                                                _mm512_set1_epi64(1 - (int64_t{1} << 30)));
  const __m512i y = _mm512_add_epi64(product, nudge);
  const __mmask8 yNegative = _mm512_cmplt_epi64_mask(y, zero);
  return _mm512_srli_epi64(_mm512_mask_add_epi64(y, yNegative, y, _mm512_set1_epi64(0x7fffffff)), 31);
}

// requantizeRowAvx2's steps over 16 columns an instruction, the tail masked.
__attribute__((target("avx512f,avx512bw"))) void requantizeRowAvx512(const int32_t* acc, const RequantColumns& c,
                                                                     uint32_t count, int32_t outZp, int32_t clampMin,
                                                                     int32_t clampMax, uint8_t* out) {
  const __m512i one = _mm512_set1_epi32(1);
  const __m512i zero = _mm512_setzero_si512();
  const __m512i intMin = _mm512_set1_epi32(INT32_MIN);
  const __m512i intMax = _mm512_set1_epi32(INT32_MAX);
  const __m512i lo = _mm512_set1_epi32(clampMin - outZp);
  const __m512i hi = _mm512_set1_epi32(clampMax - outZp);
  const __m512i zp = _mm512_set1_epi32(outZp);
  for (uint32_t n = 0; n < count; n += 16) {
    const __mmask16 m = count - n >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << (count - n)) - 1);
    const __m512i biased = _mm512_add_epi32(_mm512_maskz_loadu_epi32(m, acc + n), _mm512_maskz_loadu_epi32(m, c.bias + n));
    const __m512i a = _mm512_sllv_epi32(biased, _mm512_maskz_loadu_epi32(m, c.left + n));
    const __m512i b = _mm512_maskz_loadu_epi32(m, c.multiplier + n);
    const __m512i even = highMulHalf512(_mm512_mul_epi32(a, b));
    const __m512i odd = highMulHalf512(_mm512_mul_epi32(_mm512_srli_epi64(a, 32), _mm512_srli_epi64(b, 32)));
    __m512i v = _mm512_mask_blend_epi32(0xAAAA, even, _mm512_slli_epi64(odd, 32));
    const __mmask16 overflow = _mm512_cmpeq_epi32_mask(a, b) & _mm512_cmpeq_epi32_mask(a, intMin);
    v = _mm512_mask_mov_epi32(v, overflow, intMax);
    const __m512i right = _mm512_maskz_loadu_epi32(m, c.right + n);
    const __m512i mask = _mm512_sub_epi32(_mm512_sllv_epi32(one, right), one);
    const __m512i remainder = _mm512_and_si512(v, mask);
    const __m512i threshold = _mm512_mask_add_epi32(_mm512_srai_epi32(mask, 1), _mm512_cmplt_epi32_mask(v, zero),
                                                    _mm512_srai_epi32(mask, 1), one);
    const __m512i shifted = _mm512_srav_epi32(v, right);
    v = _mm512_mask_add_epi32(shifted, _mm512_cmpgt_epi32_mask(remainder, threshold), shifted, one);
    v = _mm512_add_epi32(_mm512_min_epi32(_mm512_max_epi32(v, lo), hi), zp);
    _mm512_mask_cvtepi32_storeu_epi8(out + n, m, v);
  }
}

using RowFn = void (*)(const int32_t*, const RequantColumns&, uint32_t, int32_t, int32_t, int32_t, uint8_t*);
// The implementation of the GEMM engine's choice (gemm_rows.h): WEFT_FUNCTIONAL_ISA / _SCALAR.
RowFn selectRowFn() {
  switch (selectedGemmIsa()) {
    case GemmIsa::kAvx512: return requantizeRowAvx512;
    case GemmIsa::kAvx2: return requantizeRowAvx2;
    case GemmIsa::kScalar: break;
  }
  return requantizeRowScalar;
}

}  // namespace

void requantizeRow(const int32_t* acc, const RequantColumns& columns, uint32_t count, int32_t outZp,
                   int32_t clampMin, int32_t clampMax, uint8_t* out) {
  static const RowFn rowFn = selectRowFn();
  rowFn(acc, columns, count, outZp, clampMin, clampMax, out);
}

}  // namespace weft::sim

#pragma GCC diagnostic pop
