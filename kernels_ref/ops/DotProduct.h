// Widening int16 dot products, the inner loops of the quantized matrix kernels (FULLY_CONNECTED,
// BATCH_MATMUL): operands zero-point-adjusted to int16, products summed in int32 (wrapping,
// as TFLite's int32 accumulators do when a sum overflows).
#pragma once

#include <cstddef>
#include <cstdint>

namespace weft::nn {

// sum over i < n of a[i] * b[i].
int32_t dotProduct(const int16_t* a, const int16_t* b, size_t n);

// acc[r] = sum over i < n of rows[r * n + i] * w[i], for r < 4: four rows against one vector in
// one pass over it.
void dotProducts4(const int16_t* rows, const int16_t* w, size_t n, int32_t acc[4]);

}  // namespace weft::nn
