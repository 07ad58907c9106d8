// SLICE and STRIDED_SLICE on the vector unit (StridedCopy.h): a box of the input copied out, as
// the in-projection of an exported attention block splits Q, K and V, or every stride-th element
// of it (Swin's patch merging takes x[:, 0::2, 1::2, :]). Quant8 asymmetric or signed, and with
// the fp16 datapath TENSOR_FLOAT16 (and relaxed TENSOR_FLOAT32), rank up to 4, constant begin and
// size (a size of -1: to the end, as NNAPI says), or constant begin, end, positive strides and
// masks (TensorFlow's, clamped as the reference kernel clamps them). The output keeps the
// input's quantization.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "Families.h"
#include "StridedCopy.h"

namespace weft::accel {

nn::Result<LoweredOperation> lowerSlice(const OperationReader& r, uint32_t index, bool /*withValues*/) {
  NN_TRY(checkCopiedOperands(r));
  const nn::Dimensions& dims = r.input(0).dimensions;
  const size_t rank = dims.size();
  auto begin = r.int32Tensor(1, "begin");
  if (!begin.ok()) return begin.error();
  auto size = r.int32Tensor(2, "size");
  if (!size.ok()) return size.error();
  if (begin->size() != rank || size->size() != rank) return r.fail("begin and size need {} values each", rank);
  const uint32_t valueBytes = bytesPerElement(r.valueType(r.input(0)));
  const std::vector<uint64_t> in = denseStrides(dims, valueBytes);
  nn::Dimensions outDims(rank);
  CopyBox box;
  for (size_t k = 0; k < rank; ++k) {
    const int64_t b = (*begin)[k], n = (*size)[k] == -1 ? int64_t{dims[k]} - b : (*size)[k];
    if (b < 0 || n <= 0 || b + n > dims[k]) return r.fail("dimension {}: begin {} size {} is not a box of {}", k, b, n, dims[k]);
    outDims[k] = static_cast<uint32_t>(n);
    box.inputOffset += static_cast<uint64_t>(b) * in[k];
  }
  const std::vector<uint64_t> out = denseStrides(outDims, valueBytes);
  for (size_t k = 0; k < rank; ++k) box.axes.push_back(CopyAxis{outDims[k], in[k], out[k]});
  return lowerToCopies(r, index, {std::move(box)}, outDims,
                       fmt::format("slice {} from ({}) size ({})", fmt::join(dims, "x"), fmt::join(*begin, ","),
                                   fmt::join(outDims, ",")));
}

nn::Result<LoweredOperation> lowerStridedSlice(const OperationReader& r, uint32_t index, bool /*withValues*/) {
  NN_TRY(checkCopiedOperands(r));
  const nn::Dimensions& dims = r.input(0).dimensions;
  const size_t rank = dims.size();
  auto begin = r.int32Tensor(1, "begin");
  if (!begin.ok()) return begin.error();
  auto end = r.int32Tensor(2, "end");
  if (!end.ok()) return end.error();
  auto strides = r.int32Tensor(3, "strides");
  if (!strides.ok()) return strides.error();
  if (begin->size() != rank || end->size() != rank || strides->size() != rank) {
    return r.fail("begin, end and strides need {} values each", rank);
  }
  auto beginMask = r.int32Param(4, "begin_mask");
  if (!beginMask.ok()) return beginMask.error();
  auto endMask = r.int32Param(5, "end_mask");
  if (!endMask.ok()) return endMask.error();
  auto shrinkMask = r.int32Param(6, "shrink_axis_mask");
  if (!shrinkMask.ok()) return shrinkMask.error();
  const uint32_t valueBytes = bytesPerElement(r.valueType(r.input(0)));
  const std::vector<uint64_t> in = denseStrides(dims, valueBytes);
  // TensorFlow's clamping for a positive stride (the reference kernel's): negative indexes count
  // from the end, the result within [0, dim].
  const auto clamp = [](int64_t i, int64_t dim) {
    if (i >= dim) return dim;
    i = std::clamp<int64_t>(i, -dim, dim);
    return (dim + i % dim) % dim;
  };
  nn::Dimensions counts(rank), outDims;
  CopyBox box;
  for (size_t d = 0; d < rank; ++d) {
    const int64_t dim = dims[d], stride = (*strides)[d];
    if (stride <= 0) return r.fail("dimension {}: stride {} (the accelerator copies forwards only)", d, stride);
    const int64_t first = (*beginMask & (1 << d)) != 0 ? 0 : clamp((*begin)[d], dim);
    const int64_t last = (*endMask & (1 << d)) != 0 ? dim : clamp((*end)[d], dim);
    int64_t count = std::max<int64_t>(0, (last - first + stride - 1) / stride);
    if ((*shrinkMask & (1 << d)) != 0) {
      if (last - first != 1) return r.fail("dimension {}: a shrunk axis must select one element", d);
      count = 1;
    } else {
      outDims.push_back(static_cast<uint32_t>(count));
    }
    if (count == 0) return r.fail("dimension {}: nothing selected (an empty output)", d);
    counts[d] = static_cast<uint32_t>(count);
    box.inputOffset += static_cast<uint64_t>(first) * in[d];
  }
  if (outDims.empty()) outDims.push_back(1);
  const std::vector<uint64_t> out = denseStrides(counts, valueBytes);
  for (size_t d = 0; d < rank; ++d) {
    box.axes.push_back(CopyAxis{counts[d], static_cast<uint64_t>((*strides)[d]) * in[d], out[d]});
  }
  return lowerToCopies(r, index, {std::move(box)}, outDims,
                       fmt::format("strided slice {} from ({}) by ({}) to {}", fmt::join(dims, "x"),
                                   fmt::join(*begin, ","), fmt::join(*strides, ","), fmt::join(outDims, "x")));
}

}  // namespace weft::accel
