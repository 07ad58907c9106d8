// What RESIZE_NEAREST_NEIGHBOR and RESIZE_BILINEAR share: a 4-D image, the output's size (or
// scales), and the layout, align_corners and half_pixel_centers flags (ops/Resize.cpp reads them
// as the reference kernel's prepare() does).
#pragma once

#include <cstddef>
#include <cstdint>

#include "OperationReader.h"

namespace weft::accel {

struct ResizeOperands {
  bool nchw = false, alignCorners = false, halfPixel = false;
  size_t hAxis = 1, wAxis = 2;  // of the input's and output's dimensions
  uint32_t inH = 1, inW = 1, outH = 1, outW = 1;
  nn::Dimensions outDims;
};

nn::Result<ResizeOperands> readResizeOperands(const OperationReader& r);

}  // namespace weft::accel
