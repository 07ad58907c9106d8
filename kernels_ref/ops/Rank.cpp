// RANK: the number of dimensions of a tensor of any type, as an INT32 scalar output.
#include <cstdint>

#include "weft/kernels/OperationUtils.h"

namespace weft::nn::rank_op {

constexpr uint32_t kInput = 0;
constexpr uint32_t kOutput = 0;

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateInputCount(context, 1, 1));
  NN_TRY(validateOutputCount(context, 1));
  NN_TRY(validateTypeIsOneOf(context, "input", context->getInputType(kInput),
                             {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16, OperandType::TENSOR_INT32,
                              OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED,
                              OperandType::TENSOR_QUANT8_SYMM, OperandType::TENSOR_QUANT8_SYMM_PER_CHANNEL,
                              OperandType::TENSOR_QUANT16_ASYMM, OperandType::TENSOR_QUANT16_SYMM,
                              OperandType::TENSOR_BOOL8}));
  return validateOutputTypes(context, {OperandType::INT32});
}

Status prepare(IOperationExecutionContext* context) {
  Shape output;  // an INT32 scalar
  output.type = OperandType::INT32;
  return context->setOutputShape(kOutput, output);
}

Status execute(IOperationExecutionContext* context) {
  *context->getOutputBuffer<int32_t>(kOutput) =
      static_cast<int32_t>(getNumberOfDimensions(context->getInputShape(kInput)));
  return {};
}

}  // namespace weft::nn::rank_op

NN_REGISTER_OPERATION(RANK, "RANK", rank_op::validate, rank_op::prepare, rank_op::execute)
