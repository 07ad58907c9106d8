// Helpers every operation file uses: shape queries, validation of operand counts / types / ranks /
// scalar parameters, fused activations, and padding arithmetic. Layout (NCHW) handling is in
// Layout.h, broadcasting in Broadcast.h, typed dispatch in TypeDispatch.h, quantization in
// QuantUtils.h.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "weft/kernels/OperationResolver.h"
#include "weft/nn/Result.h"
#include "weft/nn/Types.h"

namespace weft::nn {

// --- Shapes ------------------------------------------------------------------------------------

inline uint32_t getNumberOfDimensions(const Shape& shape) { return static_cast<uint32_t>(shape.dimensions.size()); }
// Dimension `i`, or 0 when the rank is smaller (unknown).
inline uint32_t getSizeOfDimension(const Shape& shape, uint32_t i) {
  return i < shape.dimensions.size() ? shape.dimensions[i] : 0;
}
inline size_t getNumberOfElements(const Shape& shape) { return numberOfElements(shape.dimensions); }
// Product of dimensions [start, end).
size_t getNumberOfElements(const Shape& shape, uint32_t start, uint32_t end);
// True for a tensor whose rank is not known (declared with no dimensions).
inline bool hasUnknownRank(const Shape& shape) { return isTensor(shape.type) && shape.dimensions.empty(); }
// Turns a possibly negative axis into [0, rank); BAD_DATA when out of range.
Result<uint32_t> resolveAxis(int32_t axis, uint32_t rank);
std::string toString(const Dimensions& dims);
// prepare(): outputs 0, 1, ... take dims[0], dims[1], ... (their declared type and quantization
// kept).
Status setOutputDimensions(IOperationExecutionContext* context, const std::vector<Dimensions>& dims);

// --- Validation --------------------------------------------------------------------------------

// Exactly these input (output) types, in order; BAD_DATA naming the first mismatch. Omitted
// optional inputs are accepted for any expected type.
Status validateInputTypes(const IOperationValidationContext* context, std::initializer_list<OperandType> types);
Status validateInputTypes(const IOperationValidationContext* context, const std::vector<OperandType>& types);
Status validateOutputTypes(const IOperationValidationContext* context, std::initializer_list<OperandType> types);
// Number of inputs in [minCount, maxCount], outputs exactly `outputs`.
Status validateInputCount(const IOperationValidationContext* context, uint32_t minCount, uint32_t maxCount);
Status validateOutputCount(const IOperationValidationContext* context, uint32_t count);
// Rank of input `index` in [minRank, maxRank] when known.
Status validateInputRank(const IOperationValidationContext* context, uint32_t index, uint32_t minRank,
                         uint32_t maxRank);
// One of `allowed`; names the operation and the type otherwise.
Status validateTypeIsOneOf(const IOperationValidationContext* context, const char* what, OperandType type,
                           std::initializer_list<OperandType> allowed);
// The quantization parameters NNAPI requires of an operand of `shape.type` (scale > 0, zero point in
// the type's range, per-channel scales matching the channel dimension).
Status validateQuantization(const Shape& shape);
// When input `index` is a constant INT32 fused-activation code, it is 0..3.
Status validateActivationInput(const IOperationValidationContext* context, uint32_t index);
// Reads a constant scalar input into *value; false when the input is not a constant.
template <typename T>
bool getConstantScalar(const IOperationValidationContext* context, uint32_t index, T* value) {
  const void* p = context->getConstantInputBuffer(index);
  if (p == nullptr) return false;
  *value = *static_cast<const T*>(p);
  return true;
}

// --- Execution-time parameters -----------------------------------------------------------------

// Reads the INT32 activation code of input `index`; BAD_DATA unless 0..3.
Result<FusedActivationFunc> getActivation(const IOperationExecutionContext* context, uint32_t index);
// Reads an optional BOOL input (layout, keep-dims flags); `fallback` when the input is absent.
bool getOptionalBool(const IOperationExecutionContext* context, uint32_t index, bool fallback);

// --- Padding -----------------------------------------------------------------------------------

enum class PaddingScheme : int32_t { SAME = 1, VALID = 2 };

// Explicit head/tail padding NNAPI derives from an implicit scheme (dilation-aware).
void calculateExplicitPadding(int32_t inSize, int32_t stride, int32_t dilation, int32_t filterSize,
                              PaddingScheme scheme, int32_t* head, int32_t* tail);
// Output size of a window sweep; BAD_DATA when the window does not fit even once.
Result<uint32_t> computeOutSize(uint32_t inSize, uint32_t filterSize, uint32_t stride, uint32_t dilation,
                                uint32_t padHead, uint32_t padTail);

// Spatial parameters of a 2-D window operation (conv, depthwise, pooling), in NHWC terms.
struct Window2D {
  int32_t padLeft = 0, padRight = 0, padTop = 0, padBottom = 0;
  int32_t strideWidth = 1, strideHeight = 1;
  int32_t dilationWidth = 1, dilationHeight = 1;
};
// Checks what every windowed operation needs: positive strides and dilations, non-negative pads.
Status validateWindow(const Window2D& window);
// Output height and width of `window` swept over an inHeight x inWidth input with a
// filterHeight x filterWidth filter: computeOutSize in each direction.
Status computeWindowOutSize(const Window2D& window, uint32_t inHeight, uint32_t inWidth, uint32_t filterHeight,
                            uint32_t filterWidth, uint32_t* outHeight, uint32_t* outWidth);

}  // namespace weft::nn
