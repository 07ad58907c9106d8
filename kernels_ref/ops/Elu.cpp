// ELU: max(0, x) + min(0, alpha * (exp(x) - 1)) element-wise, for float32 and float16 tensors;
// alpha is a FLOAT32 (FLOAT16 for float16 tensors) scalar. Computed in float32 as NNAPI does.
#include <algorithm>
#include <cmath>

#include "ElementwiseShapes.h"
#include "weft/kernels/Float16.h"
#include "weft/kernels/OperationUtils.h"

namespace weft::nn::elu_op {

constexpr uint32_t kInput = 0;
constexpr uint32_t kAlpha = 1;
constexpr uint32_t kOutput = 0;

namespace {

float elu(float x, float alpha) { return std::max(0.0f, x) + std::min(0.0f, alpha * (std::exp(x) - 1.0f)); }

}  // namespace

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateInputCount(context, 2, 2));
  NN_TRY(validateOutputCount(context, 1));
  const OperandType type = context->getInputType(kInput);
  NN_TRY(validateTypeIsOneOf(context, "input", type, {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16}));
  const OperandType alphaType = type == OperandType::TENSOR_FLOAT16 ? OperandType::FLOAT16 : OperandType::FLOAT32;
  NN_TRY(validateInputTypes(context, {type, alphaType}));
  NN_TRY(validateOutputTypes(context, {type}));
  return elementwise::validateUnaryShapes(context);
}

Status prepare(IOperationExecutionContext* context) {
  return elementwise::prepareSameShape(context, kInput, kOutput);
}

Status execute(IOperationExecutionContext* context) {
  const size_t n = getNumberOfElements(context->getInputShape(kInput));
  if (context->getInputType(kInput) == OperandType::TENSOR_FLOAT16) {
    const float alpha = static_cast<float>(context->getInputValue<Float16>(kAlpha));
    const Float16* x = context->getInputBuffer<Float16>(kInput);
    Float16* y = context->getOutputBuffer<Float16>(kOutput);
    for (size_t i = 0; i < n; ++i) y[i] = static_cast<Float16>(elu(static_cast<float>(x[i]), alpha));
    return {};
  }
  NN_RET_CHECK(context->getInputType(kInput) == OperandType::TENSOR_FLOAT32);
  const float alpha = context->getInputValue<float>(kAlpha);
  const float* x = context->getInputBuffer<float>(kInput);
  float* y = context->getOutputBuffer<float>(kOutput);
  for (size_t i = 0; i < n; ++i) y[i] = elu(x[i], alpha);
  return {};
}

}  // namespace weft::nn::elu_op

NN_REGISTER_OPERATION(ELU, "ELU", elu_op::validate, elu_op::prepare, elu_op::execute)
