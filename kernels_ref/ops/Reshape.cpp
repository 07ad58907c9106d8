// RESHAPE: the input's values under new dimensions given by a 1-D TENSOR_INT32 shape, in which one
// entry may be -1 (inferred from the element count). Types: float32, float16, int32, quant8 asymm
// and asymm signed (quantization unchanged).
#include <cstring>

#include "weft/kernels/OperationUtils.h"

namespace weft::nn::reshape {

constexpr uint32_t kInput = 0;
constexpr uint32_t kShape = 1;
constexpr uint32_t kOutput = 0;

Status validate(const IOperationValidationContext* context) {
  const OperandType type = context->getInputType(kInput);
  NN_TRY(validateTypeIsOneOf(context, "input", type,
                             {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16, OperandType::TENSOR_INT32,
                              OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
  NN_TRY(validateInputTypes(context, {type, OperandType::TENSOR_INT32}));
  NN_TRY(validateOutputTypes(context, {type}));
  NN_TRY(validateInputRank(context, kInput, 0, 4));
  NN_TRY(validateInputRank(context, kShape, 1, 1));
  return {};
}

Status prepare(IOperationExecutionContext* context) {
  const Shape input = context->getInputShape(kInput);
  const Shape shape = context->getInputShape(kShape);
  NN_RET_CHECK_EQ(shape.dimensions.size(), 1u) << "shape must be 1-D";
  const int32_t* target = context->getInputBuffer<int32_t>(kShape);
  const uint32_t rank = shape.dimensions[0];
  NN_RET_CHECK(rank == 0 || target != nullptr);
  const size_t inputElements = getNumberOfElements(input);
  Dimensions dims(rank);
  size_t known = 1;
  int32_t stretch = -1;
  for (uint32_t i = 0; i < rank; ++i) {
    if (target[i] == -1) {
      NN_RET_CHECK_EQ(stretch, -1) << "at most one dimension may be -1";
      stretch = static_cast<int32_t>(i);
    } else {
      NN_RET_CHECK_GE(target[i], 0) << "negative dimension " << target[i];
      dims[i] = static_cast<uint32_t>(target[i]);
      known *= dims[i];
    }
  }
  if (stretch >= 0) {
    NN_RET_CHECK(known > 0) << "cannot infer a -1 dimension next to a zero dimension";
    dims[stretch] = static_cast<uint32_t>(inputElements / known);
    known *= dims[stretch];
  }
  NN_RET_CHECK_EQ(known, inputElements) << "reshape to " << toString(dims) << " changes the element count";
  Shape output = context->getOutputShape(kOutput);
  output.dimensions = dims;
  return context->setOutputShape(kOutput, output);
}

Status execute(IOperationExecutionContext* context) {
  const Shape input = context->getInputShape(kInput);
  const size_t bytes = sizeOfData(input.type, input.dimensions);
  if (bytes > 0) std::memcpy(context->getOutputBuffer(kOutput), context->getInputBuffer(kInput), bytes);
  return {};
}

}  // namespace weft::nn::reshape

NN_REGISTER_OPERATION(RESHAPE, "RESHAPE", reshape::validate, reshape::prepare, reshape::execute)
