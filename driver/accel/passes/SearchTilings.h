// Pass 3, the tiling search: each array layer's tiling (TilingSearch.h), or the one a
// compilation cache names (CompilationCache.h) when the cache was made for these layers.
//
// Input: LayoutPlan. Output: ModelTilings. Reads no address: the views are taken as if every
// tensor lay at address 0, so this runs before DRAM is placed and without the device's lock.
#pragma once

#include <optional>
#include <vector>

#include "../CompilationCache.h"
#include "../MemoryPlan.h"
#include "../Tiling.h"
#include "CompileTarget.h"
#include "weft/nn/Result.h"

namespace weft::accel {

struct ModelTilings {
  // Per layer of the plan (a vector layer's entries empty): the views at address 0 the search
  // read, its K chunks, and its tiling.
  std::vector<LayerPlacement> views;
  std::vector<std::vector<KChunk>> chunks;
  std::vector<std::optional<TilePlan>> plans;
  TilingChoices choices;   // what a compilation cache keeps of them
  bool fromCache = false;  // every layer's tiling was replayed rather than searched for
};

nn::Result<ModelTilings> searchTilings(const LayoutPlan& plan, const CompileTarget& target,
                                       const TilingChoices* replay);

}  // namespace weft::accel
