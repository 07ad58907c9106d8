// Quantization helpers with the semantics of NNAPI's reference kernels (TFLite / gemmlowp):
// real multipliers become a Q0.31 fixed-point multiplier and a power-of-two shift, and every
// requantization rounds exactly as TFLite does.
//
//   int32_t multiplier; int shift;
//   NN_TRY(quantizeMultiplier(inputScale * filterScale / outputScale, &multiplier, &shift));
//   int32_t q = multiplyByQuantizedMultiplier(acc, multiplier, shift) + outputZeroPoint;
//   q = std::clamp(q, range.min, range.max);   // range = quantizedActivationRange<uint8_t>(...)
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "weft/kernels/FixedPoint.h"
#include "weft/nn/Result.h"
#include "weft/nn/Types.h"

namespace weft::nn {

// --- Multipliers -------------------------------------------------------------------------------

// TFLite QuantizeMultiplier: real = multiplier * 2^(shift - 31), multiplier in [2^30, 2^31) (or 0).
// `shift` is a left shift (negative for real < 0.5). Fails for negative or non-finite reals.
Status quantizeMultiplier(double realMultiplier, int32_t* quantizedMultiplier, int* shift);
// For 0 < real < 1: `leftShift` <= 0 (TFLite QuantizeMultiplierSmallerThanOneExp).
Status quantizeMultiplierSmallerThanOneExp(double realMultiplier, int32_t* quantizedMultiplier,
                                           int* leftShift);
// For real > 1: `leftShift` >= 0 (TFLite QuantizeMultiplierGreaterThanOne).
Status quantizeMultiplierGreaterThanOne(double realMultiplier, int32_t* quantizedMultiplier,
                                        int* leftShift);

// inputScale * filterScale / outputScale, after checking that the bias scale equals
// inputScale * filterScale (to 1e-6 relative) as NNAPI requires of quantized conv / FC.
Status getQuantizedConvolutionMultiplier(float inputScale, float filterScale, float biasScale,
                                         float outputScale, double* multiplier);

// The largest |input - zeroPoint| whose rescaled value still fits `inputIntegerBits` integer bits
// (TFLite CalculateInputRadius; softmax, logistic and tanh saturate beyond it).
int32_t calculateInputRadius(int inputIntegerBits, int inputLeftShift, int totalSignedBits = 31);

// --- Requantization ----------------------------------------------------------------------------

// x * multiplier * 2^shift with TFLite's rounding (left shift first, then rounding right shift).
inline int32_t multiplyByQuantizedMultiplier(int32_t x, int32_t quantizedMultiplier, int shift) {
  const int leftShift = shift > 0 ? shift : 0;
  const int rightShift = shift > 0 ? 0 : -shift;
  const int32_t shifted = static_cast<int32_t>(static_cast<uint32_t>(x) << leftShift);
  return fixed::roundingDivideByPOT(fixed::saturatingRoundingDoublingHighMul(shifted, quantizedMultiplier),
                                    rightShift);
}
inline int32_t multiplyByQuantizedMultiplierSmallerThanOneExp(int32_t x, int32_t quantizedMultiplier,
                                                              int leftShift) {
  return fixed::roundingDivideByPOT(fixed::saturatingRoundingDoublingHighMul(x, quantizedMultiplier),
                                    -leftShift);
}
inline int32_t multiplyByQuantizedMultiplierGreaterThanOne(int32_t x, int32_t quantizedMultiplier,
                                                           int leftShift) {
  return fixed::saturatingRoundingDoublingHighMul(
      static_cast<int32_t>(static_cast<uint32_t>(x) << leftShift), quantizedMultiplier);
}

// Per-channel requantization parameters (TENSOR_QUANT8_SYMM_PER_CHANNEL filters).
struct ChannelMultipliers {
  std::vector<int32_t> multiplier;
  std::vector<int> shift;  // left shifts as quantizeMultiplier gives them
};
// multiplier[c] for inputScale * filterScales[c] / outputScale.
Result<ChannelMultipliers> perChannelMultipliers(float inputScale, const std::vector<float>& filterScales,
                                                 float outputScale);

// --- Activation ranges -------------------------------------------------------------------------

struct QuantizedRange {
  int32_t min;
  int32_t max;
};
struct FloatRange {
  float min;
  float max;
};

// Clamp range of a fused activation in float.
FloatRange floatActivationRange(FusedActivationFunc activation);

// Clamp range of a fused activation in the quantized domain of an output with scale/zeroPoint,
// limited to T's range (TFLite CalculateActivationRangeUint8/Int8: round(f / scale) + zeroPoint).
template <typename T>
QuantizedRange quantizedActivationRange(FusedActivationFunc activation, float scale, int32_t zeroPoint) {
  const int32_t qmin = std::numeric_limits<T>::min();
  const int32_t qmax = std::numeric_limits<T>::max();
  auto quantize = [&](float f) { return zeroPoint + static_cast<int32_t>(std::round(f / scale)); };
  switch (activation) {
    case FusedActivationFunc::RELU:
      return {std::max(qmin, quantize(0.0f)), qmax};
    case FusedActivationFunc::RELU6:
      return {std::max(qmin, quantize(0.0f)), std::min(qmax, quantize(6.0f))};
    case FusedActivationFunc::RELU1:
      return {std::max(qmin, quantize(-1.0f)), std::min(qmax, quantize(1.0f))};
    case FusedActivationFunc::NONE:
      break;
  }
  return {qmin, qmax};
}

// --- Value conversions -------------------------------------------------------------------------

// round(value / scale) + zeroPoint saturated to T (NNAPI QUANTIZE).
template <typename T>
T quantizeValue(float value, float scale, int32_t zeroPoint) {
  const float q = static_cast<float>(zeroPoint) + std::round(value / scale);
  const float lo = static_cast<float>(std::numeric_limits<T>::min());
  const float hi = static_cast<float>(std::numeric_limits<T>::max());
  return static_cast<T>(std::max(lo, std::min(hi, q)));
}

template <typename T>
float dequantizeValue(T q, float scale, int32_t zeroPoint) {
  return static_cast<float>(static_cast<int32_t>(q) - zeroPoint) * scale;
}

template <typename T>
T saturateCast(int32_t value) {
  return static_cast<T>(std::clamp<int32_t>(value, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
}

}  // namespace weft::nn
