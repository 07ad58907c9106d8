#include "Requantization.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace weft::accel {

std::optional<QuantizedMultiplier> quantizeMultiplier(double realMultiplier) {
  if (!std::isfinite(realMultiplier) || realMultiplier < 0) return std::nullopt;
  QuantizedMultiplier q;
  if (realMultiplier == 0.0) return q;
  int exponent = 0;
  const double mantissa = std::frexp(realMultiplier, &exponent);
  auto fixed = static_cast<int64_t>(std::round(mantissa * static_cast<double>(int64_t{1} << 31)));
  if (fixed == (int64_t{1} << 31)) {
    fixed /= 2;
    ++exponent;
  }
  if (fixed > std::numeric_limits<int32_t>::max()) return std::nullopt;
  // As the reference: multipliers below 2^-31 flush to zero instead of shifting everything out.
  if (exponent < -31) {
    exponent = 0;
    fixed = 0;
  }
  if (exponent > 30) return std::nullopt;  // the reference rejects these (the hardware saturates at 31)
  q.multiplier = static_cast<int32_t>(fixed);
  q.shift = exponent;
  return q;
}

double convolutionMultiplier(float inputScale, float filterScale, float outputScale) {
  return static_cast<double>(inputScale) * filterScale / outputScale;
}

bool biasScaleMatches(float inputScale, float filterScale, float biasScale) {
  const double product = static_cast<double>(inputScale) * filterScale;
  const double bias = biasScale;
  return std::abs(product - bias) <= 1e-6 * std::min(product, bias);
}

std::optional<ClampRange> activationRange(int32_t activation, nn::OperandType outputType,
                                          float outputScale, int32_t outputZeroPoint) {
  const bool isSigned = outputType == nn::OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
  const int32_t qmin = isSigned ? -128 : 0;
  const int32_t qmax = isSigned ? 127 : 255;
  auto quantize = [&](float f) {
    return outputZeroPoint + static_cast<int32_t>(std::round(f / outputScale));
  };
  switch (activation) {
    case 0:  // NONE
      return ClampRange{qmin, qmax};
    case 1:  // RELU
      return ClampRange{std::max(qmin, quantize(0.0f)), qmax};
    case 2:  // RELU1
      return ClampRange{std::max(qmin, quantize(-1.0f)), std::min(qmax, quantize(1.0f))};
    case 3:  // RELU6
      return ClampRange{std::max(qmin, quantize(0.0f)), std::min(qmax, quantize(6.0f))};
    default:
      return std::nullopt;
  }
}

}  // namespace weft::accel
