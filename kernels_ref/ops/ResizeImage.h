// RESIZE_BILINEAR and RESIZE_NEAREST_NEIGHBOR share their signature and shape inference: a 4-D
// image, the output width and height (INT32) or scale factors (FLOAT32 / FLOAT16 with the tensor's
// float type), then optional BOOL flags: NCHW layout, align_corners, half_pixel_centers. Each
// operation's file (ResizeBilinear.cpp, ResizeNearestNeighbor.cpp) registers it with its kind.
#pragma once

#include "weft/kernels/OperationResolver.h"

namespace weft::nn::resize_image {

enum class Kind { BILINEAR, NEAREST_NEIGHBOR };

Status validate(const IOperationValidationContext* context, Kind kind);
Status prepare(IOperationExecutionContext* context);
Status execute(IOperationExecutionContext* context, Kind kind);

}  // namespace weft::nn::resize_image
