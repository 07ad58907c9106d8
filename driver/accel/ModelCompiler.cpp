#include "ModelCompiler.h"

#include <mutex>
#include <optional>
#include <utility>

#include "passes/CompilationState.h"

namespace weft::accel {
namespace {

// A sink that only counts: a vector layer's commands generated against a made-up placement
// prove that its tiling fits the configuration's memories and command fields.
class CountingSink final : public CommandSink {
 public:
  void add(PlannedCommand&&) override { ++count; }
  bool provesFitOnly() const override { return true; }
  size_t count = 0;
};

nn::Status vectorLayerFits(const VectorLayer& layer, const hw::HwConfig& config) {
  VectorPlacement where;
  uint64_t addr = 0;
  auto dense = [&](const LayerTensor& t) {
    const ImageShape& s = t.shape;
    const ImageView v{addr, s.channels, uint64_t{s.width} * s.channels, uint64_t{s.height} * s.width * s.channels};
    addr += s.elements() + 64;
    return v;
  };
  for (const auto& t : layer.inputs) where.inputs.push_back(dense(t));
  for (const auto& t : layer.outputs) where.outputs.push_back(dense(t));
  for (const auto& image : layer.constantImages(config)) {
    where.constants.push_back(addr);
    addr += image.size() + 64;
  }
  if (const uint64_t scratch = layer.scratchBytes(config); scratch > 0) where.scratch = addr;
  CountingSink sink;
  return layer.generate(where, config, sink);
}

// Whether every layer of an operation fits the hardware: its datapath, and a vector layer's
// tiling (an operation compiled at execution is checked then).
nn::Status operationFits(const LoweredOperation& op, const hw::HwConfig& config) {
  for (const LoweredLayer& layer : op.layers) {
    NN_TRY(datapathFits(layer, config));
    if (const VectorLayer* v = layer.vector(); v != nullptr && !op.pending) NN_TRY(vectorLayerFits(*v, config));
  }
  return {};
}

// The passes' outputs that an execution needs, gathered.
CompiledModel compiledModel(CompilationState&& s) {
  CompiledModel out;
  out.tensors = std::move(s.dram.tensors);
  out.constants = std::move(s.dram.constants);
  out.snapshots = std::move(s.dram.snapshots);
  out.program = std::move(s.scheduled.program);
  out.operations = std::move(s.operations);
  out.estimatedCycles = s.scheduled.estimatedCycles;
  out.watchdogCycles = s.scheduled.watchdogCycles;
  out.firstReader = std::move(s.emitted.firstReader);
  out.producer = std::move(s.emitted.producer);
  out.tilings = std::move(s.tilings.choices);
  out.tilingsFromCache = s.tilings.fromCache;
  return out;
}

}  // namespace

std::vector<bool> supportedOperations(const nn::Model& model, const hw::HwConfig& config,
                                      std::map<uint32_t, std::string>* reasons) {
  const size_t n = model.main.operations.size();
  std::vector<std::optional<LoweredOperation>> lowered(n);
  for (uint32_t i = 0; i < n; ++i) {
    auto lo = lowerOperation(model, i, /*withValues=*/false);
    if (lo.ok()) {
      if (auto fits = operationFits(lo.value(), config); !fits.ok()) lo = fits.error();
    }
    if (lo.ok()) {
      lowered[i] = std::move(lo).value();
    } else if (reasons) {
      (*reasons)[i] = lo.error().message;
    }
  }
  std::map<uint32_t, nn::Error> rejected;
  layoutOperations(model, lowered, &rejected);
  std::vector<bool> supported(n);
  for (uint32_t i = 0; i < n; ++i) {
    supported[i] = lowered[i].has_value() && rejected.count(i) == 0;
    if (rejected.count(i) && reasons) (*reasons)[i] = rejected.at(i).message;
  }
  return supported;
}

nn::Result<CompiledModel> compileModel(const nn::Model& model, DeviceQueue& queue, const TilingChoices* replay,
                                       const DeviceQueue::Deadline& deadline, nn::ExecutionPreference preference) {
  return compileModel(model, queue, CompileOptions::fromEnvironment(preference, deadline), replay);
}

// The device's lock is held only while DRAM is placed and written: lowering, layouts and the
// tiling search read no address (the cost model sees request sizes, and every region starts on a
// burst), and the program is generated for the addresses placed. Compilations run side by side
// then, and beside executions.
nn::Result<CompiledModel> compileModel(const nn::Model& model, DeviceQueue& queue, const CompileOptions& options,
                                       const TilingChoices* replay) {
  CompilationState s(CompileTarget{queue.config(), options, TilingPolicy::forPreference(options.preference),
                                   sim::computesData(queue.backend().kind())});
  NN_TRY(into(s.lowered, lowerModel(model, s.target)));
  NN_TRY(into(s.layout, layoutModel(model, std::move(s.lowered))));
  NN_TRY(into(s.tilings, searchTilings(s.layout, s.target, replay)));
  {
    std::lock_guard<std::mutex> lock(queue.mutex());
    NN_TRY(into(s.dram, placeInDram(model, s.layout, s.tilings, queue, s.target)));
  }
  NN_TRY(into(s.emitted, emitProgram(s.layout, s.tilings, s.dram, s.target)));
  s.operations = costOperations(s.layout, s.tilings, s.emitted, s.target.config);
  NN_TRY(into(s.scheduled, scheduleProgram(*s.emitted.program)));
  return compiledModel(std::move(s));
}

}  // namespace weft::accel
