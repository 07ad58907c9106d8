// TRANSPOSE on the vector unit (StridedCopy.h): quant8 asymmetric or signed, and with the fp16
// datapath TENSOR_FLOAT16 (and relaxed TENSOR_FLOAT32, binary16 on the device), rank up to 4, a
// constant permutation (omitted: the axes reversed, as NNAPI says). The output keeps the input's
// quantization (NNAPI requires it), so the copy moves bytes unchanged.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "../ModelAccess.h"
#include "Families.h"
#include "StridedCopy.h"

namespace weft::accel {

nn::Result<LoweredOperation> lowerTranspose(const OperationReader& r, uint32_t index, bool /*withValues*/) {
  NN_TRY(checkCopiedOperands(r));
  const nn::Dimensions& dims = r.input(0).dimensions;
  const size_t rank = dims.size();
  std::vector<uint32_t> perm(rank);
  if (isOmitted(r.input(1))) {
    for (size_t k = 0; k < rank; ++k) perm[k] = static_cast<uint32_t>(rank - 1 - k);
  } else {
    auto values = r.int32Tensor(1, "the permutation");
    if (!values.ok()) return values.error();
    if (values->size() != rank) return r.fail("the permutation has {} values for rank {}", values->size(), rank);
    std::vector<bool> seen(rank);
    for (size_t k = 0; k < rank; ++k) {
      const int32_t p = (*values)[k];
      if (p < 0 || static_cast<size_t>(p) >= rank || seen[p]) return r.fail("the permutation is not one of {} axes", rank);
      seen[p] = true;
      perm[k] = static_cast<uint32_t>(p);
    }
  }
  nn::Dimensions outDims(rank);
  for (size_t k = 0; k < rank; ++k) outDims[k] = dims[perm[k]];
  const uint32_t valueBytes = bytesPerElement(r.valueType(r.input(0)));
  return lowerToCopies(r, index, {permutedBox(dims, perm, valueBytes)}, std::move(outDims),
                       fmt::format("transpose {} perm ({})", fmt::join(dims, "x"), fmt::join(perm, ",")));
}

}  // namespace weft::accel
