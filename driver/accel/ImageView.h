// How the accelerator's layers see a tensor in DRAM: the order an operation indexes it in, and
// the strides of the NHWC bytes it is kept as.
#pragma once

#include <cstdint>

namespace weft::accel {

// How an operation indexes its input and output tensors: as dense bytes (kFlat), as an NHWC or
// NCHW image, or element by element in whatever order its other kAny tensors share (an
// element-wise operation on same-shaped tensors works on NCHW images as on NHWC ones).
enum class DataLayout { kFlat, kNHWC, kNCHW, kAny };

// How a layer addresses an image in DRAM: pixel (b, y, x), channel c of the interior is at
// origin + b*imageStride + y*rowStride + x*pixelStride + c (y and x may reach into the halo).
struct ImageView {
  uint64_t origin = 0;
  uint64_t pixelStride = 0, rowStride = 0, imageStride = 0;
};

}  // namespace weft::accel
