// EMBEDDING_LOOKUP: output[i] = values[lookups[i]], whole rows of an n-D (n >= 2) values tensor
// selected by a 1-D TENSOR_INT32 of row indexes. Values float32, float16, int32 and quantized 8-bit;
// the output keeps their quantization. An index outside [0, rows) fails the execution.
#include <cstdint>
#include <cstring>

#include "ElementwiseShapes.h"
#include "weft/kernels/OperationUtils.h"

namespace weft::nn::embedding_lookup_op {

constexpr uint32_t kLookups = 0;
constexpr uint32_t kValues = 1;
constexpr uint32_t kOutput = 0;

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateInputCount(context, 2, 2));
  NN_TRY(validateOutputCount(context, 1));
  const OperandType type = context->getInputType(kValues);
  NN_TRY(validateTypeIsOneOf(context, "values", type,
                             {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16, OperandType::TENSOR_INT32,
                              OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
  NN_TRY(validateInputTypes(context, {OperandType::TENSOR_INT32, type}));
  NN_TRY(validateOutputTypes(context, {type}));
  NN_TRY(validateInputRank(context, kLookups, 1, 1));
  NN_TRY(validateInputRank(context, kValues, 2, UINT32_MAX));
  const Shape lookups = context->getInputShape(kLookups), values = context->getInputShape(kValues);
  NN_TRY(elementwise::checkSameQuantization("output", values, context->getOutputShape(kOutput)));
  if (hasUnknownRank(lookups) || hasUnknownRank(values)) return {};
  return elementwise::checkOutputDims(context, kOutput,
                                      elementwise::lookupOutputDimensions(lookups.dimensions, values.dimensions));
}

Status prepare(IOperationExecutionContext* context) {
  const Shape lookups = context->getInputShape(kLookups), values = context->getInputShape(kValues);
  NN_RET_CHECK_EQ(getNumberOfDimensions(lookups), 1u) << "lookups must be 1-D";
  NN_RET_CHECK_GE(getNumberOfDimensions(values), 2u) << "values must have rank >= 2";
  Shape out = context->getOutputShape(kOutput);
  out.dimensions = elementwise::lookupOutputDimensions(lookups.dimensions, values.dimensions);
  return context->setOutputShape(kOutput, out);
}

Status execute(IOperationExecutionContext* context) {
  const Shape lookups = context->getInputShape(kLookups), values = context->getInputShape(kValues);
  const uint32_t rows = values.dimensions[0];
  NN_RET_CHECK_GT(rows, 0u) << "values have no rows";
  const size_t rowBytes = sizeOfData(values.type, values.dimensions) / rows;
  const int32_t* index = context->getInputBuffer<int32_t>(kLookups);
  const auto* in = static_cast<const uint8_t*>(context->getInputBuffer(kValues));
  auto* out = static_cast<uint8_t*>(context->getOutputBuffer(kOutput));
  for (uint32_t i = 0; i < lookups.dimensions[0]; ++i) {
    NN_RET_CHECK(index[i] >= 0 && static_cast<uint32_t>(index[i]) < rows)
        << "lookup " << i << " is row " << index[i] << ", outside [0, " << rows << ")";
    std::memcpy(out + i * rowBytes, in + static_cast<size_t>(index[i]) * rowBytes, rowBytes);
  }
  return {};
}

}  // namespace weft::nn::embedding_lookup_op

NN_REGISTER_OPERATION(EMBEDDING_LOOKUP, "EMBEDDING_LOOKUP", embedding_lookup_op::validate,
                      embedding_lookup_op::prepare, embedding_lookup_op::execute)
