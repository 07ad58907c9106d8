// Builds an NNAPI model of a Network through the C API, as any client application would.
// Every layer's output is also a model output, so a run can be checked layer by layer.
#pragma once

#include "Network.h"
#include "Nnapi.h"

namespace weft::tool {

// The model refers to the network's weight buffers: the network must outlive it.
ModelPtr buildModel(const Network& network);

}  // namespace weft::tool
