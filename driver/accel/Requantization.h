// NNAPI's quantized-convolution arithmetic turned into the store unit's parameters.
//
// The reference kernels (kernels_ref/src/QuantUtils.cpp, after TFLite) compute
//   real = double(in_scale) * filter_scale / out_scale
//   (multiplier, exponent) = QuantizeMultiplier(real)      // q31 mantissa, power of two
//   out = clamp(MultiplyByQuantizedMultiplier(acc + bias, multiplier, exponent) + out_zp)
// and the hardware's requantize(v, multiplier, shift) is MultiplyByQuantizedMultiplier with
// shift = exponent, so these functions make hw::postprocess bit-exact with the reference.
#pragma once

#include <cstdint>
#include <optional>

#include "weft/nn/Types.h"

namespace weft::accel {

struct QuantizedMultiplier {
  int32_t multiplier = 0;
  int shift = 0;  // hardware convention: > 0 shifts left, < 0 rounds right
};

// gemmlowp's QuantizeMultiplier. nullopt when the reference rejects the multiplier (negative,
// not finite, or an exponent above 30).
std::optional<QuantizedMultiplier> quantizeMultiplier(double realMultiplier);

// The real multiplier of a quantized convolution or fully-connected layer, computed in the
// precision the reference uses (double).
double convolutionMultiplier(float inputScale, float filterScale, float outputScale);

// True when |in_scale * filter_scale - bias_scale| is within NNAPI's tolerance (1e-6 relative).
bool biasScaleMatches(float inputScale, float filterScale, float biasScale);

struct ClampRange {
  int32_t min = 0;
  int32_t max = 255;
};
// The fused activation folded into the output type's range, as CalculateActivationRange{Uint8,
// Int8}. nullopt for an activation code outside NONE..RELU6.
std::optional<ClampRange> activationRange(int32_t activation, nn::OperandType outputType,
                                          float outputScale, int32_t outputZeroPoint);

}  // namespace weft::accel
