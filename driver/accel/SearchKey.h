// What the tiling search's result depends on, written down once: the key of a compilation
// cache's fingerprint (CompilationCache.h) for a whole model.
#pragma once

#include <string>
#include <vector>

#include "Lowering.h"
#include "MemoryPlan.h"
#include "Tiling.h"
#include "passes/CompileTarget.h"

namespace weft::accel {

// The fingerprint of what the tiling search depends on: the configuration and each layer's
// geometry, views and K chunks (never the weights' values, which the search does not read).
std::string searchFingerprint(const std::vector<LoweredOperation>& layers, const std::vector<LayerPlacement>& views,
                              const std::vector<std::vector<KChunk>>& chunks, const CompileTarget& target);

}  // namespace weft::accel
