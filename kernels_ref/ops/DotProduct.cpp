// Each loop is compiled three times, for AVX-512, AVX2 and the baseline, and the widest the CPU
// has is chosen once (the way sim/src/gemm_rows.cpp picks its kernels): the same integer sums,
// several times faster with the wider vectors. Sums wrap through uint32_t, so an overflowing sum
// is defined and the same in every version.
#include "DotProduct.h"

namespace weft::nn {
namespace {

__attribute__((always_inline)) inline int32_t dotBody(const int16_t* a, const int16_t* b, size_t n) {
  uint32_t sum = 0;
  for (size_t i = 0; i < n; ++i) sum += static_cast<uint32_t>(int32_t{a[i]} * b[i]);
  return static_cast<int32_t>(sum);
}

__attribute__((always_inline)) inline void dot4Body(const int16_t* rows, const int16_t* w, size_t n, int32_t acc[4]) {
  const int16_t *r0 = rows, *r1 = rows + n, *r2 = rows + 2 * n, *r3 = rows + 3 * n;
  uint32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  for (size_t i = 0; i < n; ++i) {
    const int32_t weight = w[i];
    s0 += static_cast<uint32_t>(r0[i] * weight);
    s1 += static_cast<uint32_t>(r1[i] * weight);
    s2 += static_cast<uint32_t>(r2[i] * weight);
    s3 += static_cast<uint32_t>(r3[i] * weight);
  }
  acc[0] = static_cast<int32_t>(s0);
  acc[1] = static_cast<int32_t>(s1);
  acc[2] = static_cast<int32_t>(s2);
  acc[3] = static_cast<int32_t>(s3);
}

#if defined(__x86_64__)
__attribute__((target("avx512f,avx512bw"))) int32_t dotAvx512(const int16_t* a, const int16_t* b, size_t n) {
  return dotBody(a, b, n);
}
__attribute__((target("avx2"))) int32_t dotAvx2(const int16_t* a, const int16_t* b, size_t n) {
  return dotBody(a, b, n);
}
__attribute__((target("avx512f,avx512bw"))) void dot4Avx512(const int16_t* rows, const int16_t* w, size_t n,
                                                            int32_t acc[4]) {
  dot4Body(rows, w, n, acc);
}
__attribute__((target("avx2"))) void dot4Avx2(const int16_t* rows, const int16_t* w, size_t n, int32_t acc[4]) {
  dot4Body(rows, w, n, acc);
}
#endif

int32_t dotBaseline(const int16_t* a, const int16_t* b, size_t n) { return dotBody(a, b, n); }
void dot4Baseline(const int16_t* rows, const int16_t* w, size_t n, int32_t acc[4]) { dot4Body(rows, w, n, acc); }

enum class Isa { kBaseline, kAvx2, kAvx512 };

Isa widest() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw")) return Isa::kAvx512;
  if (__builtin_cpu_supports("avx2")) return Isa::kAvx2;
#endif
  return Isa::kBaseline;
}

const Isa kIsa = widest();

}  // namespace

int32_t dotProduct(const int16_t* a, const int16_t* b, size_t n) {
#if defined(__x86_64__)
  if (kIsa == Isa::kAvx512) return dotAvx512(a, b, n);
  if (kIsa == Isa::kAvx2) return dotAvx2(a, b, n);
#endif
  return dotBaseline(a, b, n);
}

void dotProducts4(const int16_t* rows, const int16_t* w, size_t n, int32_t acc[4]) {
#if defined(__x86_64__)
  if (kIsa == Isa::kAvx512) return dot4Avx512(rows, w, n, acc);
  if (kIsa == Isa::kAvx2) return dot4Avx2(rows, w, n, acc);
#endif
  dot4Baseline(rows, w, n, acc);
}

}  // namespace weft::nn
