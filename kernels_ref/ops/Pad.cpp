// PAD: surrounds the input with paddings[d] = {before, after} elements per dimension, of value 0
// (the zero point for quantized tensors). Types: float32, float16, quant8 asymm and asymm signed.
#include <cstdint>

#include "PaddingUtils.h"
#include "TensorOpUtils.h"

namespace weft::nn::pad {

constexpr uint32_t kInput = 0;
constexpr uint32_t kPaddings = 1;
constexpr uint32_t kOutput = 0;

Status validate(const IOperationValidationContext* context) {
  const OperandType type = context->getInputType(kInput);
  NN_TRY(validateTypeIsOneOf(context, "input", type,
                             {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16,
                              OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
  NN_TRY(validateInputTypes(context, {type, OperandType::TENSOR_INT32}));
  NN_TRY(validateOutputTypes(context, {type}));
  NN_TRY(validateInputRank(context, kInput, 1, 4));
  NN_TRY(validateInputRank(context, kPaddings, 2, 2));
  return validateSameQuantization(context, kInput, kOutput);
}

Status prepare(IOperationExecutionContext* context) { return preparePad(context); }

Status execute(IOperationExecutionContext* context) {
  // 0 bits are +0.0 for the float types; quantized tensors pad with the zero point.
  const bool quantized = isQuantized(context->getInputType(kInput));
  const uint8_t padValue[4] = {static_cast<uint8_t>(quantized ? context->getOutputShape(kOutput).offset : 0), 0, 0, 0};
  return executePad(context, padValue);
}

}  // namespace weft::nn::pad

NN_REGISTER_OPERATION(PAD, "PAD", pad::validate, pad::prepare, pad::execute, .allowZeroSizedInput = true)
