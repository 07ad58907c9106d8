// NCHW support for the 4-D image operations. Kernels are written once for NHWC; an NCHW operand
// is transposed into a scratch NHWC copy on the way in and back on the way out (as NNAPI's own
// reference does), so no kernel carries two index formulas.
//
//   NhwcInput<T> in(context->getInputBuffer<T>(0), context->getInputShape(0), useNchw);
//   NhwcOutput<T> out(context->getOutputBuffer<T>(0), context->getOutputShape(0), useNchw);
//   kernel(in.data(), in.shape(), out.data(), out.shape());
//   out.commit();  // writes back to NCHW when needed
#pragma once

#include <vector>

#include "weft/kernels/OperationResolver.h"
#include "weft/nn/Types.h"

namespace weft::nn {

// Dimensions [N, C, H, W] -> [N, H, W, C] (and back). Rank-4 only; others are returned unchanged.
Dimensions nchwToNhwcDims(const Dimensions& nchw);
Dimensions nhwcToNchwDims(const Dimensions& nhwc);

template <typename T>
void transposeNchwToNhwc(const T* in, const Dimensions& nchw, T* out) {
  const size_t n = nchw[0], c = nchw[1], h = nchw[2], w = nchw[3];
  for (size_t b = 0; b < n; ++b)
    for (size_t ch = 0; ch < c; ++ch)
      for (size_t y = 0; y < h; ++y)
        for (size_t x = 0; x < w; ++x) out[((b * h + y) * w + x) * c + ch] = in[((b * c + ch) * h + y) * w + x];
}

template <typename T>
void transposeNhwcToNchw(const T* in, const Dimensions& nhwc, T* out) {
  const size_t n = nhwc[0], h = nhwc[1], w = nhwc[2], c = nhwc[3];
  for (size_t b = 0; b < n; ++b)
    for (size_t y = 0; y < h; ++y)
      for (size_t x = 0; x < w; ++x)
        for (size_t ch = 0; ch < c; ++ch) out[((b * c + ch) * h + y) * w + x] = in[((b * h + y) * w + x) * c + ch];
}

// Shape with NCHW dimensions reordered to NHWC (quantization unchanged).
inline Shape toNhwcShape(const Shape& shape, bool useNchw) {
  Shape s = shape;
  if (useNchw) s.dimensions = nchwToNhwcDims(shape.dimensions);
  return s;
}

// Sets output `index` of a 4-D image operation to the NHWC dimensions `nhwc`, reordered to NCHW
// when the operation uses that layout (type and quantization as declared).
Status setNhwcOutputShape(IOperationExecutionContext* context, uint32_t index, const Dimensions& nhwc, bool useNchw);

template <typename T>
class NhwcInput {
 public:
  NhwcInput(const T* data, const Shape& shape, bool useNchw) : shape_(toNhwcShape(shape, useNchw)), data_(data) {
    if (useNchw && shape.dimensions.size() == 4) {
      scratch_.resize(numberOfElements(shape.dimensions));
      if (!scratch_.empty()) transposeNchwToNhwc(data, shape.dimensions, scratch_.data());
      data_ = scratch_.data();
    }
  }
  const T* data() const { return data_; }
  const Shape& shape() const { return shape_; }

 private:
  Shape shape_;
  const T* data_;
  std::vector<T> scratch_;
};

template <typename T>
class NhwcOutput {
 public:
  NhwcOutput(T* data, const Shape& shape, bool useNchw)
      : shape_(toNhwcShape(shape, useNchw)), data_(data), target_(data), useNchw_(useNchw && shape.dimensions.size() == 4) {
    if (useNchw_) {
      scratch_.resize(numberOfElements(shape.dimensions));
      data_ = scratch_.data();
    }
  }
  T* data() { return data_; }
  const Shape& shape() const { return shape_; }
  // Writes the NHWC result into the NCHW output buffer (no-op for NHWC).
  void commit() {
    if (useNchw_ && !scratch_.empty()) transposeNhwcToNchw(scratch_.data(), shape_.dimensions, target_);
  }

 private:
  Shape shape_;
  T* data_;
  T* target_;
  bool useNchw_;
  std::vector<T> scratch_;
};

}  // namespace weft::nn
