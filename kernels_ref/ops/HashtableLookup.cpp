// HASHTABLE_LOOKUP: for each lookup key, the values row whose key matches (keys: a 1-D TENSOR_INT32
// sorted ascending, one per values row), or a row of zeros; `hits` (TENSOR_QUANT8_ASYMM, scale 1,
// zero point 0) says which keys were found. Values float32, int32 or quant8 asymm, rank >= 1; the
// output keeps their quantization. Keys that are not sorted fail the execution.
#include <algorithm>
#include <cstdint>
#include <cstring>

#include "ElementwiseShapes.h"
#include "weft/kernels/OperationUtils.h"

namespace weft::nn::hashtable_lookup_op {

constexpr uint32_t kLookups = 0;
constexpr uint32_t kKeys = 1;
constexpr uint32_t kValues = 2;
constexpr uint32_t kOutput = 0;
constexpr uint32_t kHits = 1;

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateInputCount(context, 3, 3));
  NN_TRY(validateOutputCount(context, 2));
  const OperandType type = context->getInputType(kValues);
  NN_TRY(validateTypeIsOneOf(
      context, "values", type,
      {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_INT32, OperandType::TENSOR_QUANT8_ASYMM}));
  NN_TRY(validateInputTypes(context, {OperandType::TENSOR_INT32, OperandType::TENSOR_INT32, type}));
  NN_TRY(validateOutputTypes(context, {type, OperandType::TENSOR_QUANT8_ASYMM}));
  NN_TRY(validateInputRank(context, kLookups, 1, 1));
  NN_TRY(validateInputRank(context, kKeys, 1, 1));
  NN_TRY(validateInputRank(context, kValues, 1, UINT32_MAX));
  const Shape lookups = context->getInputShape(kLookups), keys = context->getInputShape(kKeys);
  const Shape values = context->getInputShape(kValues), hits = context->getOutputShape(kHits);
  NN_TRY(elementwise::checkSameQuantization("output", values, context->getOutputShape(kOutput)));
  NN_RET_CHECK(hits.scale == 1.0f && hits.offset == 0) << "hits must have scale 1 and zero point 0";
  using elementwise::DeclaredDims;
  if (!hasUnknownRank(keys) && !hasUnknownRank(values)) {
    NN_TRY(elementwise::checkSameDims("keys and values rows", DeclaredDims{Dimensions{keys.dimensions[0]}},
                                      DeclaredDims{Dimensions{values.dimensions[0]}}));
  }
  if (hasUnknownRank(lookups)) return {};
  NN_TRY(elementwise::checkOutputDims(context, kHits, Dimensions{lookups.dimensions[0]}));
  if (hasUnknownRank(values)) return {};
  return elementwise::checkOutputDims(context, kOutput,
                                      elementwise::lookupOutputDimensions(lookups.dimensions, values.dimensions));
}

Status prepare(IOperationExecutionContext* context) {
  const Shape lookups = context->getInputShape(kLookups), keys = context->getInputShape(kKeys);
  const Shape values = context->getInputShape(kValues);
  NN_RET_CHECK_EQ(getNumberOfDimensions(lookups), 1u) << "lookups must be 1-D";
  NN_RET_CHECK_EQ(getNumberOfDimensions(keys), 1u) << "keys must be 1-D";
  NN_RET_CHECK_GE(getNumberOfDimensions(values), 1u) << "values must have rank >= 1";
  NN_RET_CHECK_EQ(keys.dimensions[0], values.dimensions[0]) << "one key per values row";
  Shape out = context->getOutputShape(kOutput);
  out.dimensions = elementwise::lookupOutputDimensions(lookups.dimensions, values.dimensions);
  Shape hits = context->getOutputShape(kHits);
  hits.dimensions = lookups.dimensions;
  NN_TRY(context->setOutputShape(kOutput, out));
  return context->setOutputShape(kHits, hits);
}

Status execute(IOperationExecutionContext* context) {
  const Shape lookups = context->getInputShape(kLookups), values = context->getInputShape(kValues);
  const uint32_t rows = values.dimensions[0];
  NN_RET_CHECK_GT(rows, 0u) << "values have no rows";
  const size_t rowBytes = sizeOfData(values.type, values.dimensions) / rows;
  const int32_t* lookup = context->getInputBuffer<int32_t>(kLookups);
  const int32_t* keys = context->getInputBuffer<int32_t>(kKeys);
  NN_RET_CHECK(std::is_sorted(keys, keys + rows)) << "keys must be sorted in ascending order";
  const auto* in = static_cast<const uint8_t*>(context->getInputBuffer(kValues));
  auto* out = static_cast<uint8_t*>(context->getOutputBuffer(kOutput));
  uint8_t* hits = context->getOutputBuffer<uint8_t>(kHits);
  for (uint32_t i = 0; i < lookups.dimensions[0]; ++i) {
    const int32_t* found = std::lower_bound(keys, keys + rows, lookup[i]);
    if (found != keys + rows && *found == lookup[i]) {
      std::memcpy(out + i * rowBytes, in + static_cast<size_t>(found - keys) * rowBytes, rowBytes);
      hits[i] = 1;
    } else {
      std::memset(out + i * rowBytes, 0, rowBytes);
      hits[i] = 0;
    }
  }
  return {};
}

}  // namespace weft::nn::hashtable_lookup_op

NN_REGISTER_OPERATION(HASHTABLE_LOOKUP, "HASHTABLE_LOOKUP", hashtable_lookup_op::validate,
                      hashtable_lookup_op::prepare, hashtable_lookup_op::execute)
