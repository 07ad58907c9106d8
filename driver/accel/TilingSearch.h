// The tiling search: one GEMM layer -> the tiling its program runs with.
//
// rankTilings() (Tiling.h) ranks the candidates that fit by an analytic estimate; the search
// then schedules them (ScheduleEstimator: the timeline sees the in-order units and buffer reuse
// the estimate does not) in two rounds, and keeps the one whose timeline is shortest, or, with a
// preference's slack, the leanest on DRAM traffic among the practically fastest. Its tuning
// lives in TilingPolicy.h. Choices are remembered per process (TilingMemo.h), and a compilation
// cache (CompilationCache.h) may name the candidate to take instead of searching.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "CommandGenerator.h"
#include "CompileOptions.h"
#include "GemmLayer.h"
#include "Tiling.h"
#include "TilingPolicy.h"
#include "weft/hw/config.h"
#include "weft/nn/Result.h"

namespace weft::accel {

// What the search reads of a layer: its geometry, its K chunks and the views of its tensors
// (as if every tensor lay at address 0: the cost model sees request sizes, strides and offsets
// within a tensor, which fall within a DRAM transaction as they will on the device, since every
// region starts on kRegionAlignment).
struct TilingProblem {
  const GemmLayer& layer;
  const std::vector<KChunk>& chunks;
  const LayerPlacement& where;
  const hw::HwConfig& config;
  // The layer is a product of a BATCH_MATMUL that the next product follows without a barrier
  // (productsOverlap): a candidate whose plan lets them overlap is scheduled as two products in a
  // row, the second keeping the parameter rows and taking the other half of the weight
  // scratchpad where the weights fit twice, and ranked by the time a product then takes.
  bool overlapsNext = false;
};

struct TilingChoice {
  // An index into rankTilings()'s list, or that count plus i for candidate i with ramped ends
  // (rampedPlan): what a compilation cache records.
  uint32_t candidate = 0;
  TilePlan plan;  // that candidate, with its scheduled estimate
};

// The layer's tiling. `replay` (from a compilation cache) names the candidate to take: it is
// scheduled alone; an index that names no candidate is searched for as without one. OP_FAILED
// when no tiling fits the configuration's memories, MISSED_DEADLINE_PERSISTENT when
// options.deadline passes between candidates.
nn::Result<TilingChoice> searchTiling(const TilingProblem& problem, const TilingPolicy& policy,
                                      const CompileOptions& options, std::optional<uint32_t> replay);

}  // namespace weft::accel
