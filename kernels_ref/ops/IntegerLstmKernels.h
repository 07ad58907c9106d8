// Integer vector kernels of QUANTIZED_LSTM (TFLite's 8x8->16 integer LSTM): int8 matrix products
// requantized to 16-bit gates, integer layer normalization, 16-bit fixed-point sigmoid and tanh,
// element-wise products, sums and clipping. Each function states its rounding; they reproduce
// NNAPI's reference (common/QuantUtils) bit for bit.
#pragma once

#include <cstdint>
#include <vector>

#include "weft/nn/Result.h"

namespace weft::nn::integer_lstm {

// Requantization parameters: real multiplier = multiplier * 2^(shift - 31).
struct Scale {
  int32_t multiplier = 0;
  int shift = 0;
};
Result<Scale> scaleOf(double realMultiplier);

// round(log2(x)) when x is within 1e-3 (in log2) of a power of two; BAD_DATA otherwise.
Result<int> exactLog2(float x);

// bias[r] + zeroPoint * sum_c weights[r][c]: folds the operand's zero point into the bias of an
// int8 matrix product. `bias` may be null (zeros).
std::vector<int32_t> effectiveBias(int32_t zeroPoint, const int8_t* weights, uint32_t rows, uint32_t cols,
                                   const int32_t* bias);

// output[b][r] = saturate(output[b][r] + outputZeroPoint + requant(bias[r] + sum_c in[b][c] * w[r][c]))
// for T = int16_t (gates) or int8_t (projection).
template <typename T>
void matrixBatchVectorMultiplyAccumulate(const int8_t* input, const int32_t* bias, const int8_t* weights,
                                         Scale scale, uint32_t batch, uint32_t cols, uint32_t rows,
                                         int32_t outputZeroPoint, T* output);

// result[b][i] = saturate16(result[b][i] + requant(vector[i] * batchVector[b][i])) (peepholes).
void vectorBatchVectorCwiseProductAccumulate(const int16_t* vector, uint32_t n, const int16_t* batchVector,
                                             uint32_t batch, Scale scale, int16_t* result);

// Integer layer normalization of each row, scaled by `weights` (Q0.15 with `scale`) plus `bias`,
// to 16 bits. `varianceLimit` replaces a variance below 1.
void layerNorm(const int16_t* input, const int16_t* weights, const int32_t* bias, Scale scale,
               int32_t varianceLimit, uint32_t batch, uint32_t n, int16_t* output);

// Q3.12 -> Q0.15 logistic; Q(integerBits).(15 - integerBits) -> Q0.15 tanh (integerBits 0..6).
void sigmoid(const int16_t* input, size_t count, int16_t* output);
Status tanh(int integerBits, const int16_t* input, size_t count, int16_t* output);

// output = a * b rounded-shifted right by `shift`, truncated to 16 bits.
void cwiseMul(const int16_t* a, const int16_t* b, size_t count, int shift, int16_t* output);
// output = saturate8(requant(a * b) - zeroPoint); the reference subtracts the hidden state's zero
// point here and adds it back through the projection's effective bias.
void cwiseMul(const int16_t* a, const int16_t* b, size_t count, Scale scale, int32_t zeroPoint, int8_t* output);
// output = saturate16(a + b).
void cwiseAdd(const int16_t* a, const int16_t* b, size_t count, int16_t* output);
// Clamps to [-limit, limit].
void cwiseClip(int16_t* v, size_t count, int16_t limit);
void cwiseClip(int8_t* v, size_t count, int8_t limit);

}  // namespace weft::nn::integer_lstm
