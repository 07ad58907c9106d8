// Where NNAPI's image resizes sample their input, as TFLite's reference kernels compute it
// (kernels_ref/ops/ResizeImage.cpp). Public so that a device copying pixels for
// RESIZE_NEAREST_NEIGHBOR (the accelerator's strided copies) reads exactly the pixels the
// reference reads, float rounding included.
#pragma once

#include <cstdint>

namespace weft::nn::resize_image {

// Input units per output unit along one axis (TFLite's scale).
float resizeScale(uint32_t inSize, uint32_t outSize, bool alignCorners);

// The input index RESIZE_NEAREST_NEIGHBOR reads for output index `i` along an axis of `inSize`
// input units scaled by `scale` (resizeScale): rounded with align_corners, floored otherwise,
// sampled at pixel centres with half_pixel_centers, clamped into the input.
uint32_t nearestSource(uint32_t i, float scale, uint32_t inSize, bool alignCorners, bool halfPixelCenters);

}  // namespace weft::nn::resize_image
