// CONCATENATION of n tensors along `axis` (the last input; negative counts from the end).
// Types: float32, float16, quant8 asymm and asymm signed; quantized inputs whose scale or zero
// point differ from the output's are requantized as TFLite does (float scale, round to nearest).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "weft/kernels/Float16.h"
#include "weft/kernels/OperationUtils.h"
#include "weft/kernels/QuantUtils.h"

namespace weft::nn::concatenation {

constexpr uint32_t kOutput = 0;

namespace {

uint32_t axisInput(const IOperationExecutionContext* context) { return context->getNumInputs() - 1; }

Result<uint32_t> readAxis(const IOperationExecutionContext* context, uint32_t rank) {
  return resolveAxis(context->getInputValue<int32_t>(axisInput(context)), rank);
}

// Copies input `i` into its slice of every outer row of the output.
template <typename T>
void copyRequantized(const T* in, size_t count, const Shape& inShape, const Shape& outShape, T* out) {
  if (inShape.scale == outShape.scale && inShape.offset == outShape.offset) {
    std::memcpy(out, in, count * sizeof(T));
    return;
  }
  const float inverseOutputScale = 1.0f / outShape.scale;
  const float scale = inShape.scale * inverseOutputScale;
  const float bias = -static_cast<float>(inShape.offset) * scale;
  for (size_t k = 0; k < count; ++k) {
    const int32_t v = static_cast<int32_t>(std::round(static_cast<float>(in[k]) * scale + bias)) + outShape.offset;
    out[k] = saturateCast<T>(v);
  }
}

template <typename T>
void concat(IOperationExecutionContext* context, uint32_t axis) {
  const Shape output = context->getOutputShape(kOutput);
  const size_t outer = getNumberOfElements(output, 0, axis);
  const size_t inner = getNumberOfElements(output, axis + 1, getNumberOfDimensions(output));
  const size_t outRow = size_t{output.dimensions[axis]} * inner;
  T* out = context->getOutputBuffer<T>(kOutput);
  size_t offset = 0;
  for (uint32_t i = 0; i < axisInput(context); ++i) {
    const Shape in = context->getInputShape(i);
    const size_t row = size_t{in.dimensions[axis]} * inner;
    const T* data = context->getInputBuffer<T>(i);
    if (row > 0) {
      for (size_t o = 0; o < outer; ++o) {
        if constexpr (std::is_integral_v<T>) {
          copyRequantized(data + o * row, row, in, output, out + o * outRow + offset);
        } else {
          std::memcpy(out + o * outRow + offset, data + o * row, row * sizeof(T));
        }
      }
    }
    offset += row;
  }
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  NN_RET_CHECK_GE(context->getNumInputs(), 2u) << "CONCATENATION needs at least one tensor and the axis";
  NN_TRY(validateOutputCount(context, 1));
  const uint32_t n = context->getNumInputs() - 1;
  const OperandType type = context->getInputType(0);
  NN_TRY(validateTypeIsOneOf(context, "input", type,
                             {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16,
                              OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
  for (uint32_t i = 0; i < n; ++i) {
    NN_RET_CHECK(context->getInputType(i) == type) << "input " << i << " must have the type of input 0";
    NN_TRY(validateInputRank(context, i, 1, 4));
  }
  NN_RET_CHECK(context->getInputType(n) == OperandType::INT32) << "axis must be INT32";
  NN_TRY(validateOutputTypes(context, {type}));
  const Shape first = context->getInputShape(0);
  int32_t axis = 0;
  if (!hasUnknownRank(first) && getConstantScalar(context, n, &axis)) {
    auto a = resolveAxis(axis, getNumberOfDimensions(first));
    if (!a.ok()) return a.error();
  }
  return {};
}

Status prepare(IOperationExecutionContext* context) {
  const uint32_t n = axisInput(context);
  const Shape first = context->getInputShape(0);
  const uint32_t rank = getNumberOfDimensions(first);
  NN_RET_CHECK(rank >= 1 && rank <= 4) << "rank " << rank;
  auto axis = readAxis(context, rank);
  if (!axis.ok()) return axis.error();
  Dimensions dims = first.dimensions;
  for (uint32_t i = 1; i < n; ++i) {
    const Shape in = context->getInputShape(i);
    NN_RET_CHECK_EQ(getNumberOfDimensions(in), rank) << "input " << i << " rank";
    for (uint32_t d = 0; d < rank; ++d) {
      if (d == *axis) continue;
      NN_RET_CHECK_EQ(in.dimensions[d], dims[d]) << "input " << i << " dimension " << d;
    }
    dims[*axis] += in.dimensions[*axis];
  }
  Shape output = context->getOutputShape(kOutput);
  output.dimensions = dims;
  return context->setOutputShape(kOutput, output);
}

Status execute(IOperationExecutionContext* context) {
  const Shape output = context->getOutputShape(kOutput);
  auto axis = readAxis(context, getNumberOfDimensions(output));
  if (!axis.ok()) return axis.error();
  switch (output.type) {
    case OperandType::TENSOR_FLOAT32:
      concat<float>(context, *axis);
      return {};
    case OperandType::TENSOR_FLOAT16:
      concat<Float16>(context, *axis);
      return {};
    case OperandType::TENSOR_QUANT8_ASYMM:
      concat<uint8_t>(context, *axis);
      return {};
    case OperandType::TENSOR_QUANT8_ASYMM_SIGNED:
      concat<int8_t>(context, *axis);
      return {};
    default:
      return NN_ERROR(BAD_DATA) << "unsupported type";
  }
}

}  // namespace weft::nn::concatenation

NN_REGISTER_OPERATION(CONCATENATION, "CONCATENATION", concatenation::validate, concatenation::prepare,
                      concatenation::execute, .allowZeroSizedInput = true)
