// WEFT_GELU of the org.weft.accel extension (weft/WeftExtension.h): the Gaussian error linear unit
// element-wise, in its exact form x * Phi(x) = x/2 * (1 + erf(x / sqrt 2)) or in the tanh form
// x/2 * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))) that GPT-2 and BERT's original code use.
//
// float32 computes in float32, float16 in float32 rounded once to float16. An 8-bit quantized
// input is dequantized exactly, GELU'd in double and requantized to the output's scale and zero
// point, rounding half away from zero and saturating: a function of the input byte alone, which
// the accelerator's vector unit evaluates through a lookup table filled by this kernel, so the two
// agree bit for bit.
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "ByteFunction.h"
#include "ElementwiseShapes.h"
#include "weft/kernels/Extensions.h"
#include "weft/kernels/Float16.h"
#include "weft/kernels/OperationUtils.h"

namespace weft::nn::weft_gelu {

constexpr uint32_t kInput = 0;
constexpr uint32_t kApproximation = 1;  // optional INT32 scalar: WEFT_GELU_EXACT (0) or WEFT_GELU_TANH (1)
constexpr uint32_t kOutput = 0;

double gelu(double x, bool tanhForm) {
  if (!tanhForm) return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
  const double k = std::sqrt(2.0 / M_PI);
  return 0.5 * x * (1.0 + std::tanh(k * (x + 0.044715 * x * x * x)));
}

namespace {

float geluFloat(float x, bool tanhForm) {
  if (!tanhForm) return 0.5f * x * (1.0f + std::erf(x * 0.70710678118654752f));
  return 0.5f * x * (1.0f + std::tanh(0.79788456080286536f * (x + 0.044715f * x * x * x)));
}

bool tanhFormOf(const IOperationExecutionContext* context) {
  return context->getNumInputs() > kApproximation && !context->isOmittedInput(kApproximation) &&
         context->getInputValue<int32_t>(kApproximation) == weft_extension::kGeluTanh;
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateInputCount(context, 1, 2));
  NN_TRY(validateOutputCount(context, 1));
  const OperandType type = context->getInputType(kInput);
  NN_TRY(validateTypeIsOneOf(context, "input", type,
                             {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16,
                              OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
  if (context->getNumInputs() > kApproximation) {
    NN_TRY(validateInputTypes(context, {type, OperandType::INT32}));
    int32_t form = 0;
    if (getConstantScalar(context, kApproximation, &form)) {
      NN_RET_CHECK(form == weft_extension::kGeluExact || form == weft_extension::kGeluTanh)
          << "approximation " << form << " is neither WEFT_GELU_EXACT (0) nor WEFT_GELU_TANH (1)";
    }
  }
  NN_TRY(validateOutputTypes(context, {type}));
  if (isQuantized(type)) {
    NN_TRY(validateQuantization(context->getInputShape(kInput)));
    NN_TRY(validateQuantization(context->getOutputShape(kOutput)));
  }
  return elementwise::validateUnaryShapes(context);
}

Status prepare(IOperationExecutionContext* context) {
  if (context->getNumInputs() > kApproximation && !context->isOmittedInput(kApproximation)) {
    const int32_t form = context->getInputValue<int32_t>(kApproximation);
    NN_RET_CHECK(form == weft_extension::kGeluExact || form == weft_extension::kGeluTanh)
        << "approximation " << form << " is neither WEFT_GELU_EXACT (0) nor WEFT_GELU_TANH (1)";
  }
  return elementwise::prepareSameShape(context, kInput, kOutput);
}

Status execute(IOperationExecutionContext* context) {
  const bool tanhForm = tanhFormOf(context);
  return byte_function::execute(
      context, kInput, kOutput, [tanhForm](double x) { return gelu(x, tanhForm); },
      [tanhForm](float x) { return geluFloat(x, tanhForm); });
}

}  // namespace weft::nn::weft_gelu

NN_REGISTER_EXTENSION_OPERATION(WEFT_GELU, weft::nn::weft_extension::kName, weft::nn::weft_extension::kGelu,
                                "WEFT_GELU", weft_gelu::validate, weft_gelu::prepare, weft_gelu::execute,
                                .allowOmittedOperand = true, .allowZeroSizedInput = true)
