#include "CommandCost.h"

#include "ElementType.h"
#include "weft/hw/vector_timing.h"

namespace weft::accel {
namespace {

struct Costing {
  const CostModel& cost;
  LoadPricing pricing;

  CommandCost operator()(const hw::LoadCmd& l) const {
    const uint64_t runs = uint64_t{l.count1} * l.count2;
    const bool merged = pricing == LoadPricing::kByFields
                            ? !l.pack && cost.merges(l.rowBytes, cost.rowSize(l.dst), l.stride0)
                            : pricing == LoadPricing::kMergedRuns;
    if (merged) {
      return cost.mergedLoad(runs, l.count0, l.rowBytes);
    }
    return cost.rowLoad(uint64_t{l.count0} * runs, l.rowBytes);
  }
  CommandCost operator()(const hw::StoreCmd& s) const {
    const uint64_t columns = uint64_t{s.tiles - 1} * cost.cols + s.rowBytes;
    return cost.store(uint64_t{s.count0} * s.count1, columns * hw::columnBytes(s.mode), s.tiles);
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

}  // namespace

CommandCost estimate(const CostModel& cost, const PlannedCommand& command) {
  return std::visit(Costing{cost, command.pricing}, command.cmd);
}

}  // namespace weft::accel
