#include "LayerRunner.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <vector>

#include "DramCounters.h"
#include "NetworkModel.h"
#include "SingleLayer.h"
#include "Splitmix.h"
#include "Trace.h"
#include "weft/runtime/Profile.h"
#include "weft/common/fnv1a.h"

namespace weft::tool {
namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

LayerExecution executeOnce(ANeuralNetworksCompilation* compilation, const Network& net, uint8_t* output,
                      size_t outputBytes) {
  ANeuralNetworksExecution* raw = nullptr;
  check(ANeuralNetworksExecution_create(compilation, &raw), "ANeuralNetworksExecution_create");
  ExecutionPtr execution(raw);
  for (size_t i = 0; i < net.inputCount(); ++i) {
    const uint64_t bytes = net.inputBytes(i);
    check(ANeuralNetworksExecution_setInput(raw, static_cast<int32_t>(i), nullptr,
                                            bytesOrZeroPages(net.inputData(i), bytes), bytes),
          "ANeuralNetworksExecution_setInput");
  }
  check(ANeuralNetworksExecution_setOutput(raw, 0, nullptr, output, outputBytes),
        "ANeuralNetworksExecution_setOutput");
  check(ANeuralNetworksExecution_setMeasureTiming(raw, true), "ANeuralNetworksExecution_setMeasureTiming");
  const auto start = Clock::now();
  check(ANeuralNetworksExecution_compute(raw), fmt::format("ANeuralNetworksExecution_compute({})", net.name));
  return profiledExecution(raw, secondsSince(start));
}

}  // namespace

std::array<uint8_t, ANEURALNETWORKS_BYTE_SIZE_OF_CACHE_TOKEN> layerCacheToken(const std::string& identity) {
  Splitmix64 spread(common::fnv1a(identity));
  std::array<uint8_t, ANEURALNETWORKS_BYTE_SIZE_OF_CACHE_TOKEN> token{};
  for (size_t i = 0; i < token.size(); i += 8) {
    const uint64_t word = spread.next();
    for (size_t b = 0; b < 8; ++b) token[i + b] = static_cast<uint8_t>(word >> (8 * b));
  }
  return token;
}

namespace {

// A layer whose tensors alone do not fit the device DRAM cannot compile; say so before its data
// (a 4k feature map is gigabytes of host memory) is built.
void checkFitsDram(const LayerEntry& entry, const Network& shapes, uint64_t dramBytes) {
  const uint64_t bytes = tensorBytes(shapes);
  if (bytes <= dramBytes) return;
  constexpr uint64_t kMiB = 1 << 20;
  throw std::runtime_error(
      fmt::format("layer {}: its tensors take {} bytes but the simulated DRAM holds {} (DramMiB "
                  "{}); raise DramMiB to at least {}",
                  entry.name, bytes, dramBytes, dramBytes / kMiB, (bytes + kMiB - 1) / kMiB));
}

// Everything about a layer's network that decides what the device runs: its operations, shapes,
// parameters and quantization, but not its name nor its tensors' values (the device's timing
// never depends on data). A field added to Network or Layer that changes the program belongs here.
std::string layerIdentity(const Network& net) {
  auto quant = [](const QuantParams& q) { return fmt::format("{}/{}", q.scale, q.zeroPoint); };
  std::string id = fmt::format("in {} {} signed {}", fmt::join(net.inputShape, "x"), quant(net.inputQuant), net.isSigned);
  for (const ExtraInput& e : net.extraInputs) id += fmt::format("; extra {} {}", fmt::join(e.shape, "x"), quant(e.quant));
  for (const Layer& l : net.layers) {
    id += fmt::format("; {} [{}] s{} d{} m{} pad {} {} {} {} {} act {} w {} {} f {}x{} beta {} axis {} axes [{}] keep {} "
                      "target [{}] paddings [{}] value {} perm [{}] box [{}] [{}] adj {} {} eps {} affine {} gelu {} out {} {} -> {}",
                      nnapiName(l.op), fmt::join(l.inputs, ","), l.stride, l.dilation, l.depthMultiplier,
                      static_cast<int>(l.padding.scheme), l.padding.top, l.padding.bottom, l.padding.left,
                      l.padding.right, l.activation, fmt::join(l.weightShape, "x"), quant(l.weightQuant), l.filterH,
                      l.filterW, l.beta, l.axis, fmt::join(l.axes, ","), l.keepDims, fmt::join(l.targetShape, ","),
                      fmt::join(l.paddings, ","), l.padValue, fmt::join(l.perm, ","), fmt::join(l.begin, ","),
                      fmt::join(l.size, ","), l.adjX, l.adjY, l.epsilon, l.affineSeed, l.geluTanh,
                      quant(l.outputQuant), fmt::join(l.inputShape, "x"),
                      fmt::join(l.outputShape, "x"));
  }
  return id;
}

// A layer built and compiled, ready to execute: its network (which its model's operand values
// point into), the model and the compilation, and the figures known before it runs.
struct PreparedLayer {
  std::unique_ptr<Network> net;
  ModelPtr model;
  CompilationPtr compilation;
  LayerRun run;
};

PreparedLayer prepareLayer(const LayerEntry& entry, ANeuralNetworksDevice* accelerator,
                           const LayerRunOptions& options) {
  const auto prepareStart = Clock::now();
  PreparedLayer p;
  p.net = std::make_unique<Network>(entry.build(options.values));
  const Network& net = *p.net;
  const Layer& layer = net.layers.front();
  LayerRun& run = p.run;
  run.name = entry.name;
  run.device = deviceName(accelerator);
  run.op = nnapiName(layer.op);
  run.shape = describeShape(net, layer);
  run.macs = layer.macs;
  run.minDramBytes = 4 * layer.bias.size();
  if (!layer.weightShape.empty()) {
    uint64_t weights = 1;
    for (uint32_t d : layer.weightShape) weights *= d;
    run.minDramBytes += weights;
  }
  for (size_t k = 0; k < net.inputCount(); ++k) run.minDramBytes += net.inputBytes(k);

  p.model = buildModel(net);
  ANeuralNetworksCompilation* rawCompilation = nullptr;
  ANeuralNetworksModel* model = p.model.get();
  check(ANeuralNetworksCompilation_createForDevices(model, &accelerator, 1, &rawCompilation),
        "ANeuralNetworksCompilation_createForDevices");
  p.compilation.reset(rawCompilation);
  if (!options.cacheDir.empty()) {
    const auto token = layerCacheToken(
        fmt::format("{}|{}|{}|{}|{}", entry.name, run.op, run.shape, net.input.size(), options.cacheSalt));
    check(ANeuralNetworksCompilation_setCaching(rawCompilation, options.cacheDir.c_str(), token.data()),
          "ANeuralNetworksCompilation_setCaching");
  }
  check(ANeuralNetworksCompilation_finish(rawCompilation),
        fmt::format("ANeuralNetworksCompilation_finish({}) on the accelerator alone", run.name));
  run.prepareSeconds = secondsSince(prepareStart);
  return p;
}

// Adds counter deltas into `sum` by name: the profile has an entry per layer, and an operation
// lowered to several layers (BATCH_MATMUL: one a product) is reported as their total.
void addCounters(std::vector<std::pair<std::string, uint64_t>>& sum,
                 const std::vector<std::pair<std::string, uint64_t>>& more) {
  for (const auto& [name, value] : more) {
    auto it = std::find_if(sum.begin(), sum.end(), [&](const auto& c) { return c.first == name; });
    if (it == sum.end()) {
      sum.emplace_back(name, value);
    } else {
      it->second += value;
    }
  }
}

}  // namespace

LayerExecution profiledExecution(const ANeuralNetworksExecution* raw, double executeSeconds) {
  LayerExecution e;
  e.executeSeconds = executeSeconds;
  const auto& profiles = runtime::getExecutionProfiles(raw);
  for (const auto& p : profiles) {
    e.simulatorSeconds += p.simulatorWallSeconds;
    e.registerAccesses += p.registerAccesses;
    e.commands.insert(e.commands.end(), p.commands.begin(), p.commands.end());
    e.dram.insert(e.dram.end(), p.dramRequests.begin(), p.dramRequests.end());
    e.dramCommands.insert(e.dramCommands.end(), p.dramCommands.begin(), p.dramCommands.end());
    for (const auto& op : p.operations) {
      e.cycles += op.cycles;
      e.readBytes += op.dramReadBytes;
      e.writeBytes += op.dramWriteBytes;
      addCounters(e.counters, op.counters);  // an operation of several layers: their sum
      if (op.peakOpsPerCycle > 0) {
        e.unit = op.unit;
        e.mapping = op.mapping;
        e.peakOps = op.peakOpsPerCycle;
        e.unitOps = op.macs;
      }
      for (const auto& [name, value] : op.counters) {
        if (name == "ARRAY_ROWS") e.arrayRows += value;
        if (name == "VECTOR_SLOTS") e.vectorSlots += value;
      }
    }
  }
  appendDramCounterDeltas(e.counters);  // a cycle-level DRAM's (DramCounters.h)
  return e;
}

void recordFirstExecution(LayerRun& run, const LayerExecution& e, size_t traceLimit, TraceBudget& traced) {
  run.cycles = e.cycles;
  run.arrayRows = e.arrayRows;
  run.vectorSlots = e.vectorSlots;
  if (!e.unit.empty()) run.unit = e.unit;
  run.peakOpsPerCycle = e.peakOps;
  run.mapping = e.mapping;
  if (run.unit == "vector" && e.unitOps > 0) run.macs = e.unitOps;
  run.dramReadBytes = e.readBytes;
  run.dramWriteBytes = e.writeBytes;
  run.counters = e.counters;
  run.registerAccesses = e.registerAccesses;
  run.commands = e.commands;
  run.dram = e.dram;
  run.dramCommands = e.dramCommands;
  if (traceLimit > 0) {
    run.traceTruncated = keepWithin(run.commands, run.dram, run.dramCommands, traceLimit, traced);
    if (traced.commands >= traceLimit) unsetenv("WEFT_COMMAND_TRACE");
  }
}

std::vector<LayerRun> runLayerTable(const LayerTable& table, const LayerRunOptions& options) {
  ANeuralNetworksDevice* accelerator = findDevice(ANEURALNETWORKS_DEVICE_ACCELERATOR);
  if (!options.cacheDir.empty()) {
    std::error_code error;
    std::filesystem::create_directories(options.cacheDir, error);
    if (error) {
      throw std::runtime_error(
          fmt::format("cannot make the cache directory '{}': {}", options.cacheDir, error.message()));
    }
  }
  // Every layer's shapes first: a layer that cannot fit the DRAM fails before anything runs, and
  // the layers that repeat an earlier one are known.
  const size_t count = table.layers.size();
  std::vector<std::optional<size_t>> sameAs(count);
  std::vector<uint64_t> bytes(count);  // each layer's tensors
  std::map<std::string, size_t> firstOf;  // layerIdentity() -> the layer that has its figures
  for (size_t i = 0; i < count; ++i) {
    const Network shapes = table.layers[i].build(TensorValues::kNone);
    bytes[i] = tensorBytes(shapes);
    if (options.dramBytes > 0) checkFitsDram(table.layers[i], shapes, options.dramBytes);
    if (!options.reuseIdentical) continue;
    const auto [known, added] = firstOf.emplace(layerIdentity(shapes), i);
    if (!added) sameAs[i] = known->second;
  }
  // The layers to compile, in order, and those compiling ahead of the one executing. A layer is
  // compiled ahead when its tensors take at most 1/16 of the DRAM (its device images are
  // about twice its tensors, and up to three layers are held at once: the one executing, and
  // two compiling), so that ahead or not, the same layers fit. A timing run holds no tensor
  // values on the host, so there a larger layer may compile ahead too, while the images of all
  // held at once would fit the DRAM together: GNMT's 100 MB layers each compile while the one
  // before runs.
  std::vector<size_t> toCompile;
  for (size_t i = 0; i < count; ++i) {
    if (!sameAs[i]) toCompile.push_back(i);
  }
  std::map<size_t, std::future<PreparedLayer>> ahead;
  size_t launched = 0;  // toCompile[0, launched) are compiled or compiling
  auto small = [&](size_t i) { return options.dramBytes > 0 && bytes[i] <= options.dramBytes / 16; };
  auto fitsBeside = [&](size_t executing, size_t i) {
    if (options.dramBytes == 0 || options.values != TensorValues::kZeroPages) return false;
    uint64_t held = bytes[i] + (executing < count ? bytes[executing] : 0);
    for (const auto& compiling : ahead) held += bytes[compiling.first];
    return 2 * held <= options.dramBytes;
  };
  auto launchAhead = [&](size_t executing) {
    while (launched < toCompile.size() && ahead.size() < options.prepareAhead) {
      const size_t i = toCompile[launched];
      if (i == executing) break;
      const bool smallOnes = small(i) && (executing >= count || small(executing));
      if (!smallOnes && !fitsBeside(executing, i)) break;
      ahead.emplace(i, std::async(std::launch::async,
                                  [&, i] { return prepareLayer(table.layers[i], accelerator, options); }));
      ++launched;
    }
  };
  // What fails while layers compile ahead (a compilation, or an execution growing the command
  // ring) is tried again without them, as it would have run without compiling ahead: the layers
  // ahead are dropped (their DRAM freed; they compile again in their turn), so that a failure is
  // the layer's own, not the room the others held.
  auto dropAhead = [&](size_t i) {
    for (auto& compiling : ahead) {
      try {
        compiling.second.get();
      } catch (const std::exception&) {
      }
    }
    ahead.clear();
    launched = static_cast<size_t>(std::find(toCompile.begin(), toCompile.end(), i) - toCompile.begin()) + 1;
  };
  std::vector<LayerRun> runs;
  TraceBudget traced;  // commands kept for the trace so far
  // The layer executed last keeps its DRAM until the next layer's compilation ahead is done, and
  // the layers ahead start only once the layer compiled alone is placed: a layer compiled ahead
  // is always placed beside the one before it, so whether the two fit together follows from the
  // layers, not from whether its thread reached the DRAM before or after the other let go of it.
  // (Where the executing layer grows the command ring, which of the two then fails, and runs
  // again, still depends on timing; that one does, either way, does not.)
  std::optional<PreparedLayer> previous;
  for (size_t i = 0; i < count; ++i) {
    if (options.onLayer) options.onLayer(i, count, table.layers[i].name);
    if (sameAs[i]) {
      LayerRun run = runs[*sameAs[i]];
      run.name = table.layers[i].name;
      run.sameAs = sameAs[i];
      run.simulatorSeconds = run.executeSeconds = run.prepareSeconds = 0;
      runs.push_back(std::move(run));
      continue;
    }
    PreparedLayer prepared;
    bool besideOthers = true;  // other layers held DRAM while it compiled
    try {
      if (auto it = ahead.find(i); it != ahead.end()) {
        std::future<PreparedLayer> compiling = std::move(it->second);
        ahead.erase(it);
        prepared = compiling.get();  // rethrows what its compilation threw
        prepared.run.compiledAhead = true;
      } else {
        // Compiled now, alone: the layers ahead start once it is placed, beside it.
        previous.reset();
        ++launched;
        besideOthers = !ahead.empty();
        prepared = prepareLayer(table.layers[i], accelerator, options);
      }
    } catch (const std::exception&) {
      if (!besideOthers) throw;
      previous.reset();
      dropAhead(i);
      prepared = prepareLayer(table.layers[i], accelerator, options);
      prepared.run.againAlone = true;
    }
    previous.reset();
    launchAhead(i);
    const Network& net = *prepared.net;
    const Layer& layer = net.layers.front();
    ANeuralNetworksCompilation* rawCompilation = prepared.compilation.get();
    LayerRun run = std::move(prepared.run);

    size_t outputBytes = 1;
    for (uint32_t d : layer.outputShape) outputBytes *= d;
    // Where nothing reads values and no output is kept (the timing backend writes none), the
    // buffer's pages are never touched: zeroing GNMT's 37 MB output was a seventh of its peak
    // memory.
    std::vector<uint8_t> output;
    std::unique_ptr<uint8_t[]> untouched;
    if (options.values == TensorValues::kZeroPages && !options.keepOutputs) {
      untouched.reset(new uint8_t[outputBytes]);
    } else {
      output.assign(outputBytes, 0);
    }
    uint8_t* const outputData = untouched ? untouched.get() : output.data();
    run.minDramBytes += outputBytes;
    std::vector<double> simulator, execute;
    for (int r = 0; r < std::max(1, options.repeat); ++r) {
      // Device figures are the first execution's (every execution of a program gives the same:
      // DeviceQueue starts each at command 0 of the ring, from reset).
      LayerExecution e;
      try {
        e = executeOnce(rawCompilation, net, outputData, outputBytes);
      } catch (const std::exception&) {
        if (ahead.empty()) throw;
        dropAhead(i);
        e = executeOnce(rawCompilation, net, outputData, outputBytes);
        run.againAlone = true;
      }
      if (r == 0) recordFirstExecution(run, e, options.traceCommandLimit, traced);
      simulator.push_back(e.simulatorSeconds);
      execute.push_back(e.executeSeconds);
    }
    run.simulatorSeconds = median(simulator);
    run.executeSeconds = median(execute);
    if (options.keepOutputs) run.output = std::move(output);
    runs.push_back(std::move(run));
    previous = std::move(prepared);
  }
  return runs;
}

}  // namespace weft::tool
