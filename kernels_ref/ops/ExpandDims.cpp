// EXPAND_DIMS: inserts a dimension of size 1 at position `axis` (INT32 in [-(rank+1), rank]).
// Types: float32, float16, int32, quant8 asymm and asymm signed (quantization unchanged).
#include <cstring>

#include "TensorOpUtils.h"

namespace weft::nn::expand_dims {

constexpr uint32_t kInput = 0;
constexpr uint32_t kAxis = 1;
constexpr uint32_t kOutput = 0;

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateInputCount(context, 2, 2));
  NN_TRY(validateOutputCount(context, 1));
  const OperandType type = context->getInputType(kInput);
  NN_TRY(validateTypeIsOneOf(context, "input", type,
                             {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16, OperandType::TENSOR_INT32,
                              OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
  NN_TRY(validateInputTypes(context, {type, OperandType::INT32}));
  NN_TRY(validateOutputTypes(context, {type}));
  NN_TRY(validateConstantAxis(context, kInput, kAxis, /*extraRank=*/1));  // the new dimension's position
  return validateSameQuantization(context, kInput, kOutput);
}

Status prepare(IOperationExecutionContext* context) {
  const Shape input = context->getInputShape(kInput);
  const uint32_t rank = getNumberOfDimensions(input);
  auto axis = resolveAxis(context->getInputValue<int32_t>(kAxis), rank + 1);
  if (!axis.ok()) return axis.error();
  Shape output = context->getOutputShape(kOutput);
  output.dimensions = input.dimensions;
  output.dimensions.insert(output.dimensions.begin() + *axis, 1u);
  return context->setOutputShape(kOutput, output);
}

Status execute(IOperationExecutionContext* context) {
  const Shape input = context->getInputShape(kInput);
  const size_t bytes = sizeOfData(input.type, input.dimensions);
  if (bytes > 0) std::memcpy(context->getOutputBuffer(kOutput), context->getInputBuffer(kInput), bytes);
  return {};
}

}  // namespace weft::nn::expand_dims

NN_REGISTER_OPERATION(EXPAND_DIMS, "EXPAND_DIMS", expand_dims::validate, expand_dims::prepare, expand_dims::execute)
