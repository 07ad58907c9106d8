// The scalar parameters of the convolution family (CONV_2D, DEPTHWISE_CONV_2D, GROUPED_CONV_2D):
// after input, filter and bias come either explicit paddings (left, right, top, bottom) or an
// implicit padding scheme, then stride width/height, `extra` operation-specific INT32 inputs
// (depth multiplier, number of groups), the fused activation, and optionally the NCHW layout flag
// and the dilation factors.
#pragma once

#include <cstdint>
#include <vector>

#include "weft/kernels/OperationResolver.h"
#include "weft/kernels/OperationUtils.h"

namespace weft::nn {

struct ConvParams {
  Window2D window;  // explicit paddings (implicit schemes resolved), strides, dilations
  FusedActivationFunc activation = FusedActivationFunc::NONE;
  bool useNchw = false;
  std::vector<int32_t> extra;  // the operation-specific inputs, in order
};

// Index of input `name` for a convolution with `extra` operation-specific inputs.
struct ConvInputLayout {
  bool explicitPadding = false;
  uint32_t firstExtra = 0;  // index of the first operation-specific input
  uint32_t activation = 0;
  uint32_t layout = 0;
  uint32_t dilationWidth = 0;
};
ConvInputLayout convInputLayout(uint32_t numInputs, bool input7PlusExtraIsInt32, uint32_t extra);

// Checks counts and types of the scalar inputs and, when constant, their values.
// `maxInputs`: the signature's largest input count with dilation (13 + extra explicit).
Status validateConvParams(const IOperationValidationContext* context, uint32_t extra, bool allowDilation);

// Reads the parameters; filter and input sizes (NHWC) resolve an implicit padding scheme.
Result<ConvParams> readConvParams(const IOperationExecutionContext* context, uint32_t extra, uint32_t inputHeight,
                                  uint32_t inputWidth, uint32_t filterHeight, uint32_t filterWidth);
// True when input `index` holds the NCHW layout flag (so input shapes can be read before the rest).
bool convUsesNchw(const IOperationExecutionContext* context, uint32_t extra);

}  // namespace weft::nn
