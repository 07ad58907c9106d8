// WEFT_UNARY of the org.weft.accel extension (weft/WeftExtension.h): an element-wise function of
// one value, EXP, LOG, SQRT, ABS, SIN, NEG, SOFTPLUS or RECIPROCAL, chosen by a constant. NNAPI's own EXP,
// LOG, SQRT, ABS, SIN and NEG take float tensors only, so a model quantized to 8 bits kept them in
// float on the CPU; this operation is their 8-bit form.
//
// float32 and float16 compute in double, rounded once. An 8-bit quantized input is dequantized
// exactly, the function taken in double and requantized to the output's scale and zero point,
// rounding half away from zero and saturating (infinities saturate; a NaN, the logarithm or root
// of a negative value, is the real value 0): a function of the input byte alone, which the
// accelerator's vector unit evaluates through a lookup table filled by this kernel, so the two
// agree bit for bit (ByteFunction.h).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "ByteFunction.h"
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
    case weft_extension::kReciprocal: return 1 / x;
    default: return std::numeric_limits<double>::quiet_NaN();
  }
}

const char* name(int32_t f) {
  static constexpr const char* kNames[] = {"EXP", "LOG", "SQRT", "ABS", "SIN", "NEG", "SOFTPLUS", "RECIPROCAL"};
  return f >= 0 && f < weft_extension::kUnaryFunctions ? kNames[f] : nullptr;
}

namespace {

Status checkFunction(int32_t f) {
  NN_RET_CHECK(name(f) != nullptr) << "function " << f << " is none of WEFT_UNARY_EXP (0) .. WEFT_UNARY_RECIPROCAL ("
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
  const int32_t f = context->getInputValue<int32_t>(kFunction);
  return byte_function::execute(
      context, kInput, kOutput, [f](double x) { return apply(f, x); },
      [f](float x) { return static_cast<float>(apply(f, x)); });
}

}  // namespace weft::nn::weft_unary

NN_REGISTER_EXTENSION_OPERATION(WEFT_UNARY, weft::nn::weft_extension::kName, weft::nn::weft_extension::kUnary,
                                "WEFT_UNARY", weft_unary::validate, weft_unary::prepare, weft_unary::execute,
                                .allowZeroSizedInput = true)
