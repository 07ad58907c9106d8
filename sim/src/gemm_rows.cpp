#include "weft/sim/gemm_rows.h"

#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "weft/hw/fp16.h"

// GCC 12 warns inside its own AVX-512 intrinsics (their _mm512_undefined_* operand, GCC bug
// 105593); the code is correct and GCC 13 is quiet.
#pragma GCC diagnostic push  // popped at the end: a unity batch goes on with other files
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"

// Loops over a kernel's compile-time groups and chunks: unrolled, so that the weights live in
// registers.
#define WEFT_UNROLL _Pragma("GCC unroll 16")

namespace weft::sim {
namespace {

int32_t operand(uint8_t byte, bool isSigned) {
  return isSigned ? static_cast<int32_t>(static_cast<int8_t>(byte)) : static_cast<int32_t>(byte);
}

int32_t wrapAdd(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}

bool cpuHasAvx512Vnni() {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
         __builtin_cpu_supports("avx512vnni") && __builtin_cpu_supports("avx512vbmi") &&
         __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("bmi2");
}

// ---- avx2 / scalar: 16-bit pairs ----

// One input row through the pair weights: x[2p] w[2p][n] + x[2p+1] w[2p+1][n] summed over p.
void pairRowScalar(const int16_t* xs, const int16_t* wp, uint32_t kPairs, uint32_t cols, int32_t* acc,
                   bool accumulate) {
  for (uint32_t n = 0; n < cols; ++n) {
    int32_t sum = 0;
    for (uint32_t p = 0; p < kPairs; ++p) {
      const int16_t* w = wp + (size_t{p} * cols + n) * 2;
      sum += int32_t{xs[2 * p]} * w[0] + int32_t{xs[2 * p + 1]} * w[1];
    }
    acc[n] = wrapAdd(accumulate ? acc[n] : 0, sum);
  }
}

__attribute__((target("avx2"))) void pairRowAvx2(const int16_t* xs, const int16_t* wp, uint32_t kPairs,
                                                 uint32_t cols, int32_t* acc, bool accumulate) {
  uint32_t n = 0;
  for (; n + 8 <= cols; n += 8) {
    __m256i sum = _mm256_setzero_si256();
    for (uint32_t p = 0; p < kPairs; ++p) {
      int32_t pair;
      std::memcpy(&pair, xs + 2 * p, 4);
      const __m256i w = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(wp + (size_t{p} * cols + n) * 2));
      sum = _mm256_add_epi32(sum, _mm256_madd_epi16(_mm256_set1_epi32(pair), w));
    }
    __m256i* out = reinterpret_cast<__m256i*>(acc + n);
    const __m256i base = accumulate ? _mm256_loadu_si256(out) : _mm256_setzero_si256();
    _mm256_storeu_si256(out, _mm256_add_epi32(base, sum));  // wraps, as the RTL's adders
  }
  for (; n < cols; ++n) {  // the columns past the last group of 8
    int32_t sum = 0;
    for (uint32_t p = 0; p < kPairs; ++p) {
      const int16_t* w = wp + (size_t{p} * cols + n) * 2;
      sum += int32_t{xs[2 * p]} * w[0] + int32_t{xs[2 * p + 1]} * w[1];
    }
    acc[n] = wrapAdd(accumulate ? acc[n] : 0, sum);
  }
}

// ---- avx512: VNNI over whole commands ----

struct VnniArgs {
  const uint8_t* in;
  uint32_t rowBytes;       // input row stride
  uint32_t mRows;
  const int8_t* weights;   // [G][chunks * 16][4]
  const int32_t* columnTerms;  // chunks * 16
  const int32_t* rowTerms;     // mRows, or null
  int32_t* acc;
  uint32_t cols;
  bool accumulate;
  int32_t* scratch;        // mRows rows of chunks * 16 (kernels that cannot store rows in place)
};

// One output row of NC 16-column chunks: G * NC vpdpbusd with the row's 4-byte groups broadcast,
// in two chains so that consecutive groups do not wait for each other's latency.
template <int NC, int G>
__attribute__((target("avx512f,avx512bw,avx512vnni"), always_inline)) inline void vnniRow(
    const uint8_t* x, const __m512i (&w)[G > 0 ? G : 1][NC], __m512i (&s)[NC]) {
  __m512i t[NC];
  WEFT_UNROLL for (int c = 0; c < NC; ++c) t[c] = _mm512_setzero_si512();
  WEFT_UNROLL for (int g = 0; g < G; ++g) {
    int32_t group;
    std::memcpy(&group, x + 4 * g, 4);
    const __m512i xb = _mm512_set1_epi32(group);
    WEFT_UNROLL for (int c = 0; c < NC; ++c) {
      if (g % 2 == 0) {
        s[c] = _mm512_dpbusd_epi32(s[c], xb, w[g][c]);
      } else {
        t[c] = _mm512_dpbusd_epi32(t[c], xb, w[g][c]);
      }
    }
  }
  if (G > 1) {
    WEFT_UNROLL for (int c = 0; c < NC; ++c) s[c] = _mm512_add_epi32(s[c], t[c]);
  }
}

// NC 16-column chunks, G groups of 4 k rows; the weights stay in registers for the whole
// command. Columns a multiple of 16 store in place; otherwise rows go to the scratch (whole
// chunks: a masked store overlapping the next row's load would stall every row) and are
// copied out at the end.
template <int NC, int G>
__attribute__((target("avx512f,avx512bw,avx512vnni"))) void vnniKernel(const VnniArgs& a) {
  __m512i w[G > 0 ? G : 1][NC];
  WEFT_UNROLL for (int g = 0; g < G; ++g) {
    WEFT_UNROLL for (int c = 0; c < NC; ++c) w[g][c] = _mm512_loadu_si512(a.weights + (size_t(g) * NC + c) * 64);
  }
  __m512i terms[NC];
  __mmask16 masks[NC];
  WEFT_UNROLL for (int c = 0; c < NC; ++c) {
    terms[c] = _mm512_loadu_si512(a.columnTerms + 16 * c);
    const int lanes = std::min<int>(16, int(a.cols) - 16 * c);
    masks[c] = static_cast<__mmask16>(lanes >= 16 ? 0xFFFF : (1u << lanes) - 1);
  }
  // Locals, so that the compiler need not reload them after every store.
  const bool inPlace = a.cols == 16 * NC, accumulate = a.accumulate;
  const uint32_t rowBytes = a.rowBytes, cols = a.cols, mRows = a.mRows;
  const int32_t* rowTerms = a.rowTerms;
  const uint8_t* x = a.in;
  const int32_t* old = a.acc;
  int32_t* out = inPlace ? a.acc : a.scratch;
  const size_t outStride = inPlace ? cols : 16 * NC;
  for (uint32_t m = 0; m < mRows; ++m, x += rowBytes, old += cols, out += outStride) {
    __m512i s[NC];
    WEFT_UNROLL for (int c = 0; c < NC; ++c) s[c] = terms[c];
    if (rowTerms != nullptr) {
      const __m512i r = _mm512_set1_epi32(rowTerms[m]);
      WEFT_UNROLL for (int c = 0; c < NC; ++c) s[c] = _mm512_add_epi32(s[c], r);
    }
    if (accumulate) {
      WEFT_UNROLL for (int c = 0; c < NC; ++c) s[c] = _mm512_add_epi32(s[c], _mm512_maskz_loadu_epi32(masks[c], old + 16 * c));
    }
    vnniRow<NC, G>(x, w, s);
    WEFT_UNROLL for (int c = 0; c < NC; ++c) _mm512_storeu_si512(out + 16 * c, s[c]);
  }
  if (!inPlace) {
    for (uint32_t m = 0; m < a.mRows; ++m) {
      WEFT_UNROLL for (int c = 0; c < NC; ++c) {
        _mm512_mask_storeu_epi32(a.acc + size_t{m} * a.cols + 16 * c, masks[c],
                                 _mm512_loadu_si512(a.scratch + size_t{m} * 16 * NC + 16 * c));
      }
    }
  }
}

// Eight columns (weft8): two rows share a vector, so stores are whole and aligned to rows.
// Lanes 0-7 compute row m, lanes 8-15 row m + 1, each group broadcast to its half by a permute
// of the two rows' bytes. Needs rowBytes a multiple of 4, at most 32.
template <int G>
__attribute__((target("avx512f,avx512bw,avx512vnni"))) void vnniPairKernel(const VnniArgs& a) {
  __m512i w[G > 0 ? G : 1], idx[G > 0 ? G : 1];
  const int rowDwords = int(a.rowBytes / 4);
  WEFT_UNROLL for (int g = 0; g < G; ++g) {
    w[g] = _mm512_broadcast_i64x4(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(a.weights + size_t(g) * 64)));
    idx[g] = _mm512_inserti64x4(_mm512_set1_epi32(g), _mm256_set1_epi32(rowDwords + g), 1);
  }
  const __m512i terms =
      _mm512_broadcast_i64x4(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(a.columnTerms)));
  const bool accumulate = a.accumulate;
  const uint32_t rowBytes = a.rowBytes, mRows = a.mRows;
  const int32_t* rowTerms = a.rowTerms;
  const uint8_t* x = a.in;
  int32_t* out = a.acc;
  uint32_t m = 0;
  for (; m + 2 <= mRows; m += 2, x += 2 * rowBytes, out += 16) {
    __m512i s = terms;
    if (rowTerms != nullptr) {
      s = _mm512_add_epi32(s, _mm512_inserti64x4(_mm512_set1_epi32(rowTerms[m]), _mm256_set1_epi32(rowTerms[m + 1]), 1));
    }
    if (accumulate) s = _mm512_add_epi32(s, _mm512_loadu_si512(out));
    const __m512i rows = _mm512_loadu_si512(x);
    __m512i t = _mm512_setzero_si512();
    WEFT_UNROLL for (int g = 0; g < G; ++g) {
      if (g % 2 == 0) {
        s = _mm512_dpbusd_epi32(s, _mm512_permutexvar_epi32(idx[g], rows), w[g]);
      } else {
        t = _mm512_dpbusd_epi32(t, _mm512_permutexvar_epi32(idx[g], rows), w[g]);
      }
    }
    _mm512_storeu_si512(out, _mm512_add_epi32(s, t));
  }
  if (m < a.mRows) {  // an odd last row: the low half alone
    __m512i s = terms;
    if (a.rowTerms != nullptr) s = _mm512_add_epi32(s, _mm512_set1_epi32(a.rowTerms[m]));
    if (a.accumulate) s = _mm512_add_epi32(s, _mm512_maskz_loadu_epi32(0xFF, out));
    const __m512i rows = _mm512_maskz_loadu_epi8(a.rowBytes >= 64 ? ~__mmask64{0} : (__mmask64{1} << a.rowBytes) - 1, x);
    WEFT_UNROLL for (int g = 0; g < G; ++g) s = _mm512_dpbusd_epi32(s, _mm512_permutexvar_epi32(idx[g], rows), w[g]);
    _mm512_mask_storeu_epi32(out, 0xFF, s);
  }
}

using VnniFn = void (*)(const VnniArgs&);
constexpr int kMaxGroups = 16;  // Rows <= 64

template <int NC, int... G>
constexpr std::array<VnniFn, sizeof...(G)> vnniTable(std::integer_sequence<int, G...>) {
  return {&vnniKernel<NC, G>...};
}
template <int... G>
constexpr std::array<VnniFn, sizeof...(G)> vnniPairTable(std::integer_sequence<int, G...>) {
  return {&vnniPairKernel<G>...};
}
const std::array<std::array<VnniFn, kMaxGroups + 1>, 4> kVnniKernels = {
    vnniTable<1>(std::make_integer_sequence<int, kMaxGroups + 1>{}),
    vnniTable<2>(std::make_integer_sequence<int, kMaxGroups + 1>{}),
    vnniTable<3>(std::make_integer_sequence<int, kMaxGroups + 1>{}),
    vnniTable<4>(std::make_integer_sequence<int, kMaxGroups + 1>{})};
const std::array<VnniFn, 9> kVnniPairKernels = vnniPairTable(std::make_integer_sequence<int, 9>{});

// Bytes of each row flipped by 0x80 (signed -> offset unsigned), 64 at a time.
__attribute__((target("avx512f,avx512bw"))) void flipRows(const uint8_t* in, size_t bytes, uint8_t* out) {
  const __m512i flip = _mm512_set1_epi8(static_cast<char>(0x80));
  size_t i = 0;
  for (; i + 64 <= bytes; i += 64) {
    _mm512_storeu_si512(out + i, _mm512_xor_si512(_mm512_loadu_si512(in + i), flip));
  }
  const __mmask64 tail = bytes - i == 0 ? 0 : (~__mmask64{0} >> (64 - (bytes - i)));
  _mm512_mask_storeu_epi8(out + i, tail, _mm512_xor_si512(_mm512_maskz_loadu_epi8(tail, in + i), flip));
}

// Sum of each row's first kRows bytes (rows of rowBytes <= 64 bytes).
__attribute__((target("avx512f,avx512bw"))) void rowSums(const uint8_t* in, uint32_t rowBytes, uint32_t mRows,
                                                         uint32_t kRows, int32_t* sums) {
  const __mmask64 k = kRows >= 64 ? ~__mmask64{0} : (__mmask64{1} << kRows) - 1;
  for (uint32_t m = 0; m < mRows; ++m) {
    const __m512i sad = _mm512_sad_epu8(_mm512_maskz_loadu_epi8(k, in + size_t{m} * rowBytes), _mm512_setzero_si512());
    sums[m] = static_cast<int32_t>(_mm512_reduce_add_epi64(sad));
  }
}

// The PE weights of a preload in the VNNI layout, a vector per 4-row group and 16-column chunk:
// lane n holds rows 4g..4g+3 of column 16c+n (zero past k_rows and Cols), the rows gathered
// with masked loads and interleaved by one byte permute. Then, as GemmEngine::preloadVnni
// states: s = w - w_zp when every weight fits a signed byte, else the byte as signed (flipped
// when unsigned); and the column sums of s.
struct VnniTile {
  int8_t* out;             // [G][chunks * 16][4]
  int32_t* columnSums;     // chunks * 16
  int32_t b;
};

__attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi,avx512vnni,bmi2"))) int32_t preloadVnniAvx512(
    const uint8_t* w, size_t stride, uint32_t kRows, uint32_t cols, unsigned chunks, bool wSigned, int32_t wZp,
    int8_t* out, int32_t* columnSums) {
  alignas(64) static const uint8_t transpose[64] = {
      0, 16, 32, 48, 1, 17, 33, 49, 2, 18, 34, 50, 3, 19, 35, 51, 4, 20, 36, 52, 5, 21, 37, 53,
      6, 22, 38, 54, 7, 23, 39, 55, 8, 24, 40, 56, 9, 25, 41, 57, 10, 26, 42, 58, 11, 27, 43, 59,
      12, 28, 44, 60, 13, 29, 45, 61, 14, 30, 46, 62, 15, 31, 47, 63};
  const __m512i index = _mm512_load_si512(transpose);
  const uint32_t groups = (kRows + 3) / 4;
  // Gather every group and chunk, and check whether all weights fit after the zero point.
  __m512i tiles[16][4];
  __mmask64 valid[16][4];
  bool fits = true;
  const __m512i lo = _mm512_set1_epi8(static_cast<char>(wSigned ? std::max(-128, wZp - 128) : std::max(0, wZp - 128)));
  const __m512i hi = _mm512_set1_epi8(static_cast<char>(wSigned ? std::min(127, wZp + 127) : std::min(255, wZp + 127)));
  for (uint32_t g = 0; g < groups; ++g) {
    const uint32_t rowsHere = std::min<uint32_t>(4, kRows - 4 * g);
    const uint64_t nibble = ((uint64_t{1} << rowsHere) - 1) * 0x1111111111111111ull;
    for (unsigned c = 0; c < chunks; ++c) {
      const uint32_t n = std::min<uint32_t>(16, cols - 16 * c);
      const auto colMask = static_cast<__mmask16>(n >= 16 ? 0xFFFF : (1u << n) - 1);
      const uint8_t* base = w + size_t{4 * g} * stride + 16 * c;
      const __m128i r0 = _mm_maskz_loadu_epi8(colMask, base);
      const __m128i r1 = rowsHere > 1 ? _mm_maskz_loadu_epi8(colMask, base + stride) : _mm_setzero_si128();
      const __m128i r2 = rowsHere > 2 ? _mm_maskz_loadu_epi8(colMask, base + 2 * stride) : _mm_setzero_si128();
      const __m128i r3 = rowsHere > 3 ? _mm_maskz_loadu_epi8(colMask, base + 3 * stride) : _mm_setzero_si128();
      __m512i rows = _mm512_castsi128_si512(r0);
      rows = _mm512_inserti32x4(rows, r1, 1);
      rows = _mm512_inserti32x4(rows, r2, 2);
      rows = _mm512_inserti32x4(rows, r3, 3);
      tiles[g][c] = _mm512_permutexvar_epi8(index, rows);
      valid[g][c] = _pdep_u64(colMask, 0x1111111111111111ull) * 0xF & nibble;
      const __mmask64 bad = wSigned ? (_mm512_mask_cmplt_epi8_mask(valid[g][c], tiles[g][c], lo) |
                                       _mm512_mask_cmpgt_epi8_mask(valid[g][c], tiles[g][c], hi))
                                    : (_mm512_mask_cmplt_epu8_mask(valid[g][c], tiles[g][c], lo) |
                                       _mm512_mask_cmpgt_epu8_mask(valid[g][c], tiles[g][c], hi));
      fits = fits && bad == 0;
    }
  }
  const __m512i zp = _mm512_set1_epi8(static_cast<char>(wZp));
  const __m512i flip = _mm512_set1_epi8(wSigned ? 0 : static_cast<char>(0x80));
  const __m512i ones = _mm512_set1_epi8(1);
  __m512i sums[4] = {_mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512(), _mm512_setzero_si512()};
  for (uint32_t g = 0; g < groups; ++g) {
    for (unsigned c = 0; c < chunks; ++c) {
      const __m512i s = fits ? _mm512_maskz_sub_epi8(valid[g][c], tiles[g][c], zp)
                             : _mm512_maskz_mov_epi8(valid[g][c], _mm512_xor_si512(tiles[g][c], flip));
      _mm512_storeu_si512(out + (size_t{g} * chunks + c) * 64, s);
      sums[c] = _mm512_dpbusd_epi32(sums[c], ones, s);  // 1 x s, four rows a lane
    }
  }
  for (unsigned c = 0; c < chunks; ++c) _mm512_storeu_si512(columnSums + 16 * c, sums[c]);
  return fits ? 0 : (wSigned ? wZp : wZp - 128);
}

}  // namespace

std::string_view toString(GemmIsa isa) {
  switch (isa) {
    case GemmIsa::kScalar: return "scalar";
    case GemmIsa::kAvx2: return "avx2";
    case GemmIsa::kAvx512: return "avx512";
  }
  return "?";
}

bool gemmIsaAvailable(GemmIsa isa) {
  switch (isa) {
    case GemmIsa::kScalar: return true;
    case GemmIsa::kAvx2: return __builtin_cpu_supports("avx2");
    case GemmIsa::kAvx512: return cpuHasAvx512Vnni();
  }
  return false;
}

GemmIsa selectedGemmIsa() {
  const char* scalar = std::getenv("WEFT_FUNCTIONAL_SCALAR");
  if (scalar != nullptr && std::string_view(scalar) == "1") return GemmIsa::kScalar;
  const char* forced = std::getenv("WEFT_FUNCTIONAL_ISA");
  if (forced != nullptr && *forced != '\0') {
    const std::string_view f = forced;
    if (f == "scalar") return GemmIsa::kScalar;
    if (f == "avx2" && __builtin_cpu_supports("avx2")) return GemmIsa::kAvx2;
    if (f == "avx512" && cpuHasAvx512Vnni()) return GemmIsa::kAvx512;
    throw std::invalid_argument("WEFT_FUNCTIONAL_ISA='" + std::string(f) +
                                "' is not one of scalar, avx2, avx512 that this CPU can run");
  }
  if (cpuHasAvx512Vnni()) return GemmIsa::kAvx512;
  if (__builtin_cpu_supports("avx2")) return GemmIsa::kAvx2;
  return GemmIsa::kScalar;
}

GemmEngine::GemmEngine(unsigned rows, unsigned cols, GemmIsa isa) : rows_(rows), cols_(cols), isa_(isa) {
  chunks_ = (cols_ + 15) / 16;
  reset();
}

void GemmEngine::reset() {
  kRows_ = 0;
  preloadBytes_.clear();
  fpWeightsCurrent_ = false;
  b_ = 0;
  const unsigned groups = (rows_ + 3) / 4;
  vnniWeights_.assign(size_t{groups} * chunks_ * 64, 0);
  columnSums_.assign(size_t{chunks_} * 16, 0);
  columnTerms_.assign(size_t{chunks_} * 16, 0);
  const unsigned kStride = (rows_ + 1) / 2 * 2;  // k values, padded to whole pairs
  pairWeights_.assign(size_t{cols_} * kStride, 0);
  xs_.assign(kStride, 0);
}

void GemmEngine::preload(const uint8_t* w, size_t stride, uint32_t kRows, bool wSigned, int32_t wZp) {
  kRows_ = kRows;
  preloadBytes_.resize(size_t{kRows} * cols_);
  for (uint32_t k = 0; k < kRows; ++k) std::memcpy(&preloadBytes_[size_t{k} * cols_], w + k * stride, cols_);
  preloadSigned_ = wSigned;
  preloadZp_ = wZp;
  fpWeightsCurrent_ = false;
  if (isa_ == GemmIsa::kAvx512) {
    preloadVnni(w, stride, wSigned, wZp);
    return;
  }
  std::fill(pairWeights_.begin(), pairWeights_.end(), 0);
  for (uint32_t k = 0; k < kRows; ++k) {
    for (uint32_t n = 0; n < cols_; ++n) {
      pairWeights_[(size_t{k / 2} * cols_ + n) * 2 + k % 2] =
          static_cast<int16_t>(operand(w[k * stride + n], wSigned) - wZp);
    }
  }
}

void GemmEngine::preloadVnni(const uint8_t* w, size_t stride, bool wSigned, int32_t wZp) {
  // s = w - w_zp when every weight of the tile fits a signed byte (b = 0); otherwise s is the
  // byte itself as signed (flipped when unsigned) and b the zero point in that representation.
  b_ = preloadVnniAvx512(w, stride, kRows_, cols_, chunks_, wSigned, wZp, vnniWeights_.data(), columnSums_.data());
}

void GemmEngine::stream(const uint8_t* in, uint32_t mRows, bool inSigned, int32_t inZp, int32_t* acc,
                        bool accumulate) {
  if (isa_ == GemmIsa::kAvx512) {
    streamVnni(in, mRows, inSigned, inZp, acc, accumulate);
  } else {
    streamPairs(in, mRows, inSigned, inZp, acc, accumulate);
  }
}

void GemmEngine::streamPairs(const uint8_t* in, uint32_t mRows, bool inSigned, int32_t inZp, int32_t* acc,
                             bool accumulate) {
  // Operands are 9-bit (a byte minus a zero point checked to fit), products 18-bit: a sum of up to
  // 64 of them cannot overflow int32; adding it to the accumulator wraps, as in the RTL.
  const uint32_t kPairs = (kRows_ + 1) / 2;
  const auto row = isa_ == GemmIsa::kAvx2 ? pairRowAvx2 : pairRowScalar;
  std::fill(xs_.begin(), xs_.end(), 0);
  for (uint32_t m = 0; m < mRows; ++m) {
    const uint8_t* x = in + size_t{m} * rows_;
    for (uint32_t k = 0; k < kRows_; ++k) xs_[k] = static_cast<int16_t>(operand(x[k], inSigned) - inZp);
    row(xs_.data(), pairWeights_.data(), kPairs, cols_, acc + size_t{m} * cols_, accumulate);
  }
}

void GemmEngine::streamVnni(const uint8_t* in, uint32_t mRows, bool inSigned, int32_t inZp, int32_t* acc,
                            bool accumulate) {
  // x - in_zp = u - a with u the byte as unsigned: flipped by 0x80 when signed (x = u - 128).
  const int32_t a = inSigned ? inZp + 128 : inZp;
  if (inSigned) {
    flipped_.resize(size_t{mRows} * rows_ + kInputPadding);
    flipRows(in, size_t{mRows} * rows_, flipped_.data());
    in = flipped_.data();
  }
  const int32_t k = static_cast<int32_t>(kRows_);
  for (size_t n = 0; n < columnTerms_.size(); ++n) {
    // -a sum_k s + K a b (wrapping, as every term of the identity may)
    columnTerms_[n] = static_cast<int32_t>(static_cast<uint32_t>(k) * static_cast<uint32_t>(a) * static_cast<uint32_t>(b_) -
                                           static_cast<uint32_t>(a) * static_cast<uint32_t>(columnSums_[n]));
    if (n >= cols_) columnTerms_[n] = 0;
  }
  const int32_t* rowTerms = nullptr;
  if (b_ != 0) {
    rowTerms_.resize(mRows);
    rowSums(in, rows_, mRows, kRows_, rowTerms_.data());
    for (auto& r : rowTerms_) r = static_cast<int32_t>(0u - static_cast<uint32_t>(b_) * static_cast<uint32_t>(r));
    rowTerms = rowTerms_.data();
  }
  const uint32_t groups = (kRows_ + 3) / 4;
  if (cols_ == 8 && rows_ % 4 == 0 && rows_ <= 32) {
    kVnniPairKernels[groups]({in, rows_, mRows, vnniWeights_.data(), columnTerms_.data(), rowTerms, acc, cols_,
                              accumulate, nullptr});
    return;
  }
  if (cols_ % 16 != 0) scratch_.resize(size_t{mRows} * chunks_ * 16);
  kVnniKernels[chunks_ - 1][groups]({in, rows_, mRows, vnniWeights_.data(), columnTerms_.data(), rowTerms, acc, cols_,
                                     accumulate, scratch_.data()});
}

void GemmEngine::streamFp16(const uint8_t* in, uint32_t mRows, uint32_t* acc, bool accumulate) {
  const uint32_t pairs = kRows_ / 2;
  if (!fpWeightsCurrent_) {
    // A PE holds its weight as an operand, w - w_zp in 9 bits; the fp16 pair reads its low byte.
    auto byteOf = [&](uint32_t k, uint32_t n) {
      return static_cast<uint32_t>(operand(preloadBytes_[size_t{k} * cols_ + n], preloadSigned_) - preloadZp_) & 0xffu;
    };
    fpWeights_.resize(size_t{pairs} * cols_);
    for (uint32_t j = 0; j < pairs; ++j) {
      for (uint32_t n = 0; n < cols_; ++n) {
        const auto h = static_cast<uint16_t>(byteOf(2 * j, n) | byteOf(2 * j + 1, n) << 8);
        fpWeights_[size_t{j} * cols_ + n] = hw::fp::fp16Value(h);
      }
    }
    fpWeightsCurrent_ = true;
  }
  fpInputs_.resize(pairs);
  fpSums_.resize(cols_);
  for (uint32_t m = 0; m < mRows; ++m) {
    const uint8_t* x = in + size_t{m} * rows_;
    for (uint32_t j = 0; j < pairs; ++j) {
      fpInputs_[j] = hw::fp::fp16Value(static_cast<uint16_t>(x[2 * j] | x[2 * j + 1] << 8));
    }
    // The column sums in the array's order (j ascending), each column on its own: the host's
    // float arithmetic is the RTL's (products exact, sums rounded to nearest even; the build
    // forbids contracting them into fused multiply-adds). NaN payloads are canonicalised once
    // at the end: a NaN anywhere in the chain stays a NaN.
    std::fill(fpSums_.begin(), fpSums_.end(), 0.0f);
    for (uint32_t j = 0; j < pairs; ++j) {
      const float xj = fpInputs_[j];
      const float* w = &fpWeights_[size_t{j} * cols_];
      for (uint32_t n = 0; n < cols_; ++n) fpSums_[n] = fpSums_[n] + xj * w[n];
    }
    uint32_t* row = acc + size_t{m} * cols_;
    for (uint32_t n = 0; n < cols_; ++n) {
      const uint32_t p = hw::fp::bitsOf(fpSums_[n]);
      row[n] = accumulate ? hw::fp::fp32Add(row[n], p) : (hw::fp::isNaN32(p) ? hw::fp::kFp32QuietNaN : p);
    }
  }
}

}  // namespace weft::sim

#pragma GCC diagnostic pop
