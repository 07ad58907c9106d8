// What the tiling search's result depends on, written down once. The process's memo of choices
// (TilingMemo.h) keys a layer by layerKey() + contextKey(); a compilation cache's fingerprint
// (CompilationCache.h) hashes contextKey() and every layer's layerKey(). So whatever the search
// reads (geometry, data types and zero points, operands given at execution, K chunks, views,
// the hardware, the policy and options) is in both, and neither can miss what the other sees.
// Weights' values are in neither: the search never reads them.
#pragma once

#include <string>
#include <vector>

#include "Lowering.h"
#include "MemoryPlan.h"
#include "Tiling.h"
#include "TilingSearch.h"
#include "passes/CompileTarget.h"

namespace weft::accel {

// One array layer's part: everything of the problem the search reads.
std::string layerKey(const TilingProblem& problem);

// The rest: the hardware configuration, the tiling policy and the options that steer the search.
std::string contextKey(const hw::HwConfig& config, const TilingPolicy& policy, const CompileOptions& options);

// The fingerprint of a whole model's search: the context and each layer's key (a vector layer,
// tiled without a search, by its identity). `views` and `chunks` are the array layers' (as
// SearchTilings gives them).
std::string searchFingerprint(const std::vector<LoweredLayer>& layers, const std::vector<LayerPlacement>& views,
                              const std::vector<std::vector<KChunk>>& chunks, const CompileTarget& target);

}  // namespace weft::accel
