// GATHER with constant indices on the vector unit (StridedCopy.h): the slices of the input along
// the axis that the indices name, copied in the indices' order (a vision transformer's class
// token, an embedding row per token of a fixed prompt). Quant8 asymmetric or signed, and with the
// fp16 datapath TENSOR_FLOAT16 (and relaxed TENSOR_FLOAT32), input rank 1 to 4; a run of
// consecutive indices is one box. The output keeps the input's quantization.
#include <fmt/format.h>

#include "Families.h"
#include "StridedCopy.h"

namespace weft::accel {
namespace {

// More boxes than this and the program is mostly copy set-up: the CPU does better.
constexpr size_t kMaxRuns = 4096;

}  // namespace

nn::Result<LoweredOperation> lowerGather(const OperationReader& r, uint32_t index, bool /*withValues*/) {
  NN_TRY(checkCopiedOperands(r));
  const nn::Dimensions& dims = r.input(0).dimensions;
  const auto rank = static_cast<int32_t>(dims.size());
  auto axisValue = r.int32Param(1, "axis");
  if (!axisValue.ok()) return axisValue.error();
  int32_t axis = *axisValue;
  if (axis < -rank || axis >= rank) return r.fail("axis {} is out of range for rank {}", axis, rank);
  if (axis < 0) axis += rank;
  auto indices = r.int32Tensor(2, "the indices");
  if (!indices.ok()) return indices.error();
  const nn::Dimensions& indexDims = r.input(2).dimensions;
  if (indices->empty()) return r.fail("no indices");
  const uint32_t size = dims[axis];
  for (int32_t i : *indices) {
    if (i < 0 || static_cast<uint32_t>(i) >= size) return r.fail("index {} is outside [0, {})", i, size);
  }
  const uint32_t valueBytes = bytesPerElement(r.valueType(r.input(0)));
  uint64_t outer = 1, inner = valueBytes;
  for (int32_t d = 0; d < axis; ++d) outer *= dims[d];
  for (int32_t d = axis + 1; d < rank; ++d) inner *= dims[d];
  const uint64_t n = indices->size();
  std::vector<CopyBox> boxes;
  for (size_t j = 0; j < n;) {
    size_t run = 1;
    while (j + run < n && (*indices)[j + run] == (*indices)[j] + static_cast<int32_t>(run)) ++run;
    CopyBox box;
    box.inputOffset = static_cast<uint64_t>((*indices)[j]) * inner;
    box.outputOffset = j * inner;
    box.axes = {CopyAxis{outer, size * inner, n * inner}, CopyAxis{run, inner, inner},
                CopyAxis{inner / valueBytes, valueBytes, valueBytes}};
    boxes.push_back(std::move(box));
    if (boxes.size() > kMaxRuns) return r.fail("the indices make more than {} runs", kMaxRuns);
    j += run;
  }
  nn::Dimensions outDims(dims.begin(), dims.begin() + axis);
  outDims.insert(outDims.end(), indexDims.begin(), indexDims.end());
  outDims.insert(outDims.end(), dims.begin() + axis + 1, dims.end());
  if (outDims.size() > 4) return r.fail("the output's rank {} is above 4", outDims.size());
  const size_t runs = boxes.size();
  return lowerToCopies(r, index, std::move(boxes), std::move(outDims),
                       fmt::format("gather {} of axis {} ({} runs)", n, axis, runs));
}

}  // namespace weft::accel
