// FILL: a tensor of the shape given by a 1-D TENSOR_INT32 (each dimension >= 0) with every element
// equal to a scalar value: FLOAT32, FLOAT16 or INT32, matching the output tensor's type.
#include <cstdint>
#include <limits>

#include "ElementwiseShapes.h"
#include "weft/kernels/Float16.h"
#include "weft/kernels/OperationUtils.h"

namespace weft::nn::fill_op {

constexpr uint32_t kDims = 0;
constexpr uint32_t kValue = 1;
constexpr uint32_t kOutput = 0;

namespace {

Result<OperandType> valueTypeFor(OperandType outputType) {
  switch (outputType) {
    case OperandType::TENSOR_FLOAT32: return OperandType::FLOAT32;
    case OperandType::TENSOR_FLOAT16: return OperandType::FLOAT16;
    case OperandType::TENSOR_INT32: return OperandType::INT32;
    default: return NN_ERROR(BAD_DATA) << "FILL cannot produce " << toString(outputType);
  }
}

// The requested shape; BAD_DATA for a negative dimension or a tensor too large for NNAPI's 32-bit
// operand byte sizes.
Result<Dimensions> requestedDimensions(const int32_t* dims, size_t rank, size_t elementSize) {
  Dimensions out(rank);
  uint64_t bytes = elementSize;
  for (size_t i = 0; i < rank; ++i) {
    NN_RET_CHECK_GE(dims[i], 0) << "dimension " << i << " is negative";
    out[i] = static_cast<uint32_t>(dims[i]);
    bytes = out[i] == 0 ? 0 : bytes * out[i];
    NN_RET_CHECK_LE(bytes, uint64_t{std::numeric_limits<uint32_t>::max()}) << "FILL output too large";
  }
  return out;
}

template <typename T>
void fill(IOperationExecutionContext* context) {
  const T value = context->getInputValue<T>(kValue);
  T* out = context->getOutputBuffer<T>(kOutput);
  const size_t n = getNumberOfElements(context->getOutputShape(kOutput));
  for (size_t i = 0; i < n; ++i) out[i] = value;
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateInputCount(context, 2, 2));
  NN_TRY(validateOutputCount(context, 1));
  const OperandType outputType = context->getOutputType(kOutput);
  auto valueType = valueTypeFor(outputType);
  if (!valueType.ok()) return valueType.error();
  NN_TRY(validateInputTypes(context, {OperandType::TENSOR_INT32, *valueType}));
  NN_TRY(validateOutputTypes(context, {outputType}));
  NN_TRY(validateInputRank(context, kDims, 1, 1));
  const Shape dimsShape = context->getInputShape(kDims);
  const auto* dims = static_cast<const int32_t*>(context->getConstantInputBuffer(kDims));
  if (dims == nullptr || !isFullySpecified(dimsShape.type, dimsShape.dimensions)) return {};
  auto requested = requestedDimensions(dims, dimsShape.dimensions[0], sizeOfElement(outputType));
  if (!requested.ok()) return requested.error();
  return elementwise::checkOutputDims(context, kOutput, *requested);
}

Status prepare(IOperationExecutionContext* context) {
  const Shape dimsShape = context->getInputShape(kDims);
  NN_RET_CHECK_EQ(getNumberOfDimensions(dimsShape), 1u) << "dims must be 1-D";
  const uint32_t rank = dimsShape.dimensions[0];
  NN_RET_CHECK(rank == 0 || context->getInputBuffer(kDims) != nullptr) << "dims have no value";
  Shape out = context->getOutputShape(kOutput);
  auto requested = requestedDimensions(context->getInputBuffer<int32_t>(kDims), rank, sizeOfElement(out.type));
  if (!requested.ok()) return requested.error();
  out.dimensions = std::move(requested).value();
  return context->setOutputShape(kOutput, out);
}

Status execute(IOperationExecutionContext* context) {
  switch (context->getOutputType(kOutput)) {
    case OperandType::TENSOR_FLOAT32: fill<float>(context); return {};
    case OperandType::TENSOR_FLOAT16: fill<Float16>(context); return {};
    case OperandType::TENSOR_INT32: fill<int32_t>(context); return {};
    default: return NN_ERROR(BAD_DATA) << "unsupported output type " << toString(context->getOutputType(kOutput));
  }
}

}  // namespace weft::nn::fill_op

NN_REGISTER_OPERATION(FILL, "FILL", fill_op::validate, fill_op::prepare, fill_op::execute)
