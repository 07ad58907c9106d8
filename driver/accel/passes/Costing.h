// Costing: what each operation of the program is worth and is estimated to take, apart from
// generating its commands. The figures the per-operation profile measures against (Profiling.h):
// useful operations, the unit's peak rate of them, the estimated cycles and the command count.
//
// Input: LayoutPlan, ModelTilings and what emission measured (EmittedProgram). Output: a
// CompiledOperation per layer, in program order.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "../MemoryPlan.h"
#include "EmitProgram.h"
#include "SearchTilings.h"
#include "weft/hw/config.h"
#include "weft/nn/Types.h"

namespace weft::accel {

struct CompiledOperation {
  uint32_t operationIndex = 0;
  nn::OperationType type = nn::OperationType::CONV_2D;
  hw::Unit unit = hw::Unit::kCompute;  // the array (kCompute) or the vector unit (kVector)
  uint64_t macs = 0;  // the array: MACs; the vector unit: lane operations (VectorLayer::laneOps)
  // The unit's peak rate of `macs`: Rows x Cols on the array (Rows/2 x Cols for an fp16 layer,
  // whose values take two lanes each), Cols on the vector unit (Cols/2 for a binary16 layer).
  uint64_t peakOpsPerCycle = 0;
  uint64_t commands = 0;
  // The array: the tiling's scheduled estimate plus the busy cycles of any repacking copies;
  // the vector unit: its commands' busy cycles.
  double estimatedCycles = 0;
  std::string tiling;  // TilePlan::describe() or VectorLayer::describe()
  // Whether a snapshot barrier closes it. Not for a BATCH_MATMUL product followed by the next
  // product (EmitProgram.h): the two overlap, and the last product's snapshot closes them all,
  // which the profile reports as the last product's figures.
  bool snapshotAfter = true;
};

std::vector<CompiledOperation> costOperations(const LayoutPlan& plan, const ModelTilings& tilings,
                                              const EmittedProgram& emitted, const hw::HwConfig& config);

}  // namespace weft::accel
