// Where NNAPI's image resizes sample their input, as TFLite's reference kernels compute it
// (kernels_ref/ops/ResizeImage.cpp). Public so that a device copying pixels for
// RESIZE_NEAREST_NEIGHBOR (the accelerator's strided copies) reads exactly the pixels the
// reference reads, float rounding included, and one interpolating for RESIZE_BILINEAR (the
// accelerator's windows) with exactly its weights.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace weft::nn::resize_image {

// Input units per output unit along one axis (TFLite's scale).
float resizeScale(uint32_t inSize, uint32_t outSize, bool alignCorners);

// The input index RESIZE_NEAREST_NEIGHBOR reads for output index `i` along an axis of `inSize`
// input units scaled by `scale` (resizeScale): rounded with align_corners, floored otherwise,
// sampled at pixel centres with half_pixel_centers, clamped into the input.
uint32_t nearestSource(uint32_t i, float scale, uint32_t inSize, bool alignCorners, bool halfPixelCenters);

// Where RESIZE_BILINEAR samples output index `i` along an axis: `position` in input units, the
// input indexes below and above it clamped into the input, and the fraction of the way from
// `lower` to `upper` (position - lower: negative before the first pixel's centre, where both
// indexes are 0).
struct BilinearSample {
  float position;
  int32_t lower, upper;
  float fraction;
};
BilinearSample bilinearSample(uint32_t i, float scale, uint32_t inSize, bool halfPixelCenters);

// RESIZE_BILINEAR's sampled positions along one axis in sixteenths of an input pixel (16 x
// bilinearSample's position, before clamping), where every one is a whole sixteenth; otherwise
// nothing. Then the reference's 8-bit arithmetic is exact in float (a byte times two weights in
// sixteenths has at most 20 significant bits, four such terms sum exactly, and + 0.5 too), so
// integer lanes that weigh the same pixels compute the very value it rounds. Whole up- and
// downscales by 1, 2, 4 and 8 with half-pixel centres (PyTorch's align_corners=False), and by
// powers of two up to 16 without, land on sixteenths; so does any scale whose positions do.
std::optional<std::vector<int32_t>> bilinearSixteenths(uint32_t inSize, uint32_t outSize, bool alignCorners,
                                                       bool halfPixelCenters);

}  // namespace weft::nn::resize_image
