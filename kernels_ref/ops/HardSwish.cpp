// HARD_SWISH: x * relu6(x + 3) / 6 element-wise, for float32, float16 (computed in float32) and
// quantized 8-bit tensors. The quantized form is TFLite's reference: 16-bit fixed point with the
// input on a "high-resolution" scale (input scale / 128), a "relu-ish" factor in [0, 1] obtained by
// rescaling x from [-3, 3], and one output rescale. Output quantization may differ from the input's.
#include <algorithm>
#include <cstdint>
#include <limits>

#include "ElementwiseShapes.h"
#include "weft/kernels/Float16.h"
#include "weft/kernels/OperationUtils.h"
#include "weft/kernels/QuantUtils.h"

namespace weft::nn::hard_swish_op {

constexpr uint32_t kInput = 0;
constexpr uint32_t kOutput = 0;

namespace {

float hardSwish(float x) { return x * std::min(6.0f, std::max(0.0f, x + 3.0f)) / 6.0f; }

// --- 16-bit fixed point, as gemmlowp / TFLite define it ---------------------------------------

// (a * b * 2) >> 16 rounded to nearest, saturating INT16_MIN * INT16_MIN.
int16_t saturatingRoundingDoublingHighMul16(int16_t a, int16_t b) {
  if (a == b && a == std::numeric_limits<int16_t>::min()) return std::numeric_limits<int16_t>::max();
  const int32_t ab = int32_t{a} * int32_t{b};
  const int32_t nudge = ab >= 0 ? (1 << 14) : (1 - (1 << 14));
  return static_cast<int16_t>((ab + nudge) / (1 << 15));
}

// The same product rounded toward zero (ARM's SQDMULH): cancels the rounding bias of the above.
int16_t saturatingDoublingHighMul16(int16_t a, int16_t b) {
  if (a == b && a == std::numeric_limits<int16_t>::min()) return std::numeric_limits<int16_t>::max();
  return static_cast<int16_t>((int32_t{a} * int32_t{b}) / (1 << 15));
}

// x / 2^exponent rounded to nearest, ties away from zero, in 16-bit lanes.
int16_t roundingDivideByPOT16(int16_t x, int exponent) {
  const auto mask = static_cast<int16_t>((int64_t{1} << exponent) - 1);
  const auto remainder = static_cast<int16_t>(x & mask);
  const auto threshold = static_cast<int16_t>((mask >> 1) + (x < 0 ? 1 : 0));
  return static_cast<int16_t>((x >> exponent) + (remainder > threshold ? 1 : 0));
}

int16_t saturatingLeftShift16(int16_t value, int amount) {
  const int64_t shifted = int64_t{value} * (int64_t{1} << amount);
  return static_cast<int16_t>(std::clamp<int64_t>(shifted, std::numeric_limits<int16_t>::min(),
                                                  std::numeric_limits<int16_t>::max()));
}

// TFLite DownScaleInt32ToInt16Multiplier: the top 16 bits of a Q31 multiplier, rounded.
int16_t downScaleToInt16(int32_t multiplier) {
  constexpr int32_t kRoundingOffset = 1 << 15;
  if (multiplier >= std::numeric_limits<int32_t>::max() - kRoundingOffset) return std::numeric_limits<int16_t>::max();
  return static_cast<int16_t>((multiplier + kRoundingOffset) >> 16);
}

struct QuantParams {
  int16_t inputZeroPoint = 0;
  int16_t outputZeroPoint = 0;
  int16_t outputMultiplier = 0;  // high-res input scale -> output scale
  int outputExponent = 0;        // always <= 0
  int16_t reluishMultiplier = 0;  // high-res input scale -> 3/32768 per unit
  int reluishExponent = 0;
};

Result<QuantParams> quantParams(const Shape& input, const Shape& output) {
  // The reference does this arithmetic in float before widening to double; so do we.
  const float hiresInputScale = (1.0f / 128.0f) * input.scale;
  const float reluishScale = 3.0f / 32768.0f;
  const float outputMultiplier = hiresInputScale / output.scale;
  const float reluishMultiplier = hiresInputScale / reluishScale;
  QuantParams p;
  p.inputZeroPoint = static_cast<int16_t>(input.offset);
  p.outputZeroPoint = static_cast<int16_t>(output.offset);
  int32_t multiplier = 0;
  NN_TRY(quantizeMultiplier(outputMultiplier, &multiplier, &p.outputExponent));
  p.outputMultiplier = downScaleToInt16(multiplier);
  NN_RET_CHECK_LE(p.outputExponent, 0) << "HARD_SWISH output scale " << output.scale
                                       << " is too small for input scale " << input.scale;
  NN_TRY(quantizeMultiplier(reluishMultiplier, &multiplier, &p.reluishExponent));
  p.reluishMultiplier = downScaleToInt16(multiplier);
  return p;
}

template <typename T>
T hardSwishQuantized(T q, const QuantParams& p) {
  const auto inputValue = static_cast<int16_t>(static_cast<int32_t>(q) - p.inputZeroPoint);
  // Shifted left as far as 8-bit inputs allow, for precision in the 16-bit products below.
  const auto hires = static_cast<int16_t>(inputValue * (1 << 7));
  const int16_t preshiftOutput = saturatingRoundingDoublingHighMul16(hires, p.outputMultiplier);
  // Rescale x so that 3.0 maps to 32768 (saturating), i.e. to [-1, 1] in Q15. A left shift is
  // split so that saturation, if any, happens only in its last step.
  int16_t reluish = hires;
  if (p.reluishExponent > 0) reluish = saturatingLeftShift16(reluish, p.reluishExponent - 1);
  reluish = saturatingRoundingDoublingHighMul16(reluish, p.reluishMultiplier);
  if (p.reluishExponent > 0) reluish = saturatingLeftShift16(reluish, 1);
  if (p.reluishExponent < 0) reluish = roundingDivideByPOT16(reluish, -p.reluishExponent);
  // [-1, 1] -> [0, 1].
  reluish = static_cast<int16_t>((int32_t{reluish} + (1 << 15)) >> 1);
  const int16_t preshift = saturatingDoublingHighMul16(reluish, preshiftOutput);
  int16_t out = roundingDivideByPOT16(preshift, -p.outputExponent);
  // 16-bit addition, wrapping as the reference's int16 arithmetic does, then saturation to T.
  out = static_cast<int16_t>(out + p.outputZeroPoint);
  return static_cast<T>(std::clamp<int32_t>(out, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
}

template <typename T>
Status executeQuantized(IOperationExecutionContext* context) {
  const Shape in = context->getInputShape(kInput);
  auto params = quantParams(in, context->getOutputShape(kOutput));
  if (!params.ok()) return params.error();
  const T* x = context->getInputBuffer<T>(kInput);
  T* y = context->getOutputBuffer<T>(kOutput);
  const size_t n = getNumberOfElements(in);
  for (size_t i = 0; i < n; ++i) y[i] = hardSwishQuantized(x[i], *params);
  return {};
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateInputCount(context, 1, 1));
  NN_TRY(validateOutputCount(context, 1));
  const OperandType type = context->getInputType(kInput);
  NN_TRY(validateTypeIsOneOf(context, "input", type,
                             {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16,
                              OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
  NN_TRY(validateInputTypes(context, {type}));
  NN_TRY(validateOutputTypes(context, {type}));
  if (isQuantized(type)) {
    auto params = quantParams(context->getInputShape(kInput), context->getOutputShape(kOutput));
    if (!params.ok()) return params.error();
  }
  return elementwise::validateUnaryShapes(context);
}

Status prepare(IOperationExecutionContext* context) {
  return elementwise::prepareSameShape(context, kInput, kOutput);
}

Status execute(IOperationExecutionContext* context) {
  const Shape in = context->getInputShape(kInput);
  const size_t n = getNumberOfElements(in);
  switch (in.type) {
    case OperandType::TENSOR_FLOAT32: {
      const float* x = context->getInputBuffer<float>(kInput);
      float* y = context->getOutputBuffer<float>(kOutput);
      for (size_t i = 0; i < n; ++i) y[i] = hardSwish(x[i]);
      return {};
    }
    case OperandType::TENSOR_FLOAT16: {
      const Float16* x = context->getInputBuffer<Float16>(kInput);
      Float16* y = context->getOutputBuffer<Float16>(kOutput);
      for (size_t i = 0; i < n; ++i) y[i] = static_cast<Float16>(hardSwish(static_cast<float>(x[i])));
      return {};
    }
    case OperandType::TENSOR_QUANT8_ASYMM:
      return executeQuantized<uint8_t>(context);
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      return executeQuantized<int8_t>(context);
    default:
      return NN_ERROR(BAD_DATA) << "unsupported input type " << toString(in.type);
  }
}

}  // namespace weft::nn::hard_swish_op

NN_REGISTER_OPERATION(HARD_SWISH, "HARD_SWISH", hard_swish_op::validate, hard_swish_op::prepare,
                      hard_swish_op::execute, .allowZeroSizedInput = true)
