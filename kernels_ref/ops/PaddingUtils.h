// Paddings shared by PAD, PAD_V2, MIRROR_PAD and SPACE_TO_BATCH_ND: reading a [rank, 2] TENSOR_INT32 of
// (before, after) counts and writing a tensor into the interior of a padded one.
#pragma once

#include <cstdint>
#include <vector>

#include "weft/kernels/OperationResolver.h"
#include "weft/nn/Types.h"

namespace weft::nn {

struct DimPadding {
  uint32_t before = 0;
  uint32_t after = 0;
};

// Input `index` as `rank` non-negative (before, after) pairs; BAD_DATA unless it is [rank, 2].
Result<std::vector<DimPadding>> readPaddings(const IOperationExecutionContext* context, uint32_t index, uint32_t rank);

// `dims` grown by the paddings; BAD_DATA when a dimension overflows.
Result<Dimensions> paddedDimensions(const Dimensions& dims, const std::vector<DimPadding>& paddings);

// Writes `input` (row-major over inputDims) into the interior of `output` (row-major over
// paddedDimensions(inputDims, paddings)) and every other output element to `padValue` (one
// element of `elementSize` bytes).
void padElements(const void* input, const Dimensions& inputDims, const std::vector<DimPadding>& paddings,
                 const void* padValue, size_t elementSize, void* output);

// PAD and PAD_V2, which differ only in where the pad value comes from. prepare(): output 0 is
// input 0 (rank 1 to 4) grown by the paddings of input 1. execute(): pads input 0 into output 0
// with `padValue`, one element of the input's type.
Status preparePad(IOperationExecutionContext* context);
Status executePad(IOperationExecutionContext* context, const void* padValue);

}  // namespace weft::nn
