#include "PaddingUtils.h"

#include "ElementCopy.h"
#include "TensorOpUtils.h"

namespace weft::nn {

Result<std::vector<DimPadding>> readPaddings(const IOperationExecutionContext* context, uint32_t index,
                                             uint32_t rank) {
  const Shape shape = context->getInputShape(index);
  NN_RET_CHECK(shape.type == OperandType::TENSOR_INT32) << "paddings must be TENSOR_INT32";
  NN_RET_CHECK(shape.dimensions.size() == 2 && shape.dimensions[0] == rank && shape.dimensions[1] == 2)
      << "paddings must have shape [" << rank << ", 2], got " << toString(shape.dimensions);
  const int32_t* data = context->getInputBuffer<int32_t>(index);
  std::vector<DimPadding> paddings(rank);
  for (uint32_t d = 0; d < rank; ++d) {
    NN_RET_CHECK(data[2 * d] >= 0 && data[2 * d + 1] >= 0)
        << "paddings of dimension " << d << " must be non-negative, got " << data[2 * d] << ", " << data[2 * d + 1];
    paddings[d] = {static_cast<uint32_t>(data[2 * d]), static_cast<uint32_t>(data[2 * d + 1])};
  }
  return paddings;
}

Result<Dimensions> paddedDimensions(const Dimensions& dims, const std::vector<DimPadding>& paddings) {
  NN_RET_CHECK_EQ(dims.size(), paddings.size());
  Dimensions padded(dims.size());
  for (size_t d = 0; d < dims.size(); ++d) {
    const uint64_t size = uint64_t{dims[d]} + paddings[d].before + paddings[d].after;
    NN_RET_CHECK_LE(size, uint64_t{UINT32_MAX}) << "padded dimension " << d << " overflows";
    padded[d] = static_cast<uint32_t>(size);
  }
  return padded;
}

void padElements(const void* input, const Dimensions& inputDims, const std::vector<DimPadding>& paddings,
                 const void* padValue, size_t elementSize, void* output) {
  Dimensions outputDims(inputDims.size());
  for (size_t d = 0; d < inputDims.size(); ++d) outputDims[d] = inputDims[d] + paddings[d].before + paddings[d].after;
  fillElements(output, numberOfElements(outputDims), padValue, elementSize);
  // The input lands at offset `before` in every dimension of the output.
  const std::vector<int64_t> outputStrides = rowMajorStrides(outputDims);
  OffsetTable interior(inputDims.size());
  for (size_t d = 0; d < inputDims.size(); ++d) {
    interior[d] = stridedOffsets(inputDims[d], outputStrides[d], paddings[d].before * outputStrides[d]);
  }
  copyElements(input, contiguousOffsets(inputDims), output, interior, inputDims, elementSize);
}

Status preparePad(IOperationExecutionContext* context) {
  const Shape input = context->getInputShape(0);
  const uint32_t rank = getNumberOfDimensions(input);
  NN_RET_CHECK(rank >= 1 && rank <= 4) << "input rank " << rank;
  auto paddings = readPaddings(context, 1, rank);
  if (!paddings.ok()) return paddings.error();
  auto dims = paddedDimensions(input.dimensions, *paddings);
  if (!dims.ok()) return dims.error();
  Shape output = context->getOutputShape(0);
  output.dimensions = std::move(dims).value();
  return context->setOutputShape(0, output);
}

Status executePad(IOperationExecutionContext* context, const void* padValue) {
  const Shape input = context->getInputShape(0);
  auto paddings = readPaddings(context, 1, getNumberOfDimensions(input));
  if (!paddings.ok()) return paddings.error();
  padElements(context->getInputBuffer(0), input.dimensions, *paddings, padValue, sizeOfElement(input.type),
              context->getOutputBuffer(0));
  return {};
}

}  // namespace weft::nn
