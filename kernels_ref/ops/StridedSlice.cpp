// STRIDED_SLICE: every stride[d]-th element from begin[d] towards end[d] in each dimension, with
// TensorFlow's masks: bit d of begin_mask / end_mask ignores begin[d] / end[d] (the fullest range in
// the stride's direction), and bit d of shrink_axis_mask keeps only index begin[d] and drops the
// dimension (that slice must then have exactly one element and a positive stride); shrinking every
// dimension gives shape [1]. Out-of-range begin / end values are clamped as TensorFlow does.
// Types: float32, float16, quant8 asymm and asymm signed (quantization unchanged); rank up to 4.
#include <algorithm>
#include <cmath>
#include <vector>

#include "ElementCopy.h"
#include "TensorOpUtils.h"

namespace weft::nn::strided_slice {

constexpr uint32_t kInput = 0;
constexpr uint32_t kBegin = 1;
constexpr uint32_t kEnd = 2;
constexpr uint32_t kStrides = 3;
constexpr uint32_t kBeginMask = 4;
constexpr uint32_t kEndMask = 5;
constexpr uint32_t kShrinkAxisMask = 6;
constexpr uint32_t kOutput = 0;

namespace {

// TensorFlow's clamping of a begin or end index: negative values count from the end, and the result
// stays within [0, dim] for a positive stride or [-1, dim - 1] for a negative one.
int32_t clampIndex(int32_t index, int32_t dim, bool positiveStride) {
  auto positiveRemainder = [](int32_t a, int32_t b) { return (b + a % b) % b; };
  if (positiveStride) {
    if (index >= dim) return dim;
    return positiveRemainder(std::clamp(index, -dim, dim), dim);
  }
  if (index < -dim) return -1;
  return positiveRemainder(std::clamp(index, -dim, dim - 1), dim);
}

// Per input dimension: first index, step, and number of elements taken.
struct SliceSpec {
  std::vector<int32_t> begin, stride;
  Dimensions count;             // one entry per input dimension (1 for shrunk ones)
  Dimensions outputDimensions;  // without the shrunk dimensions
};

Result<SliceSpec> readSpec(const IOperationExecutionContext* context) {
  const Shape input = context->getInputShape(kInput);
  const uint32_t rank = getNumberOfDimensions(input);
  NN_RET_CHECK(rank >= 1 && rank <= 4) << "input rank " << rank;
  auto begin = readInt32Vector(context, kBegin, rank);
  if (!begin.ok()) return begin.error();
  auto end = readInt32Vector(context, kEnd, rank);
  if (!end.ok()) return end.error();
  auto strides = readInt32Vector(context, kStrides, rank);
  if (!strides.ok()) return strides.error();
  const int32_t beginMask = context->getInputValue<int32_t>(kBeginMask);
  const int32_t endMask = context->getInputValue<int32_t>(kEndMask);
  const int32_t shrinkMask = context->getInputValue<int32_t>(kShrinkAxisMask);
  SliceSpec spec;
  for (uint32_t d = 0; d < rank; ++d) {
    const int32_t dim = static_cast<int32_t>(input.dimensions[d]);
    const int32_t stride = (*strides)[d];
    NN_RET_CHECK(stride != 0) << "stride " << d << " is zero";
    NN_RET_CHECK(dim > 0) << "dimension " << d << " is empty";
    const bool positive = stride > 0;
    const int32_t first = (beginMask & (1 << d)) ? (positive ? 0 : dim - 1) : clampIndex((*begin)[d], dim, positive);
    const int32_t last = (endMask & (1 << d)) ? (positive ? dim : -1) : clampIndex((*end)[d], dim, positive);
    const int64_t span = static_cast<int64_t>(last) - first;
    int64_t count = (span + stride + (positive ? -1 : 1)) / stride;  // ceil(span / stride)
    count = std::max<int64_t>(count, 0);
    if (shrinkMask & (1 << d)) {
      NN_RET_CHECK(positive) << "shrunk dimension " << d << " needs a positive stride";
      NN_RET_CHECK_EQ(span, 1) << "shrunk dimension " << d << " must select exactly one element";
      count = 1;
    } else {
      spec.outputDimensions.push_back(static_cast<uint32_t>(count));
    }
    spec.begin.push_back(first);
    spec.stride.push_back(stride);
    spec.count.push_back(static_cast<uint32_t>(count));
  }
  // Shrinking every dimension leaves one element, of shape [1] as in NNAPI's reference.
  if (spec.outputDimensions.empty()) spec.outputDimensions.push_back(1);
  return spec;
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateInputCount(context, 7, 7));
  NN_TRY(validateOutputCount(context, 1));
  const OperandType type = context->getInputType(kInput);
  NN_TRY(validateTypeIsOneOf(context, "input", type,
                             {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16,
                              OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
  NN_TRY(validateInputTypes(context, {type, OperandType::TENSOR_INT32, OperandType::TENSOR_INT32,
                                      OperandType::TENSOR_INT32, OperandType::INT32, OperandType::INT32,
                                      OperandType::INT32}));
  NN_TRY(validateOutputTypes(context, {type}));
  NN_TRY(validateInputRank(context, kInput, 1, 4));
  for (uint32_t i : {kBegin, kEnd, kStrides}) NN_TRY(validateInputRank(context, i, 1, 1));
  return validateSameQuantization(context, kInput, kOutput);
}

Status prepare(IOperationExecutionContext* context) {
  auto spec = readSpec(context);
  if (!spec.ok()) return spec.error();
  Shape output = context->getOutputShape(kOutput);
  output.dimensions = spec->outputDimensions;
  return context->setOutputShape(kOutput, output);
}

Status execute(IOperationExecutionContext* context) {
  auto spec = readSpec(context);
  if (!spec.ok()) return spec.error();
  const Shape input = context->getInputShape(kInput);
  const std::vector<int64_t> inputStrides = rowMajorStrides(input.dimensions);
  OffsetTable table(spec->count.size());
  for (size_t d = 0; d < table.size(); ++d) {
    table[d] = stridedOffsets(spec->count[d], spec->stride[d] * inputStrides[d], spec->begin[d] * inputStrides[d]);
  }
  // The output holds the same elements in the same order; shrunk dimensions have extent 1.
  gatherElements(context->getInputBuffer(kInput), table, spec->count, sizeOfElement(input.type),
                 context->getOutputBuffer(kOutput));
  return {};
}

}  // namespace weft::nn::strided_slice

NN_REGISTER_OPERATION(STRIDED_SLICE, "STRIDED_SLICE", strided_slice::validate, strided_slice::prepare,
                      strided_slice::execute)
