// A permutation of a dense tensor's axes on the vector unit: TRANSPOSE (the head split and merge
// of attention) and BATCH_MATMUL's adj_x. A copy through the scratchpad (ELTWISE kind copy) whose
// reads are strided and whose writes are dense.
//
// The output's axes are cut into at most three pixel axes and a channel run: output axes of
// size 1 are dropped, and consecutive output axes that are consecutive in the input too are one
// axis. When the innermost output axis is also innermost in the input (attention's
// [B, S, H, D] -> [B, H, S, D]), its values are the channels and move a scratchpad row of Cols
// bytes at a time; when it is not (a matrix transpose), each value is a pixel of its own bytes,
// a scratchpad row per value, since no unit moves bytes across lanes.
#pragma once

#include <memory>
#include <vector>

#include "../VectorLayer.h"

namespace weft::accel {

// out = in with its axes permuted: output axis k is input axis perm[k]. `dims` are the input's
// (rank 1 to 4), `valueBytes` the bytes of one value (2: binary16, moved whole). The caller sets
// the layer's operation, tensors (as flat bytes) and value type.
std::shared_ptr<VectorLayer> permuteLayer(const std::vector<uint32_t>& dims, const std::vector<uint32_t>& perm,
                                          uint32_t valueBytes);

}  // namespace weft::accel
