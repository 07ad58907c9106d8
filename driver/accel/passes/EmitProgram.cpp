#include "EmitProgram.h"

#include <algorithm>
#include <optional>

#include "../CommandGenerator.h"
#include "../RuntimeOperands.h"
#include "../ops/EltwiseLayer.h"

namespace weft::accel {
namespace {

// Emits the layers one by one into one program.
class Emission {
 public:
  Emission(const LayoutPlan& plan, const ModelTilings& tilings, const DramPlacement& dram, const CompileTarget& target)
      : plan_(plan), tilings_(tilings), dram_(dram), config_(target.config) {
    out_.program = std::make_unique<ProgramBuilder>(config_);
  }

  void snapshotBarrier(size_t tag, bool irq) {
    hw::BarrierCmd b;
    b.snapshot = true;
    b.tag = static_cast<uint32_t>(tag);
    b.dramAddr = dram_.snapshots->addr() + hw::kSnapshotBytes * tag;
    b.irq = irq;
    out_.program->add(PlannedCommand{b, {}});
  }
  nn::Status layer(size_t l);
  EmittedProgram take() { return std::move(out_); }
  // Layer l and the next are GEMM products of one operation (a BATCH_MATMUL's), the next reading
  // nothing l writes, with the same single-epoch plan and parameter rows (so the next keeps l's:
  // LayerPlacement::paramsResident): no barrier between them (EmittedLayer::snapshotAfter).
  bool overlapsNext(size_t l) const {
    if (l + 1 >= plan_.layers.size()) return false;
    const GemmLayer* a = plan_.layers[l].gemm();
    const GemmLayer* b = plan_.layers[l + 1].gemm();
    if (a == nullptr || b == nullptr || !productsOverlap(*a, *b, config_)) return false;
    const TilePlan& pa = *tilings_.plans[l];
    const TilePlan& pb = *tilings_.plans[l + 1];
    auto sameColumns = [](const GemmLayer& x, const GemmLayer& y) {
      return std::equal(x.columns.begin(), x.columns.end(), y.columns.begin(), y.columns.end(),
                        [](const hw::ColumnParams& p, const hw::ColumnParams& q) {
                          return p.bias == q.bias && p.multiplier == q.multiplier && p.shift == q.shift;
                        });
    };
    return pa.tilesPerEpoch >= pa.nTiles && pa.describe() == pb.describe() && sameColumns(*a, *b);
  }

 private:
  uint64_t addressOf(uint32_t operand) const { return dram_.tensors.at(operand).region->addr(); }
  nn::Status vectorLayer(const VectorLayer& layer, const LayerConstants& constants);
  nn::Status gemmLayer(const GemmLayer& layer, size_t l);
  nn::Status repack(const GemmLayer& layer, const TilePlan& tp, const LayerPlacement& where, uint64_t copyRow);

  const LayoutPlan& plan_;
  const ModelTilings& tilings_;
  const DramPlacement& dram_;
  const hw::HwConfig& config_;
  EmittedProgram out_;
  uint32_t weightBank_ = 0;  // the last GEMM layer's LayerPlacement::weightBank
};

nn::Status Emission::layer(size_t l) {
  ProgramBuilder& program = *out_.program;
  const size_t firstCommand = program.size();
  const double scheduledBefore = program.scheduledCycles();
  EmittedLayer measured;
  program.takeNotes();  // none are a layer's before it starts
  NN_TRY(plan_.layers[l].visit(Overloaded{[&](const GemmLayer& g) { return gemmLayer(g, l); },
                                          [&](const VectorLayer& v) { return vectorLayer(v, dram_.layers[l]); }}));
  measured.choices = program.takeNotes();
  measured.snapshotAfter = !overlapsNext(l);
  measured.commands = program.size() - firstCommand + (measured.snapshotAfter ? 1 : 0);
  out_.layers.push_back(measured);
  if (measured.snapshotAfter) snapshotBarrier(l + 1, l + 1 == plan_.layers.size());
  out_.layers.back().scheduledCycles = program.scheduledCycles() - scheduledBefore;
  return {};
}

nn::Status Emission::vectorLayer(const VectorLayer& layer, const LayerConstants& constants) {
  const size_t position = out_.layers.size();
  VectorPlacement where;
  where.constants = constants.images;
  where.scratch = constants.scratch;
  auto placeOf = [&](const LayerTensor& t) {
    const PlacedTensor& p = dram_.tensors.at(t.operand);
    return viewOf(p.layout, t.shape, p.region->addr());
  };
  for (const auto& t : layer.inputs) {
    where.inputs.push_back(placeOf(t));
    out_.firstReader.emplace(t.operand, position);
  }
  for (const auto& t : layer.outputs) {
    where.outputs.push_back(placeOf(t));
    out_.producer[t.operand] = position;
  }
  return layer.generate(where, config_, *out_.program);
}

nn::Status Emission::gemmLayer(const GemmLayer& layer, size_t l) {
  const size_t position = out_.layers.size();
  const TilePlan& tp = *tilings_.plans[l];
  const LayerConstants& constants = dram_.layers[l];
  LayerPlacement where = gemmViews(plan_, layer, [&](uint32_t operand) { return addressOf(operand); });
  where.weights = constants.weights;
  where.params = constants.params;
  where.padding = constants.padding;
  where.weightSource = runtimeWeightSource(layer, config_);
  where.paramsResident = l > 0 && !out_.layers.back().snapshotAfter;
  // Products that follow one another without a barrier take turns with the weight scratchpad's
  // halves when their weights fit twice: the next product's weights load during this one.
  where.weightBank = where.paramsResident && weightBanksFit(tp, config_) ? 1 - weightBank_ : 0;
  weightBank_ = where.weightBank;
  if (where.weightSource != WeightSource::kImage) {
    where.filter = addressOf(*layer.runtimeWeights) + layer.runtimeWeightsOffset;
  }
  if ((layer.runtimeWeights && where.weightSource == WeightSource::kImage) || layer.runtimeBias) {
    NN_TRY(repack(layer, tp, where, constants.copyRow));
  }
  if (layer.runtimeWeights) out_.firstReader.emplace(*layer.runtimeWeights, position);
  if (layer.runtimeBias) out_.firstReader.emplace(*layer.runtimeBias, position);
  NN_TRY(generateCommands(layer, tp, where, config_, *out_.program));
  out_.firstReader.emplace(layer.inputOperand, position);
  out_.producer[layer.outputOperand] = position;
  return {};
}

// The filter and bias of this execution go into the layer's images first; the barrier keeps the
// layer's loads behind the copies' stores.
nn::Status Emission::repack(const GemmLayer& layer, const TilePlan& tp, const LayerPlacement& where,
                            uint64_t copyRow) {
  EltwiseEmitter emitter(config_, *out_.program);
  NN_TRY(emitter.begin(copyRow, std::nullopt));
  if (layer.runtimeWeights && where.weightSource == WeightSource::kImage) {
    const uint64_t filter = addressOf(*layer.runtimeWeights) + layer.runtimeWeightsOffset;
    NN_TRY(repackWeights(layer, tp, filter, where.weights, config_, emitter));
  }
  if (layer.runtimeBias && isFloat(layer.weightType)) {
    NN_TRY(repackFp16Bias(layer.n(), addressOf(*layer.runtimeBias), where.params, config_.cols(), copyRow, config_,
                          emitter));
  } else if (layer.runtimeBias) {
    NN_TRY(repackBias(layer.n(), addressOf(*layer.runtimeBias), where.params, config_, emitter));
  }
  out_.program->add(PlannedCommand{hw::BarrierCmd{}, {}});
  return {};
}

}  // namespace

nn::Result<EmittedProgram> emitProgram(const LayoutPlan& plan, const ModelTilings& tilings,
                                       const DramPlacement& dram, const CompileTarget& target) {
  Emission emission(plan, tilings, dram, target);
  emission.snapshotBarrier(0, false);
  for (size_t l = 0; l < plan.layers.size(); ++l) {
    NN_TRY(checkDeadline(target.options.deadline, plan.layers[l].operationIndex()));
    NN_TRY(emission.layer(l));
  }
  return emission.take();
}

}  // namespace weft::accel
