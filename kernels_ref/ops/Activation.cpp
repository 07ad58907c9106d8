#include "Activation.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "weft/kernels/FixedPoint.h"
#include "weft/kernels/Float16.h"
#include "weft/kernels/OperationUtils.h"
#include "weft/kernels/QuantUtils.h"

namespace weft::nn::activation {

namespace {

constexpr uint32_t kInput = 0;
constexpr uint32_t kOutput = 0;

float applyFloat(Kind kind, float x) {
  switch (kind) {
    case Kind::RELU: return std::max(0.0f, x);
    case Kind::RELU1: return std::min(std::max(-1.0f, x), 1.0f);
    case Kind::RELU6: return std::min(std::max(0.0f, x), 6.0f);
    case Kind::LOGISTIC: return 1.0f / (1.0f + std::exp(-x));
    case Kind::TANH: return std::tanh(x);
  }
  return x;
}

FusedActivationFunc clampOf(Kind kind) {
  switch (kind) {
    case Kind::RELU1: return FusedActivationFunc::RELU1;
    case Kind::RELU6: return FusedActivationFunc::RELU6;
    default: return FusedActivationFunc::RELU;
  }
}

// The output quantization NNAPI fixes for LOGISTIC (1/256) and TANH (1/128).
struct FixedOutput {
  float scale;
  int32_t zeroPoint;
};
FixedOutput fixedOutput(Kind kind, OperandType type) {
  const bool isSigned = type == OperandType::TENSOR_QUANT8_ASYMM_SIGNED;
  if (kind == Kind::LOGISTIC) return {1.0f / 256, isSigned ? -128 : 0};
  return {1.0f / 128, isSigned ? 0 : 128};
}

// TFLite's quantized logistic / tanh: the centred input is rescaled to Q4.27, evaluated in fixed
// point to Q0.31, and rounded to the 8-bit output; inputs beyond the radius saturate.
template <typename T>
Status sigmoidLikeQuant(Kind kind, const T* in, const Shape& input, size_t count, T* out) {
  constexpr int kInputIntegerBits = 4;
  const double realMultiplier = input.scale * static_cast<double>(1 << (31 - kInputIntegerBits));
  int32_t multiplier;
  int leftShift;
  NN_TRY(quantizeMultiplierGreaterThanOne(realMultiplier, &multiplier, &leftShift));
  const int32_t radius = calculateInputRadius(kInputIntegerBits, leftShift);
  const FixedOutput fo = fixedOutput(kind, input.type);
  const int outputShift = kind == Kind::LOGISTIC ? 23 : 24;  // Q0.31 -> Q23.8 / Q24.7
  for (size_t i = 0; i < count; ++i) {
    const int32_t centred = static_cast<int32_t>(in[i]) - input.offset;
    if (centred <= -radius) {
      out[i] = std::numeric_limits<T>::min();
    } else if (centred >= radius) {
      out[i] = std::numeric_limits<T>::max();
    } else {
      const int32_t rescaled = multiplyByQuantizedMultiplierGreaterThanOne(centred, multiplier, leftShift);
      const auto x = fixed::FixedPoint<kInputIntegerBits>::fromRaw(rescaled);
      const int32_t y = kind == Kind::LOGISTIC ? fixed::logistic(x).raw : fixed::tanh(x).raw;
      out[i] = saturateCast<T>(fixed::roundingDivideByPOT(y, outputShift) + fo.zeroPoint);
    }
  }
  return {};
}

template <typename T>
Status executeQuant(IOperationExecutionContext* context, Kind kind) {
  const Shape input = context->getInputShape(kInput);
  const size_t count = getNumberOfElements(input);
  const T* in = context->getInputBuffer<T>(kInput);
  T* out = context->getOutputBuffer<T>(kOutput);
  if (kind == Kind::LOGISTIC || kind == Kind::TANH) return sigmoidLikeQuant(kind, in, input, count, out);
  // The clamps in the input's quantization (NNAPI keeps it for the output).
  const QuantizedRange range = quantizedActivationRange<T>(clampOf(kind), input.scale, input.offset);
  for (size_t i = 0; i < count; ++i) out[i] = static_cast<T>(std::clamp<int32_t>(in[i], range.min, range.max));
  return {};
}

}  // namespace

Status validate(const IOperationValidationContext* context, Kind kind) {
  NN_TRY(validateInputCount(context, 1, 1));
  NN_TRY(validateOutputCount(context, 1));
  const OperandType type = context->getInputType(kInput);
  NN_TRY(validateTypeIsOneOf(context, "input", type,
                             {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16,
                              OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
  NN_TRY(validateOutputTypes(context, {type}));
  NN_TRY(validateInputRank(context, kInput, 0, 4));
  if (isQuantized(type)) {
    const Shape in = context->getInputShape(kInput), out = context->getOutputShape(kOutput);
    if (kind == Kind::LOGISTIC || kind == Kind::TANH) {
      const FixedOutput fo = fixedOutput(kind, type);
      NN_RET_CHECK(out.scale == fo.scale && out.offset == fo.zeroPoint)
          << context->getOperationName() << " output must have scale " << fo.scale << " and zero point "
          << fo.zeroPoint;
    } else {
      NN_RET_CHECK(in.scale == out.scale && in.offset == out.offset)
          << context->getOperationName() << " keeps the input's quantization";
    }
  }
  return {};
}

Status prepare(IOperationExecutionContext* context) {
  const Shape input = context->getInputShape(kInput);
  NN_RET_CHECK_LE(getNumberOfDimensions(input), 4u);
  Shape output = context->getOutputShape(kOutput);
  output.dimensions = input.dimensions;
  return context->setOutputShape(kOutput, output);
}

Status execute(IOperationExecutionContext* context, Kind kind) {
  const Shape input = context->getInputShape(kInput);
  const size_t count = getNumberOfElements(input);
  switch (input.type) {
    case OperandType::TENSOR_FLOAT32: {
      const float* in = context->getInputBuffer<float>(kInput);
      float* out = context->getOutputBuffer<float>(kOutput);
      for (size_t i = 0; i < count; ++i) out[i] = applyFloat(kind, in[i]);
      return {};
    }
    case OperandType::TENSOR_FLOAT16: {
      const Float16* in = context->getInputBuffer<Float16>(kInput);
      Float16* out = context->getOutputBuffer<Float16>(kOutput);
      for (size_t i = 0; i < count; ++i) out[i] = static_cast<Float16>(applyFloat(kind, static_cast<float>(in[i])));
      return {};
    }
    case OperandType::TENSOR_QUANT8_ASYMM:
      return executeQuant<uint8_t>(context, kind);
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      return executeQuant<int8_t>(context, kind);
    default:
      return NN_ERROR(BAD_DATA) << "unsupported type";
  }
}

}  // namespace weft::nn::activation
