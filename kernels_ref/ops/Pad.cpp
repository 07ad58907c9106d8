// PAD: surrounds the input with paddings[d] = {before, after} elements per dimension, of value 0
// (the zero point for quantized tensors). Types: float32, float16, quant8 asymm and asymm signed.
#include <algorithm>
#include <cstring>
#include <vector>

#include "weft/kernels/OperationUtils.h"

namespace weft::nn::pad {

constexpr uint32_t kInput = 0;
constexpr uint32_t kPaddings = 1;
constexpr uint32_t kOutput = 0;

namespace {

// Copies input rows (the innermost dimension) into the padded output, recursing over dimensions.
template <typename T>
void copyInto(const T* in, const Dimensions& inDims, const Dimensions& outDims, const int32_t* paddings, size_t d,
              size_t inOffset, size_t outOffset, T* out) {
  const size_t rank = inDims.size();
  size_t inStride = 1, outStride = 1;
  for (size_t k = d + 1; k < rank; ++k) {
    inStride *= inDims[k];
    outStride *= outDims[k];
  }
  const size_t before = static_cast<size_t>(paddings[2 * d]);
  if (d + 1 == rank) {
    std::memcpy(out + outOffset + before, in + inOffset, inDims[d] * sizeof(T));
    return;
  }
  for (size_t i = 0; i < inDims[d]; ++i) {
    copyInto(in, inDims, outDims, paddings, d + 1, inOffset + i * inStride, outOffset + (i + before) * outStride, out);
  }
}

template <typename T>
void padTensor(const T* in, const Shape& input, const int32_t* paddings, T padValue, const Shape& output, T* out) {
  std::fill(out, out + getNumberOfElements(output), padValue);
  if (getNumberOfElements(input) == 0) return;
  if (input.dimensions.empty()) {
    out[0] = in[0];
    return;
  }
  copyInto(in, input.dimensions, output.dimensions, paddings, 0, 0, 0, out);
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  const OperandType type = context->getInputType(kInput);
  NN_TRY(validateTypeIsOneOf(context, "input", type,
                             {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16,
                              OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
  NN_TRY(validateInputTypes(context, {type, OperandType::TENSOR_INT32}));
  NN_TRY(validateOutputTypes(context, {type}));
  NN_TRY(validateInputRank(context, kInput, 1, 4));
  NN_TRY(validateInputRank(context, kPaddings, 2, 2));
  if (isQuantized(type)) {
    const Shape in = context->getInputShape(kInput), out = context->getOutputShape(kOutput);
    NN_RET_CHECK(in.scale == out.scale && in.offset == out.offset) << "PAD keeps the quantization";
  }
  return {};
}

Status prepare(IOperationExecutionContext* context) {
  const Shape input = context->getInputShape(kInput);
  const Shape paddings = context->getInputShape(kPaddings);
  const uint32_t rank = getNumberOfDimensions(input);
  NN_RET_CHECK(rank >= 1 && rank <= 4) << "input rank " << rank;
  NN_RET_CHECK(paddings.dimensions.size() == 2 && paddings.dimensions[0] == rank && paddings.dimensions[1] == 2)
      << "paddings must be [rank, 2], got " << toString(paddings.dimensions);
  const int32_t* p = context->getInputBuffer<int32_t>(kPaddings);
  Dimensions dims(rank);
  for (uint32_t d = 0; d < rank; ++d) {
    NN_RET_CHECK(p[2 * d] >= 0 && p[2 * d + 1] >= 0) << "paddings must be non-negative";
    dims[d] = input.dimensions[d] + static_cast<uint32_t>(p[2 * d]) + static_cast<uint32_t>(p[2 * d + 1]);
  }
  Shape output = context->getOutputShape(kOutput);
  output.dimensions = dims;
  return context->setOutputShape(kOutput, output);
}

Status execute(IOperationExecutionContext* context) {
  const Shape input = context->getInputShape(kInput);
  const Shape output = context->getOutputShape(kOutput);
  const int32_t* paddings = context->getInputBuffer<int32_t>(kPaddings);
  switch (input.type) {
    case OperandType::TENSOR_FLOAT32:
      padTensor(context->getInputBuffer<float>(kInput), input, paddings, 0.0f, output,
                context->getOutputBuffer<float>(kOutput));
      return {};
    case OperandType::TENSOR_FLOAT16:
      padTensor(context->getInputBuffer<uint16_t>(kInput), input, paddings, uint16_t{0}, output,
                context->getOutputBuffer<uint16_t>(kOutput));  // +0.0 is all-zero bits
      return {};
    case OperandType::TENSOR_QUANT8_ASYMM:
      padTensor(context->getInputBuffer<uint8_t>(kInput), input, paddings, static_cast<uint8_t>(output.offset), output,
                context->getOutputBuffer<uint8_t>(kOutput));
      return {};
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      padTensor(context->getInputBuffer<int8_t>(kInput), input, paddings, static_cast<int8_t>(output.offset), output,
                context->getOutputBuffer<int8_t>(kOutput));
      return {};
    default:
      return NN_ERROR(BAD_DATA) << "unsupported type";
  }
}

}  // namespace weft::nn::pad

NN_REGISTER_OPERATION(PAD, "PAD", pad::validate, pad::prepare, pad::execute, .allowZeroSizedInput = true)
