// GATHER: picks slices of the input along `axis` at the positions in `indices`:
//   output[outer, i..., inner] = input[outer, indices[i...], inner]
// with output shape input[:axis] + indices.shape + input[axis+1:]. Indices outside
// [0, input.shape[axis]) fail the execution. Types: float32, float16, int32, quant8 asymm and
// asymm signed (quantization unchanged).
#include <cstring>

#include "TensorOpUtils.h"

namespace weft::nn::gather {

constexpr uint32_t kInput = 0;
constexpr uint32_t kAxis = 1;
constexpr uint32_t kIndices = 2;
constexpr uint32_t kOutput = 0;

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateInputCount(context, 3, 3));
  NN_TRY(validateOutputCount(context, 1));
  const OperandType type = context->getInputType(kInput);
  NN_TRY(validateTypeIsOneOf(context, "input", type,
                             {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16, OperandType::TENSOR_INT32,
                              OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
  NN_TRY(validateInputTypes(context, {type, OperandType::INT32, OperandType::TENSOR_INT32}));
  NN_TRY(validateOutputTypes(context, {type}));
  NN_TRY(validateInputRank(context, kInput, 1, 4));
  NN_TRY(validateConstantAxis(context, kInput, kAxis));
  return validateSameQuantization(context, kInput, kOutput);
}

Status prepare(IOperationExecutionContext* context) {
  const Shape input = context->getInputShape(kInput);
  const Shape indices = context->getInputShape(kIndices);
  const uint32_t rank = getNumberOfDimensions(input);
  NN_RET_CHECK(rank >= 1 && rank <= 4) << "input rank " << rank;
  auto axis = resolveAxis(context->getInputValue<int32_t>(kAxis), rank);
  if (!axis.ok()) return axis.error();
  Shape output = context->getOutputShape(kOutput);
  output.dimensions.assign(input.dimensions.begin(), input.dimensions.begin() + *axis);
  output.dimensions.insert(output.dimensions.end(), indices.dimensions.begin(), indices.dimensions.end());
  output.dimensions.insert(output.dimensions.end(), input.dimensions.begin() + *axis + 1, input.dimensions.end());
  return context->setOutputShape(kOutput, output);
}

Status execute(IOperationExecutionContext* context) {
  const Shape input = context->getInputShape(kInput);
  const Shape indicesShape = context->getInputShape(kIndices);
  auto axis = resolveAxis(context->getInputValue<int32_t>(kAxis), getNumberOfDimensions(input));
  if (!axis.ok()) return axis.error();
  const AxisSplit split = splitAtAxis(input.dimensions, *axis);
  const size_t count = getNumberOfElements(indicesShape);
  const int32_t* indices = context->getInputBuffer<int32_t>(kIndices);
  for (size_t i = 0; i < count; ++i) {
    NN_RET_CHECK(indices[i] >= 0 && static_cast<size_t>(indices[i]) < split.axisSize)
        << "index " << indices[i] << " out of range [0, " << split.axisSize << ")";
  }
  // Each (outer, index) pair moves one contiguous block of `inner` elements.
  const size_t blockBytes = split.inner * sizeOfElement(input.type);
  if (blockBytes == 0) return {};
  const auto* in = static_cast<const uint8_t*>(context->getInputBuffer(kInput));
  auto* out = static_cast<uint8_t*>(context->getOutputBuffer(kOutput));
  for (size_t o = 0; o < split.outer; ++o) {
    for (size_t i = 0; i < count; ++i, out += blockBytes) {
      std::memcpy(out, in + (o * split.axisSize + static_cast<size_t>(indices[i])) * blockBytes, blockBytes);
    }
  }
  return {};
}

}  // namespace weft::nn::gather

NN_REGISTER_OPERATION(GATHER, "GATHER", gather::validate, gather::prepare, gather::execute)
