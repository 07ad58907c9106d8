#include "UnaryMath.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "ElementwiseShapes.h"
#include "weft/kernels/Float16.h"
#include "weft/kernels/OperationUtils.h"

namespace weft::nn::unary {

namespace {

constexpr uint32_t kInput = 0;
constexpr uint32_t kOutput = 0;

float applyFloat(Kind kind, float x) {
  switch (kind) {
    case Kind::ABS: return std::fabs(x);
    case Kind::EXP: return std::exp(x);
    case Kind::LOG: return std::log(x);
    case Kind::SIN: return std::sin(x);
    case Kind::SQRT: return std::sqrt(x);
    case Kind::RSQRT: return 1.0f / std::sqrt(x);
    case Kind::NEG: return -x;
    case Kind::FLOOR: return std::floor(x);
  }
  return x;
}

// Two's-complement results for INT32_MIN (|INT32_MIN| and -INT32_MIN wrap to INT32_MIN) instead of
// undefined behaviour.
int32_t applyInt32(Kind kind, int32_t x) {
  const uint32_t u = static_cast<uint32_t>(x);
  const uint32_t negated = 0u - u;
  if (kind == Kind::NEG) return static_cast<int32_t>(negated);
  return x < 0 ? static_cast<int32_t>(negated) : x;  // ABS
}

// Quantizes a real result as the reference does: zeroPoint + round(x / scale), saturated. A NaN
// (RSQRT of a negative value) saturates high, as the reference's min/max chain leaves it.
template <typename T>
T quantizeSaturating(float real, float scale, int32_t zeroPoint) {
  constexpr float lo = static_cast<float>(std::numeric_limits<T>::min());
  constexpr float hi = static_cast<float>(std::numeric_limits<T>::max());
  const float q = static_cast<float>(zeroPoint) + std::round(real / scale);
  if (std::isnan(q)) return std::numeric_limits<T>::max();
  return static_cast<T>(std::max(lo, std::min(hi, q)));
}

template <typename T>
void quantizedKernel(Kind kind, const T* in, const Shape& inShape, T* out, const Shape& outShape, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    const float real = static_cast<float>(static_cast<int32_t>(in[i]) - inShape.offset) * inShape.scale;
    out[i] = quantizeSaturating<T>(applyFloat(kind, real), outShape.scale, outShape.offset);
  }
}

// The operand types NNAPI documents for each kind.
Status validateType(const IOperationValidationContext* context, Kind kind, OperandType type) {
  switch (kind) {
    case Kind::ABS:
    case Kind::NEG:
      return validateTypeIsOneOf(context, "input", type,
                                 {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16, OperandType::TENSOR_INT32});
    case Kind::RSQRT:
      return validateTypeIsOneOf(context, "input", type,
                                 {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16,
                                  OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED});
    default:
      return validateTypeIsOneOf(context, "input", type, {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16});
  }
}

}  // namespace

Status validate(const IOperationValidationContext* context, Kind kind) {
  NN_TRY(validateInputCount(context, 1, 1));
  NN_TRY(validateOutputCount(context, 1));
  const OperandType type = context->getInputType(kInput);
  NN_TRY(validateType(context, kind, type));
  NN_TRY(validateInputTypes(context, {type}));
  NN_TRY(validateOutputTypes(context, {type}));
  // FLOOR is documented for ranks up to 4; the others for any rank.
  if (kind == Kind::FLOOR) NN_TRY(validateInputRank(context, kInput, 0, 4));
  return elementwise::validateUnaryShapes(context);
}

Status prepare(IOperationExecutionContext* context, Kind kind) {
  if (kind == Kind::FLOOR) {
    NN_RET_CHECK_LE(getNumberOfDimensions(context->getInputShape(kInput)), 4u) << "FLOOR takes ranks up to 4";
  }
  return elementwise::prepareSameShape(context, kInput, kOutput);
}

Status execute(IOperationExecutionContext* context, Kind kind) {
  const Shape in = context->getInputShape(kInput);
  const Shape out = context->getOutputShape(kOutput);
  const size_t n = getNumberOfElements(in);
  switch (in.type) {
    case OperandType::TENSOR_FLOAT32: {
      const float* x = context->getInputBuffer<float>(kInput);
      float* y = context->getOutputBuffer<float>(kOutput);
      for (size_t i = 0; i < n; ++i) y[i] = applyFloat(kind, x[i]);
      return {};
    }
    case OperandType::TENSOR_FLOAT16: {
      const Float16* x = context->getInputBuffer<Float16>(kInput);
      Float16* y = context->getOutputBuffer<Float16>(kOutput);
      for (size_t i = 0; i < n; ++i) y[i] = static_cast<Float16>(applyFloat(kind, static_cast<float>(x[i])));
      return {};
    }
    case OperandType::TENSOR_INT32: {
      NN_RET_CHECK(kind == Kind::ABS || kind == Kind::NEG) << "int32 input only for ABS and NEG";
      const int32_t* x = context->getInputBuffer<int32_t>(kInput);
      int32_t* y = context->getOutputBuffer<int32_t>(kOutput);
      for (size_t i = 0; i < n; ++i) y[i] = applyInt32(kind, x[i]);
      return {};
    }
    case OperandType::TENSOR_QUANT8_ASYMM:
      NN_RET_CHECK(kind == Kind::RSQRT) << "quantized input only for RSQRT";
      quantizedKernel(kind, context->getInputBuffer<uint8_t>(kInput), in, context->getOutputBuffer<uint8_t>(kOutput),
                      out, n);
      return {};
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      NN_RET_CHECK(kind == Kind::RSQRT) << "quantized input only for RSQRT";
      quantizedKernel(kind, context->getInputBuffer<int8_t>(kInput), in, context->getOutputBuffer<int8_t>(kOutput),
                      out, n);
      return {};
    default:
      return NN_ERROR(BAD_DATA) << "unsupported input type " << toString(in.type);
  }
}

}  // namespace weft::nn::unary
