// The structural rules of an NNAPI graph, checked when a model is finished: each operand is
// written by at most one operation; operations write only temporaries and model outputs; every
// temporary and model output is written; the graph has no cycle.
#pragma once

#include <vector>

#include "weft/nn/Result.h"
#include "weft/nn/Types.h"

namespace weft::runtime {

// The operations of `subgraph` (indexes in the order they were added) in an order in which each
// runs after the operations that produce its inputs. Among ready operations the one added first
// runs first, so a model built in execution order keeps its order. BAD_DATA when a rule above
// is broken.
nn::Result<std::vector<uint32_t>> sortIntoRunOrder(const nn::Subgraph& subgraph);

}  // namespace weft::runtime
