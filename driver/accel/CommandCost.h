// Costing: what one command costs, from the command itself. Emission (CommandGenerator,
// VectorTiles) says what a command is and which buffers it uses; the scheduler and the tiling
// search's estimator cost each command as it reaches them (CommandScheduler.h), from the fields
// the hardware reads:
// - LOAD: count0 x count1 x count2 rows of row_bytes. The load unit merges the rows of each i0
//   run (count0 rows) into large requests when row_bytes is the destination's row size,
//   stride0 == row_bytes, the row is whole beats and at most 1024 bytes, and the load is not
//   packed (rtl/README.md "Load unit"); otherwise a request a row.
// - STORE: count0 x count1 rows of `tiles` column tiles, each column the mode's bytes
//   (hw::columnBytes): (tiles - 1) x Cols + row_bytes columns a row.
// - GEMM: m_rows x m_groups rows a step, k_steps steps, each step's weights preloaded unless
//   keep_weights (CostModel::gemmBusyCycles, gemmDoneCycles).
// - WINDOW, ELTWISE, SOFTMAX, LAYER_NORM: the vector unit's closed-form schedule (hw::vectorSchedule).
// - BARRIER: nothing; the scheduler accounts for its drain.
#pragma once

#include <variant>

#include "CostModel.h"
#include "PlannedCommand.h"
#include "weft/hw/vector_timing.h"

namespace weft::accel {
namespace costing {

struct Costing {
  const CostModel& cost;
  LoadPricing pricing;

  CommandCost operator()(const hw::LoadCmd& l) const {
    const uint64_t runs = uint64_t{l.count1} * l.count2;
    const bool merged = pricing == LoadPricing::kByFields
                            ? !l.pack && cost.merges(l.rowBytes, cost.rowSize(l.dst), l.stride0)
                            : pricing == LoadPricing::kMergedRuns;
    if (merged) {
      // Its requests are the runs: a run's rows merged, count1 x count2 of them.
      const RequestWalk runWalk{l.dramAddr, uint64_t{l.count0} * l.rowBytes, l.count1, l.stride1, l.count2, l.stride2};
      CommandCost c = cost.mergedLoad(runs, l.count0, l.rowBytes, l.count1 > 1 ? l.stride1 : l.stride2, l.dramAddr, &runWalk);
      c.requests = static_cast<double>(runs);
      return c;
    }
    // The stride between consecutive requests, for the DRAM rows they open.
    const uint64_t stride = l.count0 > 1 ? l.stride0 : l.count1 > 1 ? l.stride1 : l.stride2;
    const RequestWalk walk{l.dramAddr, l.rowBytes, l.count0, l.stride0, l.count1, l.stride1, l.count2, l.stride2};
    CommandCost c = cost.rowLoad(uint64_t{l.count0} * runs, l.rowBytes, stride, l.dramAddr, &walk);
    c.requests = static_cast<double>(uint64_t{l.count0} * runs);
    return c;
  }
  CommandCost operator()(const hw::StoreCmd& s) const {
    const uint64_t columns = uint64_t{s.tiles - 1} * cost.cols + s.rowBytes;
    const uint64_t bytes = columns * hw::columnBytes(s.mode);
    const RequestWalk walk{s.dramAddr, bytes, s.count0, s.stride0, s.count1, s.stride1};
    return cost.store(uint64_t{s.count0} * s.count1, bytes, s.tiles, s.count0 > 1 ? s.stride0 : s.stride1,
                      s.dramAddr, &walk);
  }
  CommandCost operator()(const hw::GemmCmd& g) const {
    return cost.gemm(uint64_t{g.mRows} * g.mGroups, g.kRows, g.kSteps, g.keepWeights);
  }
  CommandCost operator()(const hw::BarrierCmd&) const { return {}; }
  template <typename Vector>
  CommandCost operator()(const Vector& v) const {
    const double cycles = static_cast<double>(hw::vectorSchedule(v.encode()).done + 1);
    return {cycles, cycles, 0};
  }
};

}  // namespace costing

// A command's cost; the whole of it is derived from the command and the hardware's parameters.
// Inline into its callers, the array's commands tested first: the tiling search costs millions of
// commands a layer, and a call and a std::visit a command cost more than the arithmetic. Compiling
// ResNet-50's table at weft16 (callgrind): 1.387 G instructions with the command generator's
// inline estimates, 1.404 G costing through a call, 1.374 G so.
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
inline CommandCost estimate(const CostModel& cost, const PlannedCommand& command) {
  const costing::Costing costOf{cost, command.pricing};
  if (const auto* g = std::get_if<hw::GemmCmd>(&command.cmd)) return costOf(*g);
  if (const auto* l = std::get_if<hw::LoadCmd>(&command.cmd)) return costOf(*l);
  if (const auto* s = std::get_if<hw::StoreCmd>(&command.cmd)) return costOf(*s);
  return std::visit(costOf, command.cmd);
}

}  // namespace weft::accel
