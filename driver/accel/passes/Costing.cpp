#include "Costing.h"

namespace weft::accel {
namespace {

CompiledOperation costOf(const VectorLayer& layer, const EmittedLayer& measured, const hw::HwConfig& config) {
  CompiledOperation op;
  op.macs = layer.laneOps();
  op.peakOpsPerCycle = config.cols() / layer.valueBytes();  // a binary16 value takes two lanes
  op.unit = hw::Unit::kVector;
  op.tiling = layer.describe();
  // The scheduled timeline of its commands: their busy cycles one after the other overstated a
  // pooling layer, whose loads, WINDOWs and STOREs overlap, by up to 2.2x.
  op.estimatedCycles = measured.scheduledCycles;
  return op;
}

CompiledOperation costOf(const GemmLayer& layer, const TilePlan& tp, const EmittedLayer& measured,
                         const hw::HwConfig& config) {
  CompiledOperation op;
  op.macs = layer.macs();
  op.peakOpsPerCycle = uint64_t{config.rows() / layer.inputValueBytes()} * config.cols();
  op.unit = hw::Unit::kCompute;
  // The placed program's schedule, as for vector layers: the search's estimate of the plan
  // (which it ranked by) sees one layer alone, its tensors at address 0, so it misses what the
  // program holds: the runtime-filter repack's copies overlapping the loads, and the products of
  // one BATCH_MATMUL overlapping each other (no barrier between them: the next product's weights
  // load during this one's GEMMs), which it overstated by 13-31 % on the bundled transformers'
  // attention at weft16; with a cycle-level DRAM, each request priced where its tensor lies
  // (CostModel::placed). Products' costs land on the batch's last layer, whose barrier closes
  // their segment.
  op.estimatedCycles = measured.scheduledCycles;
  op.tiling = tp.describe();
  return op;
}

}  // namespace

std::vector<CompiledOperation> costOperations(const LayoutPlan& plan, const ModelTilings& tilings,
                                              const EmittedProgram& emitted, const hw::HwConfig& config) {
  std::vector<CompiledOperation> ops;
  for (size_t l = 0; l < plan.layers.size(); ++l) {
    const LoweredLayer& lo = plan.layers[l];
    const EmittedLayer& measured = emitted.layers[l];
    CompiledOperation op =
        lo.visit(Overloaded{[&](const GemmLayer& g) { return costOf(g, *tilings.plans[l], measured, config); },
                            [&](const VectorLayer& v) { return costOf(v, measured, config); }});
    op.operationIndex = lo.operationIndex();
    op.type = lo.type();
    op.commands = measured.commands;
    op.snapshotAfter = measured.snapshotAfter;
    if (!measured.choices.empty()) op.tiling += "; " + measured.choices;
    ops.push_back(std::move(op));
  }
  return ops;
}

}  // namespace weft::accel
