#include "weft/kernels/QuantUtils.h"

#include <cmath>

namespace weft::nn {

Status quantizeMultiplier(double realMultiplier, int32_t* quantizedMultiplier, int* shift) {
  NN_RET_CHECK(std::isfinite(realMultiplier) && realMultiplier >= 0.0)
      << "multiplier " << realMultiplier << " must be finite and non-negative";
  if (realMultiplier == 0.0) {
    *quantizedMultiplier = 0;
    *shift = 0;
    return {};
  }
  const double q = std::frexp(realMultiplier, shift);
  auto qFixed = static_cast<int64_t>(std::round(q * static_cast<double>(int64_t{1} << 31)));
  NN_RET_CHECK_LE(qFixed, int64_t{1} << 31);
  if (qFixed == (int64_t{1} << 31)) {
    qFixed /= 2;
    ++*shift;
  }
  // Multipliers below 2^-31 would shift every bit out: flush them to zero like TFLite.
  if (*shift < -31) {
    *shift = 0;
    qFixed = 0;
  }
  NN_RET_CHECK_LE(*shift, 30) << "multiplier " << realMultiplier << " is too large";
  *quantizedMultiplier = static_cast<int32_t>(qFixed);
  return {};
}

Status quantizeMultiplierSmallerThanOneExp(double realMultiplier, int32_t* quantizedMultiplier, int* leftShift) {
  NN_RET_CHECK(realMultiplier > 0.0 && realMultiplier < 1.0)
      << "multiplier " << realMultiplier << " must be in (0, 1)";
  NN_TRY(quantizeMultiplier(realMultiplier, quantizedMultiplier, leftShift));
  NN_RET_CHECK_LE(*leftShift, 0);
  return {};
}

Status quantizeMultiplierGreaterThanOne(double realMultiplier, int32_t* quantizedMultiplier, int* leftShift) {
  NN_RET_CHECK(realMultiplier > 1.0) << "multiplier " << realMultiplier << " must be > 1";
  NN_TRY(quantizeMultiplier(realMultiplier, quantizedMultiplier, leftShift));
  NN_RET_CHECK_GE(*leftShift, 0);
  return {};
}

Status getQuantizedConvolutionMultiplier(float inputScale, float filterScale, float biasScale, float outputScale,
                                         double* multiplier) {
  const double inputProductScale = static_cast<double>(inputScale) * filterScale;
  NN_RET_CHECK(inputProductScale >= 0.0);
  NN_RET_CHECK(std::abs(inputProductScale - biasScale) <= 1e-6 * std::min(inputProductScale, double{biasScale}))
      << "bias scale " << biasScale << " must equal input scale * filter scale " << inputProductScale;
  NN_RET_CHECK(outputScale > 0.0f);
  *multiplier = inputProductScale / outputScale;
  return {};
}

int32_t calculateInputRadius(int inputIntegerBits, int inputLeftShift, int totalSignedBits) {
  const double maxInputRescaled = 1.0 * ((1 << inputIntegerBits) - 1) *
                                  static_cast<double>(int64_t{1} << (totalSignedBits - inputIntegerBits)) /
                                  static_cast<double>(int64_t{1} << inputLeftShift);
  // floor: the exact bound would already saturate after rescaling.
  return static_cast<int32_t>(std::floor(maxInputRescaled));
}

Result<ChannelMultipliers> perChannelMultipliers(float inputScale, const std::vector<float>& filterScales,
                                                 float outputScale) {
  ChannelMultipliers out;
  out.multiplier.resize(filterScales.size());
  out.shift.resize(filterScales.size());
  for (size_t c = 0; c < filterScales.size(); ++c) {
    const double real = static_cast<double>(inputScale) * filterScales[c] / outputScale;
    NN_TRY(quantizeMultiplier(real, &out.multiplier[c], &out.shift[c]));
  }
  return out;
}

FloatRange floatActivationRange(FusedActivationFunc activation) {
  switch (activation) {
    case FusedActivationFunc::RELU:
      return {0.0f, std::numeric_limits<float>::max()};
    case FusedActivationFunc::RELU1:
      return {-1.0f, 1.0f};
    case FusedActivationFunc::RELU6:
      return {0.0f, 6.0f};
    case FusedActivationFunc::NONE:
      break;
  }
  return {std::numeric_limits<float>::lowest(), std::numeric_limits<float>::max()};
}

}  // namespace weft::nn
