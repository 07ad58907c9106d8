// Checks and parameter readers shared by the shape, data-movement, image and normalization
// operations (kernels_ref/ops/Transpose.cpp ... LogSoftmax.cpp): quantization that must pass
// through unchanged, 1-D TENSOR_INT32 parameter tensors, axis handling, and the outer / axis /
// inner decomposition most axis-wise kernels iterate over.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "weft/kernels/OperationResolver.h"
#include "weft/kernels/OperationUtils.h"

namespace weft::nn {

// For quantized types: `output` has the scale and zero point of `input` (NNAPI requires it of every
// operation that only moves values). Float and integer types pass.
Status validateSameQuantization(const Shape& input, const Shape& output);

// The same, for input `inputIndex` and output `outputIndex` of an operation being validated.
Status validateSameQuantization(const IOperationValidationContext* context, uint32_t inputIndex,
                                uint32_t outputIndex);

// The values of 1-D TENSOR_INT32 input `index`; BAD_DATA unless it is 1-D with `expectedLength`
// elements (any length when expectedLength < 0).
Result<std::vector<int32_t>> readInt32Vector(const IOperationExecutionContext* context, uint32_t index,
                                             int64_t expectedLength);

// The value of a constant INT32 scalar input during validation, or false when it is not constant.
inline bool constantInt32(const IOperationValidationContext* context, uint32_t index, int32_t* value) {
  return context->getInputType(index) == OperandType::INT32 && getConstantScalar(context, index, value);
}

// Rank of a validated shape when known.
inline bool knownRank(const Shape& shape, uint32_t* rank) {
  if (hasUnknownRank(shape)) return false;
  *rank = getNumberOfDimensions(shape);
  return true;
}

// At validation, when the rank of input `input` and the INT32 axis input `axisInput` are both
// known, the axis is in [-(rank + extraRank), rank + extraRank) (extraRank 1 for an axis that
// may name a new dimension). An axis input the operation was not given passes.
Status validateConstantAxis(const IOperationValidationContext* context, uint32_t input, uint32_t axisInput,
                            uint32_t extraRank = 0);

// A tensor seen as [outer, axisSize, inner] around dimension `axis`.
struct AxisSplit {
  size_t outer = 1;
  size_t axisSize = 1;
  size_t inner = 1;
};
AxisSplit splitAtAxis(const Dimensions& dims, uint32_t axis);

// The batch, height, width and channel extents of a 4-D image tensor in NHWC or NCHW layout, and
// the element strides of each in its buffer: lets one index formula serve both layouts.
struct ImageGeometry {
  uint32_t batches = 0, height = 0, width = 0, channels = 0;
  int64_t batchStride = 0, heightStride = 0, widthStride = 0, channelStride = 0;
};
ImageGeometry imageGeometry(const Dimensions& dims, bool useNchw);
// The 4-D dimensions of an image with the given extents in the given layout.
Dimensions imageDimensions(uint32_t batches, uint32_t height, uint32_t width, uint32_t channels, bool useNchw);

// The signature of the block rearrangements (DEPTH_TO_SPACE, SPACE_TO_DEPTH, BATCH_TO_SPACE_ND,
// SPACE_TO_BATCH_ND): a 4-D float32, float16 or quant8 asymm (signed) input 0, then inputs of the
// types `params`, an optional BOOL layout flag, and one output of the input's type and
// quantization.
Status validateBlockRearrangement(const IOperationValidationContext* context,
                                  std::initializer_list<OperandType> params);

// Reads a FLOAT32 or FLOAT16 scalar input as float (the type follows the tensor type).
float getFloatScalar(const IOperationExecutionContext* context, uint32_t index);

}  // namespace weft::nn
