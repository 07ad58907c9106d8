#include "ArgMinMax.h"

#include <cstdint>

#include "ElementwiseShapes.h"
#include "weft/kernels/Float16.h"
#include "weft/kernels/OperationUtils.h"

namespace weft::nn::arg_min_max {

namespace {

constexpr uint32_t kInput = 0;
constexpr uint32_t kAxis = 1;
constexpr uint32_t kOutput = 0;

Dimensions outputDimensions(const Dimensions& input, uint32_t axis) {
  if (input.size() == 1) return {1};
  Dimensions out;
  for (size_t d = 0; d < input.size(); ++d) {
    if (d != axis) out.push_back(input[d]);
  }
  return out;
}

size_t product(const Dimensions& dims, size_t begin, size_t end) {
  size_t n = 1;
  for (size_t d = begin; d < end; ++d) n *= dims[d];
  return n;
}

template <typename T>
void run(Kind kind, const T* in, const Dimensions& dims, uint32_t axis, int32_t* out) {
  const size_t outer = product(dims, 0, axis);
  const size_t axisSize = dims[axis];
  const size_t inner = product(dims, axis + 1, dims.size());
  for (size_t o = 0; o < outer; ++o) {
    for (size_t i = 0; i < inner; ++i) {
      const T* column = in + o * axisSize * inner + i;
      T best = column[0];
      int32_t bestIndex = 0;
      for (size_t k = 1; k < axisSize; ++k) {
        const T value = column[k * inner];
        if (kind == Kind::MAX ? value > best : value < best) {
          best = value;
          bestIndex = static_cast<int32_t>(k);
        }
      }
      out[o * inner + i] = bestIndex;
    }
  }
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateInputCount(context, 2, 2));
  NN_TRY(validateOutputCount(context, 1));
  const OperandType type = context->getInputType(kInput);
  NN_TRY(validateTypeIsOneOf(context, "input", type,
                             {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16, OperandType::TENSOR_INT32,
                              OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
  NN_TRY(validateInputTypes(context, {type, OperandType::INT32}));
  NN_TRY(validateOutputTypes(context, {OperandType::TENSOR_INT32}));
  NN_TRY(validateInputRank(context, kInput, 1, UINT32_MAX));
  const Shape input = context->getInputShape(kInput);
  int32_t axisValue = 0;
  if (hasUnknownRank(input) || !getConstantScalar(context, kAxis, &axisValue)) return {};
  auto axis = resolveAxis(axisValue, getNumberOfDimensions(input));
  if (!axis.ok()) return axis.error();
  return elementwise::checkOutputDims(context, kOutput, outputDimensions(input.dimensions, *axis));
}

Status prepare(IOperationExecutionContext* context) {
  const Shape input = context->getInputShape(kInput);
  NN_RET_CHECK_GE(getNumberOfDimensions(input), 1u) << "input must have rank >= 1";
  auto axis = resolveAxis(context->getInputValue<int32_t>(kAxis), getNumberOfDimensions(input));
  if (!axis.ok()) return axis.error();
  Shape out = context->getOutputShape(kOutput);
  out.dimensions = outputDimensions(input.dimensions, *axis);
  return context->setOutputShape(kOutput, out);
}

Status execute(IOperationExecutionContext* context, Kind kind) {
  const Shape input = context->getInputShape(kInput);
  auto axis = resolveAxis(context->getInputValue<int32_t>(kAxis), getNumberOfDimensions(input));
  if (!axis.ok()) return axis.error();
  int32_t* out = context->getOutputBuffer<int32_t>(kOutput);
  switch (input.type) {
    case OperandType::TENSOR_FLOAT32:
      run(kind, context->getInputBuffer<float>(kInput), input.dimensions, *axis, out);
      return {};
    case OperandType::TENSOR_FLOAT16:
      run(kind, context->getInputBuffer<Float16>(kInput), input.dimensions, *axis, out);
      return {};
    case OperandType::TENSOR_INT32:
      run(kind, context->getInputBuffer<int32_t>(kInput), input.dimensions, *axis, out);
      return {};
    case OperandType::TENSOR_QUANT8_ASYMM:
      run(kind, context->getInputBuffer<uint8_t>(kInput), input.dimensions, *axis, out);
      return {};
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      run(kind, context->getInputBuffer<int8_t>(kInput), input.dimensions, *axis, out);
      return {};
    default:
      return NN_ERROR(BAD_DATA) << "unsupported input type " << toString(input.type);
  }
}

}  // namespace weft::nn::arg_min_max
