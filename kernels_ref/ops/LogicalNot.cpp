// LOGICAL_NOT: element-wise negation of a TENSOR_BOOL8 tensor (any non-zero byte is true; results
// are 0 or 1).
#include <cstdint>

#include "ElementwiseShapes.h"
#include "weft/kernels/OperationUtils.h"

namespace weft::nn::logical_not_op {

constexpr uint32_t kInput = 0;
constexpr uint32_t kOutput = 0;

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateInputCount(context, 1, 1));
  NN_TRY(validateOutputCount(context, 1));
  NN_TRY(validateInputTypes(context, {OperandType::TENSOR_BOOL8}));
  NN_TRY(validateOutputTypes(context, {OperandType::TENSOR_BOOL8}));
  return elementwise::validateUnaryShapes(context);
}

Status prepare(IOperationExecutionContext* context) {
  return elementwise::prepareSameShape(context, kInput, kOutput);
}

Status execute(IOperationExecutionContext* context) {
  const size_t n = getNumberOfElements(context->getInputShape(kInput));
  const uint8_t* x = context->getInputBuffer<uint8_t>(kInput);
  uint8_t* y = context->getOutputBuffer<uint8_t>(kOutput);
  for (size_t i = 0; i < n; ++i) y[i] = x[i] == 0 ? 1 : 0;
  return {};
}

}  // namespace weft::nn::logical_not_op

NN_REGISTER_OPERATION(LOGICAL_NOT, "LOGICAL_NOT", logical_not_op::validate, logical_not_op::prepare,
                      logical_not_op::execute)
