// Pass 5, emission: each layer's commands, in program order, each layer closed by a snapshot
// BARRIER (per-operation timing), the last one raising the interrupt. An array layer's commands
// come from its tiling (CommandGenerator.h), after the copies that repack filters and biases
// given at execution (RuntimeOperands.h); a vector layer makes its own (VectorLayer.h).
//
// Input: LayoutPlan, ModelTilings, DramPlacement. Output: EmittedProgram, its commands in a
// ProgramBuilder that schedules them segment by segment as they come (pass 6 finishes it).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "../CommandScheduler.h"
#include "CompileTarget.h"
#include "PlaceInDram.h"
#include "SearchTilings.h"
#include "weft/nn/Result.h"

namespace weft::accel {

// What emission measured of one layer's commands, for costing (Costing.h).
struct EmittedLayer {
  size_t commands = 0;         // its commands, its closing barrier included
  double scheduledCycles = 0;  // its commands' estimated timeline, its closing barrier included
  // False when no barrier closes it: it and the next layer are products of one BATCH_MATMUL, on
  // the array, independent of each other, so the next one's loads and GEMMs overlap its tail
  // (a barrier between them drained the array and the DMA a product at a time: 12 heads of
  // BERT's Q.K^T lost a quarter of the array to it). The scheduler orders their shared buffers.
  bool snapshotAfter = true;
  // The choices its emission made where the tensors lie (CommandSink::note), "" if none.
  std::string choices;
};

struct EmittedProgram {
  std::unique_ptr<ProgramBuilder> program;
  std::vector<EmittedLayer> layers;  // per layer of the plan
  // The position in the plan's layers of the first layer reading / the one writing each tensor.
  std::map<uint32_t, size_t> firstReader, producer;
};

// BAD_DATA when a command field cannot hold what a layer needs; MISSED_DEADLINE_PERSISTENT when
// the deadline passes between layers.
nn::Result<EmittedProgram> emitProgram(const LayoutPlan& plan, const ModelTilings& tilings,
                                       const DramPlacement& dram, const CompileTarget& target);

}  // namespace weft::accel
