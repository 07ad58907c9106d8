#include "LogicalBinary.h"

#include <cstdint>

#include "ElementwiseShapes.h"
#include "weft/kernels/Broadcast.h"
#include "weft/kernels/OperationUtils.h"

namespace weft::nn::logical {

namespace {

constexpr uint32_t kInput1 = 0;
constexpr uint32_t kInput2 = 1;
constexpr uint32_t kOutput = 0;

}  // namespace

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateInputCount(context, 2, 2));
  NN_TRY(validateOutputCount(context, 1));
  NN_TRY(validateInputTypes(context, {OperandType::TENSOR_BOOL8, OperandType::TENSOR_BOOL8}));
  NN_TRY(validateOutputTypes(context, {OperandType::TENSOR_BOOL8}));
  return elementwise::validateBroadcastShapes(context);
}

Status prepare(IOperationExecutionContext* context) {
  return elementwise::prepareBroadcast(context, kInput1, kInput2, kOutput);
}

Status execute(IOperationExecutionContext* context, Kind kind) {
  const Shape sa = context->getInputShape(kInput1), sb = context->getInputShape(kInput2);
  const uint8_t* a = context->getInputBuffer<uint8_t>(kInput1);
  const uint8_t* b = context->getInputBuffer<uint8_t>(kInput2);
  uint8_t* out = context->getOutputBuffer<uint8_t>(kOutput);
  forEachBroadcast(sa.dimensions, sb.dimensions, context->getOutputShape(kOutput).dimensions,
                   [&](size_t ia, size_t ib, size_t io) {
                     const bool x = a[ia] != 0, y = b[ib] != 0;
                     out[io] = (kind == Kind::AND ? (x && y) : (x || y)) ? 1 : 0;
                   });
  return {};
}

}  // namespace weft::nn::logical
