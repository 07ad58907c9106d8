#include "IntegerLstmKernels.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "FixedPointInt16.h"
#include "weft/kernels/FixedPoint.h"
#include "weft/kernels/QuantUtils.h"

namespace weft::nn::integer_lstm {

Result<Scale> scaleOf(double realMultiplier) {
  Scale s;
  NN_TRY(quantizeMultiplier(realMultiplier, &s.multiplier, &s.shift));
  return s;
}

Result<int> exactLog2(float x) {
  const float log2 = std::log(x) * (1.0f / std::log(2.0f));
  const float rounded = std::round(log2);
  NN_RET_CHECK(std::isfinite(log2) && std::abs(log2 - rounded) < 1e-3f) << x << " is not a power of two";
  return static_cast<int>(rounded);
}

std::vector<int32_t> effectiveBias(int32_t zeroPoint, const int8_t* weights, uint32_t rows, uint32_t cols,
                                   const int32_t* bias) {
  std::vector<int32_t> out(rows, 0);
  for (uint32_t r = 0; r < rows; ++r) {
    int32_t rowSum = 0;
    for (uint32_t c = 0; c < cols; ++c) rowSum += weights[size_t{r} * cols + c];
    out[r] = (bias != nullptr ? bias[r] : 0) + rowSum * zeroPoint;
  }
  return out;
}

template <typename T>
void matrixBatchVectorMultiplyAccumulate(const int8_t* input, const int32_t* bias, const int8_t* weights,
                                         Scale scale, uint32_t batch, uint32_t cols, uint32_t rows,
                                         int32_t outputZeroPoint, T* output) {
  for (uint32_t b = 0; b < batch; ++b) {
    const int8_t* x = input + size_t{b} * cols;
    for (uint32_t r = 0; r < rows; ++r) {
      const int8_t* w = weights + size_t{r} * cols;
      int32_t acc = bias[r];
      for (uint32_t c = 0; c < cols; ++c) acc += int32_t{x[c]} * int32_t{w[c]};
      acc = multiplyByQuantizedMultiplier(acc, scale.multiplier, scale.shift) + outputZeroPoint;
      T& out = output[size_t{b} * rows + r];
      out = saturateCast<T>(acc + out);
    }
  }
}

template void matrixBatchVectorMultiplyAccumulate<int16_t>(const int8_t*, const int32_t*, const int8_t*, Scale,
                                                           uint32_t, uint32_t, uint32_t, int32_t, int16_t*);
template void matrixBatchVectorMultiplyAccumulate<int8_t>(const int8_t*, const int32_t*, const int8_t*, Scale,
                                                          uint32_t, uint32_t, uint32_t, int32_t, int8_t*);

void vectorBatchVectorCwiseProductAccumulate(const int16_t* vector, uint32_t n, const int16_t* batchVector,
                                             uint32_t batch, Scale scale, int16_t* result) {
  for (uint32_t b = 0; b < batch; ++b) {
    for (uint32_t i = 0; i < n; ++i) {
      const size_t k = size_t{b} * n + i;
      const int32_t product =
          multiplyByQuantizedMultiplier(int32_t{vector[i]} * batchVector[k], scale.multiplier, scale.shift);
      result[k] = saturateCast<int16_t>(product + result[k]);
    }
  }
}

namespace {

// 1 / sqrt(input) as a Q0.31 multiplier and a left shift (TFLite GetInvSqrtQuantizedMultiplierExp
// with reverse_shift = -1), by Newton-Raphson iteration in Q3.28.
Scale inverseSqrt(int32_t input) {
  if (input <= 1) return {std::numeric_limits<int32_t>::max(), 0};
  int shift = 11;
  while (input >= (1 << 29)) {
    input /= 4;
    ++shift;
  }
  const int maxLeftShiftBits = __builtin_clz(static_cast<uint32_t>(input)) - 1;
  const int leftShiftBitPairs = maxLeftShiftBits / 2 - 1;
  shift -= leftShiftBitPairs;
  input <<= 2 * leftShiftBitPairs;
  using F3 = fixed::FixedPoint<3>;
  using F0 = fixed::FixedPoint<0>;
  const F3 fixedInput = F3::fromRaw(input >> 1);
  const F3 halfInput = F3::fromRaw(fixed::saturatingRoundingMultiplyByPOT<-1>(fixedInput.raw));
  const F3 halfThree = F3::fromRaw((1 << 28) + (1 << 27));
  F3 x = F3::one();
  for (int i = 0; i < 5; ++i) {
    const F3 x3 = fixed::rescale<3>(x * x * x);
    x = fixed::rescale<3>(halfThree * x - halfInput * x3);
  }
  const F0 halfSqrt2 = F0::fromRaw(1518500250);
  x = x * halfSqrt2;
  Scale s{x.raw, shift};
  if (s.shift < 0) {
    s.multiplier = static_cast<int32_t>(static_cast<uint32_t>(s.multiplier) << -s.shift);
    s.shift = 0;
  }
  s.shift = -s.shift;  // a right shift becomes a (negative) left shift
  return s;
}

}  // namespace

void layerNorm(const int16_t* input, const int16_t* weights, const int32_t* bias, Scale scale, int32_t varianceLimit,
               uint32_t batch, uint32_t n, int16_t* output) {
  // 2^20 / n keeps sum_sq * temp in range; exact only for power-of-two n, as in the reference.
  constexpr int kOverflowGuard = 1 << 20;
  for (uint32_t b = 0; b < batch; ++b) {
    const int16_t* row = input + size_t{b} * n;
    int64_t sum = 0, sumSq = 0;
    for (uint32_t j = 0; j < n; ++j) {
      sum += row[j];
      sumSq += int64_t{row[j]} * row[j];
    }
    const int32_t mean = static_cast<int32_t>(sum * 1024 / n);
    const int32_t temp = kOverflowGuard / static_cast<int32_t>(n);
    const int64_t variance = sumSq * temp - int64_t{mean} * mean;
    int32_t variance2 = static_cast<int32_t>(variance / kOverflowGuard);
    if (variance2 < 1) variance2 = varianceLimit;
    const Scale inverse = inverseSqrt(variance2);
    for (uint32_t j = 0; j < n; ++j) {
      const int32_t shifted = 1024 * row[j] - mean;
      const int32_t rescaled = multiplyByQuantizedMultiplier(shifted, inverse.multiplier, inverse.shift);
      const int64_t scaled = int64_t{rescaled} * weights[j] + bias[j];
      const int32_t rounded = static_cast<int32_t>((scaled > 0 ? scaled + 512 : scaled - 512) / 1024);
      output[size_t{b} * n + j] =
          saturateCast<int16_t>(multiplyByQuantizedMultiplier(rounded, scale.multiplier, scale.shift + 12));
    }
  }
}

void sigmoid(const int16_t* input, size_t count, int16_t* output) {
  for (size_t i = 0; i < count; ++i) {
    output[i] = fixed16::logistic(fixed16::Fixed16<3>::fromRaw(input[i])).raw;
  }
}

namespace {

template <int I>
void tanhOf(const int16_t* input, size_t count, int16_t* output) {
  for (size_t i = 0; i < count; ++i) output[i] = fixed16::tanh(fixed16::Fixed16<I>::fromRaw(input[i])).raw;
}

}  // namespace

Status tanh(int integerBits, const int16_t* input, size_t count, int16_t* output) {
  switch (integerBits) {
    case 0: tanhOf<0>(input, count, output); return {};
    case 1: tanhOf<1>(input, count, output); return {};
    case 2: tanhOf<2>(input, count, output); return {};
    case 3: tanhOf<3>(input, count, output); return {};
    case 4: tanhOf<4>(input, count, output); return {};
    case 5: tanhOf<5>(input, count, output); return {};
    case 6: tanhOf<6>(input, count, output); return {};
    default:
      return NN_ERROR(BAD_DATA) << "tanh of a 16-bit value with " << integerBits << " integer bits";
  }
}

void cwiseMul(const int16_t* a, const int16_t* b, size_t count, int shift, int16_t* output) {
  for (size_t i = 0; i < count; ++i) {
    output[i] = static_cast<int16_t>(fixed::roundingDivideByPOT(int32_t{a[i]} * int32_t{b[i]}, shift));
  }
}

void cwiseMul(const int16_t* a, const int16_t* b, size_t count, Scale scale, int32_t zeroPoint, int8_t* output) {
  for (size_t i = 0; i < count; ++i) {
    const int32_t value = multiplyByQuantizedMultiplier(int32_t{a[i]} * int32_t{b[i]}, scale.multiplier, scale.shift);
    output[i] = saturateCast<int8_t>(value - zeroPoint);
  }
}

void cwiseAdd(const int16_t* a, const int16_t* b, size_t count, int16_t* output) {
  for (size_t i = 0; i < count; ++i) output[i] = saturateCast<int16_t>(int32_t{a[i]} + int32_t{b[i]});
}

void cwiseClip(int16_t* v, size_t count, int16_t limit) {
  for (size_t i = 0; i < count; ++i) v[i] = std::clamp<int16_t>(v[i], static_cast<int16_t>(-limit), limit);
}

void cwiseClip(int8_t* v, size_t count, int8_t limit) {
  for (size_t i = 0; i < count; ++i) v[i] = std::clamp<int8_t>(v[i], static_cast<int8_t>(-limit), limit);
}

}  // namespace weft::nn::integer_lstm
