// REVERSE: reverses the input along one dimension, given as a 1-D TENSOR_INT32 holding one axis.
// Types: float32, float16, int32, quant8 asymm and asymm signed (quantization unchanged).
#include <vector>

#include "ElementCopy.h"
#include "TensorOpUtils.h"

namespace weft::nn::reverse {

constexpr uint32_t kInput = 0;
constexpr uint32_t kAxis = 1;
constexpr uint32_t kOutput = 0;

namespace {

Result<uint32_t> readAxis(const IOperationExecutionContext* context) {
  auto axis = readInt32Vector(context, kAxis, 1);
  if (!axis.ok()) return axis.error();
  return resolveAxis((*axis)[0], getNumberOfDimensions(context->getInputShape(kInput)));
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateInputCount(context, 2, 2));
  NN_TRY(validateOutputCount(context, 1));
  const OperandType type = context->getInputType(kInput);
  NN_TRY(validateTypeIsOneOf(context, "input", type,
                             {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16, OperandType::TENSOR_INT32,
                              OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
  NN_TRY(validateInputTypes(context, {type, OperandType::TENSOR_INT32}));
  NN_TRY(validateOutputTypes(context, {type}));
  NN_TRY(validateInputRank(context, kInput, 1, 8));
  NN_TRY(validateInputRank(context, kAxis, 1, 1));
  const Shape axis = context->getInputShape(kAxis);
  if (!axis.dimensions.empty() && axis.dimensions[0] != 0) {
    NN_RET_CHECK_EQ(axis.dimensions[0], 1u) << "REVERSE takes exactly one axis";
  }
  return validateSameQuantization(context, kInput, kOutput);
}

Status prepare(IOperationExecutionContext* context) {
  const Shape input = context->getInputShape(kInput);
  NN_RET_CHECK_GE(getNumberOfDimensions(input), 1u) << "input must have rank 1 or more";
  auto axis = readAxis(context);
  if (!axis.ok()) return axis.error();
  Shape output = context->getOutputShape(kOutput);
  output.dimensions = input.dimensions;
  return context->setOutputShape(kOutput, output);
}

Status execute(IOperationExecutionContext* context) {
  auto axis = readAxis(context);
  if (!axis.ok()) return axis.error();
  const Shape input = context->getInputShape(kInput);
  OffsetTable table = contiguousOffsets(input.dimensions);
  const std::vector<int64_t> strides = rowMajorStrides(input.dimensions);
  const uint32_t size = input.dimensions[*axis];
  // Index i along the axis reads index size - 1 - i.
  table[*axis] = stridedOffsets(size, -strides[*axis], (static_cast<int64_t>(size) - 1) * strides[*axis]);
  gatherElements(context->getInputBuffer(kInput), table, input.dimensions, sizeOfElement(input.type),
                 context->getOutputBuffer(kOutput));
  return {};
}

}  // namespace weft::nn::reverse

NN_REGISTER_OPERATION(REVERSE, "REVERSE", reverse::validate, reverse::prepare, reverse::execute)
