// SLICE on the vector unit (StridedCopy.h): a box of the input copied out, as the in-projection
// of an exported attention block splits Q, K and V. Quant8 asymmetric or signed, and with the
// fp16 datapath TENSOR_FLOAT16 (and relaxed TENSOR_FLOAT32), rank up to 4, constant begin and
// size (a size of -1: to the end, as NNAPI says). The output keeps the input's quantization.
#include <fmt/format.h>
#include <fmt/ranges.h>

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

}  // namespace weft::accel
