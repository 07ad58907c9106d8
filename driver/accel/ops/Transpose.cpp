// TRANSPOSE and CHANNEL_SHUFFLE on the vector unit (StridedCopy.h): quant8 asymmetric or signed,
// and with the fp16 datapath TENSOR_FLOAT16 (and relaxed TENSOR_FLOAT32, binary16 on the device),
// rank up to 4. TRANSPOSE: a constant permutation (omitted: the axes reversed, as NNAPI says).
// CHANNEL_SHUFFLE: constant groups and axis; the axis seen as [groups, C / groups] is transposed
// (ShuffleNet's channel shuffle). The output keeps the input's quantization (NNAPI requires it),
// so the copy moves bytes unchanged.
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

nn::Result<LoweredOperation> lowerChannelShuffle(const OperationReader& r, uint32_t index, bool /*withValues*/) {
  NN_TRY(checkCopiedOperands(r));
  const nn::Dimensions& dims = r.input(0).dimensions;
  const auto rank = static_cast<int32_t>(dims.size());
  auto groups = r.int32Param(1, "num_groups");
  if (!groups.ok()) return groups.error();
  auto axisValue = r.int32Param(2, "axis");
  if (!axisValue.ok()) return axisValue.error();
  int32_t axis = *axisValue;
  if (axis < -rank || axis >= rank) return r.fail("axis {} is out of range for rank {}", axis, rank);
  if (axis < 0) axis += rank;
  const uint32_t channels = dims[static_cast<size_t>(axis)];
  if (*groups <= 0 || channels % static_cast<uint32_t>(*groups) != 0) {
    return r.fail("{} channels do not split into {} groups", channels, *groups);
  }
  // The axis as [groups, C / groups], those two axes swapped: output channel j * groups + g is
  // input channel g * (C / groups) + j.
  std::vector<uint32_t> view, perm;
  for (int32_t k = 0; k < rank; ++k) {
    if (k == axis) {
      view.push_back(static_cast<uint32_t>(*groups));
      view.push_back(channels / static_cast<uint32_t>(*groups));
    } else {
      view.push_back(dims[static_cast<size_t>(k)]);
    }
  }
  for (uint32_t k = 0; k < view.size(); ++k) perm.push_back(k);
  std::swap(perm[static_cast<size_t>(axis)], perm[static_cast<size_t>(axis) + 1]);
  const uint32_t valueBytes = bytesPerElement(r.valueType(r.input(0)));
  return lowerToCopies(r, index, {permutedBox(view, perm, valueBytes)}, dims,
                       fmt::format("channel shuffle {} in {} groups along axis {}", fmt::join(dims, "x"), *groups, axis));
}

}  // namespace weft::accel
