// WEFT_UNARY of the org.weft.accel extension (weft/WeftExtension.h): an element-wise function of
// one value, EXP, LOG, SQRT, ABS, SIN, NEG or SOFTPLUS, chosen by a constant. NNAPI's own EXP,
// LOG, SQRT, ABS, SIN and NEG take float tensors only, so a model quantized to 8 bits kept them in
// float on the CPU; this operation is their 8-bit form.
//
// float32 computes in float32, float16 in float32 rounded once to float16. An 8-bit quantized
// input is dequantized exactly, the function taken in double and requantized to the output's
// scale and zero point, rounding half away from zero and saturating (infinities saturate; a NaN,
// the logarithm or root of a negative value, is the real value 0): a function of the input byte
// alone, which the accelerator's vector unit evaluates through a lookup table filled by this
// kernel, so the two agree bit for bit.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "ElementwiseShapes.h"
#include "weft/kernels/Extensions.h"
#include "weft/kernels/Float16.h"
#include "weft/kernels/OperationUtils.h"

namespace weft::nn::weft_unary {

constexpr uint32_t kInput = 0;
constexpr uint32_t kFunction = 1;
constexpr uint32_t kOutput = 0;

double apply(int32_t f, double x) {
  switch (f) {
    case weft_extension::kExp: return std::exp(x);
    case weft_extension::kLog: return std::log(x);
    case weft_extension::kSqrt: return std::sqrt(x);
    case weft_extension::kAbs: return std::fabs(x);
    case weft_extension::kSin: return std::sin(x);
    case weft_extension::kNeg: return -x;
    case weft_extension::kSoftplus: return x > 30 ? x : std::log1p(std::exp(x));  // exp(x) + 1 rounds to exp(x) past 36
    default: return std::numeric_limits<double>::quiet_NaN();
  }
}

const char* name(int32_t f) {
  static constexpr const char* kNames[] = {"EXP", "LOG", "SQRT", "ABS", "SIN", "NEG", "SOFTPLUS"};
  return f >= 0 && f < weft_extension::kUnaryFunctions ? kNames[f] : nullptr;
}

namespace {

float applyFloat(int32_t f, float x) {
  switch (f) {
    case weft_extension::kExp: return std::exp(x);
    case weft_extension::kLog: return std::log(x);
    case weft_extension::kSqrt: return std::sqrt(x);
    case weft_extension::kAbs: return std::fabs(x);
    case weft_extension::kSin: return std::sin(x);
    case weft_extension::kNeg: return -x;
    default: return x > 30.0f ? x : std::log1p(std::exp(x));
  }
}

template <typename T>
T requantized(int32_t f, T q, const Shape& in, const Shape& out) {
  const double x = (static_cast<double>(q) - in.offset) * static_cast<double>(in.scale);
  const double y = apply(f, x);
  if (std::isnan(y)) return static_cast<T>(out.offset);
  const double r = std::round(y / static_cast<double>(out.scale)) + out.offset;  // half away from 0; +-inf stays
  return static_cast<T>(std::clamp<double>(r, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
}

template <typename T>
void executeQuantized(IOperationExecutionContext* context, int32_t f) {
  const Shape in = context->getInputShape(kInput), out = context->getOutputShape(kOutput);
  // One table of the 256 input bytes, then a lookup per element: what the vector unit does too.
  T table[256];
  for (int b = 0; b < 256; ++b) {
    table[b] = requantized(f, static_cast<T>(std::numeric_limits<T>::min() + b), in, out);
  }
  const T* x = context->getInputBuffer<T>(kInput);
  T* y = context->getOutputBuffer<T>(kOutput);
  const size_t n = getNumberOfElements(in);
  for (size_t i = 0; i < n; ++i) y[i] = table[static_cast<int>(x[i]) - std::numeric_limits<T>::min()];
}

Status checkFunction(int32_t f) {
  NN_RET_CHECK(name(f) != nullptr) << "function " << f << " is none of WEFT_UNARY_EXP (0) .. WEFT_UNARY_SOFTPLUS ("
                                   << weft_extension::kUnaryFunctions - 1 << ")";
  return {};
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateInputCount(context, 2, 2));
  NN_TRY(validateOutputCount(context, 1));
  const OperandType type = context->getInputType(kInput);
  NN_TRY(validateTypeIsOneOf(context, "input", type,
                             {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16,
                              OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
  NN_TRY(validateInputTypes(context, {type, OperandType::INT32}));
  int32_t f = 0;
  if (getConstantScalar(context, kFunction, &f)) NN_TRY(checkFunction(f));
  NN_TRY(validateOutputTypes(context, {type}));
  if (isQuantized(type)) {
    NN_TRY(validateQuantization(context->getInputShape(kInput)));
    NN_TRY(validateQuantization(context->getOutputShape(kOutput)));
  }
  return elementwise::validateUnaryShapes(context);
}

Status prepare(IOperationExecutionContext* context) {
  NN_TRY(checkFunction(context->getInputValue<int32_t>(kFunction)));
  return elementwise::prepareSameShape(context, kInput, kOutput);
}

Status execute(IOperationExecutionContext* context) {
  const Shape in = context->getInputShape(kInput);
  const size_t n = getNumberOfElements(in);
  const int32_t f = context->getInputValue<int32_t>(kFunction);
  switch (in.type) {
    case OperandType::TENSOR_FLOAT32: {
      const float* x = context->getInputBuffer<float>(kInput);
      float* y = context->getOutputBuffer<float>(kOutput);
      for (size_t i = 0; i < n; ++i) y[i] = applyFloat(f, x[i]);
      return {};
    }
    case OperandType::TENSOR_FLOAT16: {
      const Float16* x = context->getInputBuffer<Float16>(kInput);
      Float16* y = context->getOutputBuffer<Float16>(kOutput);
      for (size_t i = 0; i < n; ++i) y[i] = static_cast<Float16>(applyFloat(f, static_cast<float>(x[i])));
      return {};
    }
    case OperandType::TENSOR_QUANT8_ASYMM:
      executeQuantized<uint8_t>(context, f);
      return {};
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      executeQuantized<int8_t>(context, f);
      return {};
    default:
      return NN_ERROR(BAD_DATA) << "unsupported input type " << toString(in.type);
  }
}

}  // namespace weft::nn::weft_unary

NN_REGISTER_EXTENSION_OPERATION(WEFT_UNARY, weft::nn::weft_extension::kName, weft::nn::weft_extension::kUnary,
                                "WEFT_UNARY", weft_unary::validate, weft_unary::prepare, weft_unary::execute,
                                .allowZeroSizedInput = true)
