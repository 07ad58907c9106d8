// TILE: repeats the input multiples[d] times along each dimension d (multiples: 1-D TENSOR_INT32 of
// the input's rank, non-negative). Types: float32, float16, int32, quant8 asymm and asymm signed
// (quantization unchanged).
#include <vector>

#include "ElementCopy.h"
#include "TensorOpUtils.h"

namespace weft::nn::tile {

constexpr uint32_t kInput = 0;
constexpr uint32_t kMultiples = 1;
constexpr uint32_t kOutput = 0;

namespace {

Result<std::vector<int32_t>> readMultiples(const IOperationExecutionContext* context) {
  const uint32_t rank = getNumberOfDimensions(context->getInputShape(kInput));
  NN_RET_CHECK_GE(rank, 1u) << "input must have rank 1 or more";
  auto multiples = readInt32Vector(context, kMultiples, rank);
  if (!multiples.ok()) return multiples.error();
  for (int32_t m : *multiples) NN_RET_CHECK_GE(m, 0) << "negative multiple";
  return multiples;
}

}  // namespace

Status validate(const IOperationValidationContext* context) {
  NN_TRY(validateInputCount(context, 2, 2));
  NN_TRY(validateOutputCount(context, 1));
  const OperandType type = context->getInputType(kInput);
  NN_TRY(validateTypeIsOneOf(context, "input", type,
                             {OperandType::TENSOR_FLOAT32, OperandType::TENSOR_FLOAT16, OperandType::TENSOR_INT32,
                              OperandType::TENSOR_QUANT8_ASYMM, OperandType::TENSOR_QUANT8_ASYMM_SIGNED}));
  NN_TRY(validateInputTypes(context, {type, OperandType::TENSOR_INT32}));
  NN_TRY(validateOutputTypes(context, {type}));
  NN_TRY(validateInputRank(context, kMultiples, 1, 1));
  return validateSameQuantization(context, kInput, kOutput);
}

Status prepare(IOperationExecutionContext* context) {
  auto multiples = readMultiples(context);
  if (!multiples.ok()) return multiples.error();
  const Shape input = context->getInputShape(kInput);
  Shape output = context->getOutputShape(kOutput);
  output.dimensions = input.dimensions;
  for (size_t d = 0; d < output.dimensions.size(); ++d) {
    const uint64_t size = uint64_t{input.dimensions[d]} * static_cast<uint32_t>((*multiples)[d]);
    NN_RET_CHECK_LE(size, uint64_t{UINT32_MAX}) << "tiled dimension " << d << " overflows";
    output.dimensions[d] = static_cast<uint32_t>(size);
  }
  return context->setOutputShape(kOutput, output);
}

Status execute(IOperationExecutionContext* context) {
  auto multiples = readMultiples(context);
  if (!multiples.ok()) return multiples.error();
  const Shape input = context->getInputShape(kInput);
  // Output index t * size + i along a dimension reads input index i: iterate the index space
  // [m_0, size_0, m_1, size_1, ...], whose row-major order is exactly the output's.
  const std::vector<int64_t> strides = rowMajorStrides(input.dimensions);
  Dimensions dims;
  OffsetTable table;
  for (size_t d = 0; d < input.dimensions.size(); ++d) {
    dims.push_back(static_cast<uint32_t>((*multiples)[d]));
    table.push_back(std::vector<int64_t>((*multiples)[d], 0));
    dims.push_back(input.dimensions[d]);
    table.push_back(stridedOffsets(input.dimensions[d], strides[d]));
  }
  gatherElements(context->getInputBuffer(kInput), table, dims, sizeOfElement(input.type),
                 context->getOutputBuffer(kOutput));
  return {};
}

}  // namespace weft::nn::tile

NN_REGISTER_OPERATION(TILE, "TILE", tile::validate, tile::prepare, tile::execute)
