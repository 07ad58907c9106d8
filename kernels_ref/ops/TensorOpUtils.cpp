#include "TensorOpUtils.h"

#include "weft/kernels/Float16.h"

namespace weft::nn {

Status validateSameQuantization(const Shape& input, const Shape& output) {
  if (!isQuantized(input.type)) return {};
  NN_RET_CHECK(input.scale == output.scale && input.offset == output.offset)
      << "the output must keep the input's quantization (scale " << input.scale << ", zero point " << input.offset
      << "), got scale " << output.scale << ", zero point " << output.offset;
  return {};
}

Status validateSameQuantization(const IOperationValidationContext* context, uint32_t inputIndex,
                                uint32_t outputIndex) {
  if (Status s = validateSameQuantization(context->getInputShape(inputIndex), context->getOutputShape(outputIndex));
      !s.ok()) {
    return NN_ERROR(BAD_DATA) << context->getOperationName() << ": input " << inputIndex << " / output "
                              << outputIndex << ": " << s.error().message;
  }
  return {};
}

Result<std::vector<int32_t>> readInt32Vector(const IOperationExecutionContext* context, uint32_t index,
                                             int64_t expectedLength) {
  NN_RET_CHECK(!context->isOmittedInput(index)) << "input " << index << " is omitted";
  const Shape shape = context->getInputShape(index);
  NN_RET_CHECK(shape.type == OperandType::TENSOR_INT32) << "input " << index << " must be TENSOR_INT32";
  NN_RET_CHECK_EQ(shape.dimensions.size(), 1u) << "input " << index << " must be 1-D, got "
                                               << toString(shape.dimensions);
  if (expectedLength >= 0) {
    NN_RET_CHECK_EQ(static_cast<int64_t>(shape.dimensions[0]), expectedLength)
        << "input " << index << " has the wrong length";
  }
  const int32_t* data = context->getInputBuffer<int32_t>(index);
  NN_RET_CHECK(data != nullptr || shape.dimensions[0] == 0) << "input " << index << " has no value";
  return std::vector<int32_t>(data, data + shape.dimensions[0]);
}

AxisSplit splitAtAxis(const Dimensions& dims, uint32_t axis) {
  AxisSplit s;
  for (uint32_t d = 0; d < dims.size(); ++d) {
    if (d < axis) s.outer *= dims[d];
    if (d == axis) s.axisSize = dims[d];
    if (d > axis) s.inner *= dims[d];
  }
  return s;
}

Status validateBlockRearrangement(const IOperationValidationContext* context,
                                  std::initializer_list<OperandType> params) {
  const auto required = static_cast<uint32_t>(1 + params.size());
  NN_TRY(validateInputCount(context, required, required + 1));
  NN_TRY(validateOutputCount(context, 1));
  const OperandType type = context->getInputType(0);
  NN_TRY(validateTypeIsOneOf(context, "input", type,
                             {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16,
                              OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
  std::vector<OperandType> inputTypes = {type};
  inputTypes.insert(inputTypes.end(), params.begin(), params.end());
  if (context->getNumInputs() > required) inputTypes.push_back(OperandType::BOOL);
  NN_TRY(validateInputTypes(context, inputTypes));
  NN_TRY(validateOutputTypes(context, {type}));
  NN_TRY(validateInputRank(context, 0, 4, 4));
  return validateSameQuantization(context, 0, 0);
}

Status validateConstantAxis(const IOperationValidationContext* context, uint32_t input, uint32_t axisInput,
                            uint32_t extraRank) {
  uint32_t rank = 0;
  int32_t axis = 0;
  if (axisInput < context->getNumInputs() && knownRank(context->getInputShape(input), &rank) &&
      constantInt32(context, axisInput, &axis)) {
    NN_TRY(resolveAxis(axis, rank + extraRank));
  }
  return {};
}

ImageGeometry imageGeometry(const Dimensions& dims, bool useNchw) {
  ImageGeometry g;
  if (dims.size() != 4) return g;
  g.batches = dims[0];
  g.height = dims[useNchw ? 2 : 1];
  g.width = dims[useNchw ? 3 : 2];
  g.channels = dims[useNchw ? 1 : 3];
  g.batchStride = static_cast<int64_t>(dims[1]) * dims[2] * dims[3];
  if (useNchw) {
    g.channelStride = static_cast<int64_t>(g.height) * g.width;
    g.heightStride = g.width;
    g.widthStride = 1;
  } else {
    g.heightStride = static_cast<int64_t>(g.width) * g.channels;
    g.widthStride = g.channels;
    g.channelStride = 1;
  }
  return g;
}

Dimensions imageDimensions(uint32_t batches, uint32_t height, uint32_t width, uint32_t channels, bool useNchw) {
  return useNchw ? Dimensions{batches, channels, height, width} : Dimensions{batches, height, width, channels};
}

float getFloatScalar(const IOperationExecutionContext* context, uint32_t index) {
  if (context->getInputType(index) == OperandType::FLOAT16) {
    return static_cast<float>(context->getInputValue<Float16>(index));
  }
  return context->getInputValue<float>(index);
}

}  // namespace weft::nn
