#include "LayersCommand.h"

#include "DramCounters.h"
#include "DramFigures.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <nlohmann/json.hpp>

#include "Estimator.h"
#include "HtmlReport.h"
#include "Trace.h"
#include "LayerRunner.h"
#include "LayerTable.h"
#include "OnnxLayers.h"
#include "Report.h"
#include "ReportNames.h"
#include "ScaleSimCompare.h"
#include "ScaleSimReport.h"
#include "weft/hw/config.h"
#include "weft/sim/dram_config.h"

namespace weft::tool {
namespace {

std::string envOr(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? v : fallback;
}

// SCALE-Sim's COMPUTE_REPORT.csv quantities, for weft's array (one row enters it per cycle
// while it computes):
//   stall cycles      cycles in which the array took no new row (waiting for data or for a
//                     buffer, filling and draining);
//   overall util      MACs / (R * C * cycles);
//   mapping eff.      MACs / (R * C * rows streamed): how much of the array the tiling fills;
//   compute util      MACs / (R * C * (cycles - stall cycles)), which is the mapping efficiency.
// A layer of the vector unit is measured the same way against its unit: one slot a cycle of
// Cols lane operations (VECTOR_SLOTS for the rows, lane operations for the MACs).
//
// Against the machine's limits: the compute bound is MACs / peak operations a cycle, the
// bandwidth bound the layer's least DRAM traffic (its tensors once) / DRAM bytes a cycle. A
// layer is compute-bound when its compute bound is the larger (arithmetic intensity above the
// machine's balance point); `overBound` is cycles / the larger bound (1.00 = at the limit).
struct ArrayFigures {
  uint64_t stall = 0;
  double overall = 0, mapping = 0;
  double computeBound = 0, bandwidthBound = 0, overBound = 0;
  // Empty for a layer not on the accelerator (its figures are all 0).
  const char* boundBy() const {
    if (computeBound == 0 && bandwidthBound == 0) return "";
    return computeBound >= bandwidthBound ? "compute" : "memory";
  }
};

ArrayFigures figures(const LayerRun& r, const hw::HwConfig& hw) {
  if (!r.reason.empty()) return {};  // not the accelerator's: no figures
  const bool vector = r.unit == "vector";
  const double pes = vector ? double(r.peakOpsPerCycle > 0 ? r.peakOpsPerCycle : hw.cols()) : double(hw.rows()) * hw.cols();
  const uint64_t rows = vector ? r.vectorSlots : r.arrayRows;
  ArrayFigures f;
  f.stall = r.cycles > rows ? r.cycles - rows : 0;
  f.overall = r.cycles > 0 ? 100.0 * r.macs / (pes * r.cycles) : 0;
  f.mapping = rows > 0 ? 100.0 * r.macs / (pes * rows) : 0;
  f.computeBound = r.macs / pes;
  f.bandwidthBound = double(r.minDramBytes) / double(hw.get(hw::Param::kDramBytesPerCycle));
  const double bound = std::max(f.computeBound, f.bandwidthBound);
  f.overBound = bound > 0 ? r.cycles / bound : 0;
  return f;
}

std::string computeReport(const std::vector<LayerRun>& runs, const hw::HwConfig& hw) {
  std::string out = "LayerID, Total Cycles, Stall Cycles, Overall Util %, Mapping Efficiency %, Compute Util %, Layer name,\n";
  for (size_t i = 0; i < runs.size(); ++i) {
    // SCALE-Sim's form has the accelerator's layers: an ONNX model's operation left on the CPU
    // has no row (its LayerID, the table's index, is skipped), as SCALE-Sim would not simulate it.
    if (!runs[i].reason.empty()) continue;
    const ArrayFigures f = figures(runs[i], hw);
    out += fmt::format("{}, {}, {}, {:.4f}, {:.4f}, {:.4f}, {},\n", i, runs[i].cycles, f.stall, f.overall, f.mapping,
                       f.mapping, runs[i].name);
  }
  return out;
}

std::string csvReport(const std::vector<LayerRun>& runs, const hw::HwConfig& hw, const codesign::Estimator& estimator) {
  std::string out =
      "index,layer,operation,shape,cycles,array_rows,stall_cycles,macs,overall_util_pct,mapping_eff_pct,"
      "dram_read_bytes,dram_write_bytes,min_dram_bytes,compute_bound_cycles,bandwidth_bound_cycles,bound_by,"
      "cycles_over_bound,simulator_seconds,energy_pj,area_um2,device,reason\n";
  for (size_t i = 0; i < runs.size(); ++i) {
    const LayerRun& r = runs[i];
    const ArrayFigures f = figures(r, hw);
    std::string reason = r.reason;
    std::replace(reason.begin(), reason.end(), '"', '\'');
    out += fmt::format("{},{},{},\"{}\",{},{},{},{},{:.4f},{:.4f},{},{},{},{:.0f},{:.0f},{},{:.4f},{:.6f},{:.1f},{:.1f},{},\"{}\"\n", i,
                       r.name, r.op, r.shape, r.cycles, r.arrayRows, f.stall, r.macs, f.overall, f.mapping,
                       r.dramReadBytes, r.dramWriteBytes, r.minDramBytes, f.computeBound, f.bandwidthBound,
                       f.boundBy(), f.overBound, r.simulatorSeconds, estimator.energy(r.counters, r.registerAccesses).totalPj(),
                       estimator.area().totalUm2(), r.device, reason);
  }
  return out;
}

nlohmann::ordered_json hwJson(const hw::HwConfig& hw) {
  return {{"config", hw.name()},
          {"rows", hw.rows()},
          {"cols", hw.cols()},
          {"clockMHz", hw.clockMHz()},
          {"dramBytesPerCycle", hw.get(hw::Param::kDramBytesPerCycle)},
          {"dramLatencyCycles", hw.get(hw::Param::kDramLatencyCycles)},
          {"dramBurstBytes", hw.get(hw::Param::kDramBurstBytes)},
          {"params", nlohmann::ordered_json::parse(hw.toJson())["params"]}};  // enumerated ones by name
}

// A cycle-level DRAM's counters summed over the layers that ran on the accelerator.
nlohmann::json tableDramCounters(const std::vector<LayerRun>& runs) {
  nlohmann::json counters = nlohmann::json::object();
  for (const LayerRun& r : runs) {
    if (r.reason.empty()) addCounters(counters, counterObject(r.counters));
  }
  return counters;
}

// An ONNX model's layers the accelerator ran, each checked against the CPU reference's output on
// the same inputs (OnnxLayers.h): one line saying so. False when a layer is off.
bool printReferenceCheck(const std::vector<LayerRun>& runs) {
  size_t checked = 0;
  const LayerRun* worst = nullptr;
  std::vector<std::string> failed;
  for (const LayerRun& r : runs) {
    if (!r.referenceError) continue;
    ++checked;
    if (worst == nullptr || *r.referenceError > *worst->referenceError) worst = &r;
    if (!r.referencePassed) failed.push_back(fmt::format("{} ({} off)", r.name, *r.referenceError));
  }
  if (checked == 0) return true;  // the timing backend, or no layer on the accelerator
  const std::string rule = "each layer the accelerator ran within one step of the CPU reference's output on the "
                           "same inputs (8-bit), or atol 1e-5, rtol 1e-3 (float; 2e-2 for float16 and relaxed)";
  if (failed.empty()) {
    fmt::print("reference check: PASS ({}: {} layers, largest difference {:.4g} at {}; 8-bit outputs count steps)\n",
               rule, checked, *worst->referenceError, worst->name);
    return true;
  }
  fmt::print("reference check: FAIL ({}): {} of {} layers off: {}\n", rule, failed.size(), checked,
             fmt::join(failed.begin(), failed.begin() + static_cast<std::ptrdiff_t>(std::min<size_t>(failed.size(), 5)),
                       ", "));
  return false;
}

std::string jsonReport(const LayerTable& table, const std::vector<LayerRun>& runs, const hw::HwConfig& hw,
                       const std::string& backend, double wallSeconds, const std::string& outputsPath,
                       const codesign::Estimator& estimator) {
  nlohmann::ordered_json j;
  j["table"] = table.name;
  j["format"] = table.format;
  j["backend"] = backend;
  j["hw"] = hwJson(hw);
  auto& layers = j["layers"] = nlohmann::ordered_json::array();
  uint64_t offset = 0;
  for (const LayerRun& r : runs) {
    const ArrayFigures f = figures(r, hw);
    nlohmann::ordered_json counters;
    for (const auto& [name, value] : r.counters) counters[name] = value;
    nlohmann::ordered_json l = {{"name", r.name},
                                {"operation", r.op},
                                {"shape", r.shape},
                                {"cycles", r.cycles},
                                {"arrayRows", r.arrayRows},
                                {"stallCycles", f.stall},
                                {"macs", r.macs},
                                {"overallUtilPct", f.overall},
                                {"mappingEfficiencyPct", f.mapping},
                                {"dramReadBytes", r.dramReadBytes},
                                {"dramWriteBytes", r.dramWriteBytes},
                                {"minDramBytes", r.minDramBytes},
                                {"computeBoundCycles", f.computeBound},
                                {"bandwidthBoundCycles", f.bandwidthBound},
                                {"boundBy", f.boundBy()},
                                {"cyclesOverBound", f.overBound},
                                {"mapping", r.mapping},
                                {"simulatorSeconds", r.simulatorSeconds},
                                {"executeSeconds", r.executeSeconds},
                                {"prepareSeconds", r.prepareSeconds},
                                {"counters", counters},
                                {"registerAccesses", r.registerAccesses},
                                {"energy", codesign::toJson(estimator.energy(r.counters, r.registerAccesses))},
                                {"device", r.device}};
    if (!r.reason.empty()) l["reason"] = r.reason;
    if (r.sameAs) l["sameAs"] = runs[*r.sameAs].name;
    if (r.referenceError) l["referenceCheck"] = {{"maxError", *r.referenceError}, {"passed", r.referencePassed}};
    if (const nlohmann::json dram = dramFigures(counterObject(r.counters)); !dram.is_null()) {
      l["dram"] = dram;  // a cycle-level DRAM's figures from the layer's counters
    }
    if (!outputsPath.empty()) {
      l["outputOffset"] = offset;
      l["outputBytes"] = r.output.size();
      offset += r.output.size();
    }
    layers.push_back(std::move(l));
  }
  codesign::EnergyBreakdown total;
  for (const LayerRun& r : runs) total += estimator.energy(r.counters, r.registerAccesses);
  j["energy"] = codesign::toJson(total);
  if (const auto device = sim::dramDeviceFor(hw)) {  // a cycle-level DRAM over the table
    const nlohmann::json counters = tableDramCounters(runs);
    j["dram"] = {{"device", device->name},
                 {"counters", counters},
                 {"figures", dramFigures(counters)},
                 {"energyPj", counters.value("DRAM_ENERGY_PJ", uint64_t{0})}};
  }
  j["estimates"] = estimator.json();
  if (!outputsPath.empty()) j["outputs"] = outputsPath;
  j["wallSeconds"] = wallSeconds;
  return j.dump(2) + "\n";
}

// The layers end to end on the device timeline, each with its figures and counters.
std::string layersTrace(const LayerTable& table, const std::vector<LayerRun>& runs, const hw::HwConfig& hw,
                        const std::string& backend, const codesign::Estimator& estimator, const TraceBudget& kept) {
  std::vector<DeviceSpan> device;
  std::vector<HostSpan> host;
  std::vector<DeviceCommands> commands;
  uint64_t at = 0;
  double hostAt = 0;
  for (const LayerRun& r : runs) {
    if (!r.reason.empty()) continue;  // not on the accelerator: nothing on the device timeline
    if (!r.commands.empty()) {
      commands.push_back({at, static_cast<uint32_t>(hw.cols()), r.commands, r.dram, r.dramCommands});
    }
    at += r.cycles;
    const ArrayFigures f = figures(r, hw);
    auto counter = [&](const char* name) -> double {
      for (const auto& [n, v] : r.counters) {
        if (n == name) return static_cast<double>(v);
      }
      return 0;
    };
    const double cycles = static_cast<double>(std::max<uint64_t>(1, r.cycles));
    nlohmann::ordered_json counters = nlohmann::ordered_json::object();
    for (const auto& [name, value] : r.counters) counters[name] = value;
    DeviceSpan s;
    s.name = r.name;
    s.cycles = r.cycles;
    s.args = {{"operation", r.op}, {"shape", r.shape}, {"cycles", r.cycles}, {"macs", r.macs},
              {"overallUtilPct", f.overall}, {"mappingEfficiencyPct", f.mapping},
              {"dramReadBytes", r.dramReadBytes}, {"dramWriteBytes", r.dramWriteBytes},
              {"energyPj", estimator.energy(r.counters, r.registerAccesses).totalPj()}, {"counters", counters}};
    s.arrayBusy = counter("COMPUTE_ACTIVE") / cycles;
    s.vectorBusy = counter("VECTOR_ACTIVE") / cycles;
    s.loadBusy = counter("LOAD_ACTIVE") / cycles;
    s.storeBusy = counter("STORE_ACTIVE") / cycles;
    s.dramStall = std::min(1.0, (counter("STALL_DRAM_RD") + counter("STALL_DRAM_WR")) / cycles);
    s.dramReadBytes = r.dramReadBytes;
    s.dramWriteBytes = r.dramWriteBytes;
    device.push_back(std::move(s));
    // Each layer's building and compiling, then its execution, with the simulator's share of it.
    const double built = hostAt + r.prepareSeconds;
    host.push_back({"building and compiling", r.name, r.prepareSeconds, hostAt});
    host.push_back({"execution", r.name, r.executeSeconds, built});
    host.push_back({"simulation", r.name, std::min(r.simulatorSeconds, r.executeSeconds), built});
    hostAt = built + r.executeSeconds;
  }
  nlohmann::ordered_json metadata = {
      {"tool", "weft layers"}, {"table", table.name}, {"backend", backend}, {"hw", hwJson(hw)}};
  if (kept.cut) metadata["commandsTruncated"] = commandsTruncatedNote(kept);
  return buildTrace(fmt::format("weft-accel: {} layers", table.name), hw.clockMHz(), device, host, metadata, commands);
}

void printTable(const LayerTable& table, const std::vector<LayerRun>& runs, const hw::HwConfig& hw,
                const std::string& backend, double wallSeconds, const codesign::Estimator& estimator,
                std::ostream& out) {
  const std::string enums = hw.enumParamsText();  // "Dataflow WS"
  fmt::print(out, "{} ({}, {} layers) on {} ({}x{} @ {:.0f} MHz{}, DRAM {} B/cycle, {} cycles latency), backend {}\n\n",
             table.name, table.format, runs.size(), hw.name(), hw.rows(), hw.cols(), hw.clockMHz(),
             enums.empty() ? "" : ", " + enums, hw.get(hw::Param::kDramBytesPerCycle),
             hw.get(hw::Param::kDramLatencyCycles), backend);
  // "bound" is what limits the layer at best (compute or memory) and "x bound" its cycles over
  // that limit; "min KiB" is the least DRAM traffic (every tensor once).
  // The name and shape columns as wide as their longest (an ONNX node's name is often a path:
  // /layer1/layer1.0/conv1/Conv).
  size_t nameWidth = 16, shapeWidth = 24;
  for (const LayerRun& r : runs) nameWidth = std::max(nameWidth, r.name.size()), shapeWidth = std::max(shapeWidth, r.shape.size());
  const std::string rowText = fmt::format("{{:>3}}  {{:<{}}} {{:<16}} {{:<{}}} {{:>11}} {{:>6}} {{:>6}} {{:>10}} {{:>11}} "
                                          "{{:>11}} {{:>9}} {{:>7}} {{:>7}} {{:>10}} {{:>9}}\n",
                                          nameWidth, shapeWidth);
  const char* row = rowText.c_str();
  fmt::print(out, fmt::runtime(row), "#", "layer", "operation", "shape", "cycles", "util%", "map%", "stall", "DRAM rd KiB",
             "DRAM wr KiB", "min KiB", "bound", "x bound", "energy uJ", "sim ms");
  codesign::EnergyBreakdown energy;
  uint64_t cycles = 0, rows = 0, macs = 0, rd = 0, wr = 0, minBytes = 0;
  double bounds = 0;
  double simulator = 0, prepare = 0, execute = 0;
  size_t reused = 0;
  uint64_t simulated = 0;  // cycles of the layers that ran
  for (size_t i = 0; i < runs.size(); ++i) {
    const LayerRun& r = runs[i];
    const ArrayFigures f = figures(r, hw);
    if (!r.reason.empty()) {
      fmt::print(out, "{:>3}  {:<{}} {:<16} {:<{}} on {}, not the accelerator (below)\n", i, r.name, nameWidth, r.op,
                 r.shape, shapeWidth, r.device);
      continue;
    }
    fmt::print(out, fmt::runtime(row), i, r.name, r.op, r.shape, r.cycles, fmt::format("{:.1f}", f.overall),
               fmt::format("{:.1f}", f.mapping), f.stall, fmt::format("{:.1f}", r.dramReadBytes / 1024.0),
               fmt::format("{:.1f}", r.dramWriteBytes / 1024.0), fmt::format("{:.1f}", r.minDramBytes / 1024.0),
               f.boundBy(), fmt::format("{:.2f}", f.overBound),
               fmt::format("{:.3f}", 1e-6 * estimator.energy(r.counters, r.registerAccesses).totalPj()),
               r.sameAs ? fmt::format("= #{}", *r.sameAs) : fmt::format("{:.3f}", 1e3 * r.simulatorSeconds));
    reused += r.sameAs ? 1 : 0;
    simulated += r.sameAs ? 0 : r.cycles;
    energy += estimator.energy(r.counters, r.registerAccesses);
    cycles += r.cycles, rows += r.arrayRows, macs += r.macs, rd += r.dramReadBytes, wr += r.dramWriteBytes;
    minBytes += r.minDramBytes, bounds += std::max(f.computeBound, f.bandwidthBound);
    simulator += r.simulatorSeconds, prepare += r.prepareSeconds, execute += r.executeSeconds;
  }
  const double pes = double(hw.rows()) * hw.cols();
  fmt::print(out, fmt::runtime(row), "", "total", "", "", cycles, fmt::format("{:.1f}", cycles ? 100.0 * macs / (pes * cycles) : 0),
             fmt::format("{:.1f}", rows ? 100.0 * macs / (pes * rows) : 0), cycles - std::min(cycles, rows),
             fmt::format("{:.1f}", rd / 1024.0), fmt::format("{:.1f}", wr / 1024.0),
             fmt::format("{:.1f}", minBytes / 1024.0), "", fmt::format("{:.2f}", bounds > 0 ? cycles / bounds : 0),
             fmt::format("{:.3f}", 1e-6 * energy.totalPj()), fmt::format("{:.3f}", 1e3 * simulator));
  const auto unclaimed = std::count_if(runs.begin(), runs.end(), [](const LayerRun& r) { return !r.reason.empty(); });
  if (unclaimed > 0) {
    fmt::print(out, "\n{} of {} layers are not the accelerator's (no device figures, not in the totals):\n", unclaimed,
               runs.size());
    for (size_t i = 0; i < runs.size(); ++i) {
      if (!runs[i].reason.empty()) fmt::print(out, "  #{} {} ({}) on {}: {}\n", i, runs[i].name, runs[i].op, runs[i].device, runs[i].reason);
    }
  }
  if (reused > 0) {
    fmt::print(out, "\n{} of {} layers are identical to an earlier one (\"= #k\" under sim ms) and report its figures "
               "without running again; --no-reuse runs each\n",
               reused, runs.size());
  }
  fmt::print(out, "\nenergy: {}\n", codesign::describe(energy));
  if (const auto device = sim::dramDeviceFor(hw)) {  // a cycle-level DRAM: its figures over the table
    if (const std::string line = dramLine(device->name, tableDramCounters(runs)); !line.empty()) {
      fmt::print(out, "{}\n", line);
    }
  }
  for (const auto& line : estimator.describe()) fmt::print(out, "{}\n", line);
  fmt::print(out, "\nsimulator ({}): {} cycles in {:.4f} s = {:.0f} simulated cycles/s\n", backend, simulated,
             simulator, simulator > 0 ? simulated / simulator : 0);
  const bool overlapped = std::any_of(runs.begin(), runs.end(), [](const LayerRun& r) { return r.compiledAhead; });
  fmt::print(out, "wall time: {:.3f} s (building and compiling {:.3f} s, executing {:.3f} s{})\n", wallSeconds, prepare,
             execute, overlapped ? "; layers compiled while others ran, so the two overlap" : "");
  const auto again = std::count_if(runs.begin(), runs.end(), [](const LayerRun& r) { return r.againAlone; });
  if (again > 0) {
    fmt::print(out, "{} layer(s) did not fit the DRAM beside the layers compiling ahead and ran again without them "
               "(the same figures; --compile-ahead 0 compiles one layer at a time)\n", again);
  }
}

// weft's figures for --compare-to, in SCALE-Sim's terms (the COMPUTE_REPORT form's).
std::vector<WeftLayerFigures> weftFigures(const std::vector<LayerRun>& runs, const hw::HwConfig& hw) {
  std::vector<WeftLayerFigures> out;
  for (const LayerRun& r : runs) {
    const ArrayFigures f = figures(r, hw);
    out.push_back({r.name, r.cycles, f.stall, r.macs, f.overall, f.mapping});
  }
  return out;
}

}  // namespace

int runLayers(const LayersOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  // An ONNX model's operations (OnnxLayers.h), or a layer set or SCALE-Sim table's layers; either
  // loads whole, its errors before anything runs or is written.
  std::optional<LoadedOnnx> onnxModel;
  LayerTable table;
  std::vector<std::string> names;
  if (isOnnxModel(options.tablePath)) {
    onnxModel.emplace(loadOnnx(options.tablePath, options.onnx));
    table.name = onnxModel->name;
    table.format = onnxModel->quantized ? "ONNX model, quantized to int8" : "ONNX model";
    names = onnxLayerNames(*onnxModel);
  } else {
    const OnnxModelOptions& o = options.onnx;
    if (!o.shapes.empty() || !o.inputs.empty() || o.relaxed || !o.quantize.empty() || !o.calibrationDir.empty()) {
      throw std::invalid_argument(fmt::format("--shape, --input, --relaxed, --quantize and --calibration are for ONNX "
                                              "models; {} is not one",
                                              options.tablePath));
    }
    table = loadLayerTable(options.tablePath);
    for (const LayerEntry& l : table.layers) names.push_back(l.name);
  }
  const hw::HwConfig hw = hw::HwConfig::load(envOr("WEFT_HW", "weft16"));
  const std::string backend = envOr("WEFT_BACKEND", "rtl");
  if (backend == "timing" && !options.outputsPath.empty()) {
    throw std::invalid_argument("--outputs: the timing backend computes no outputs; use --backend approx or rtl");
  }
  const codesign::Estimator estimator(hw, options.energyModelPath);  // a bad model file fails before running
  const DramCountersScope dramCounters(hw);
  std::optional<ScaleSimReport> scalesim;  // read before running, so that a bad one writes nothing
  if (!options.compareToPath.empty()) {
    scalesim = loadComputeReport(options.compareToPath, names);
  }

  LayerRunOptions run;
  run.repeat = options.repeat;
  run.keepOutputs = !options.outputsPath.empty();
  run.cacheDir = options.cacheDir;
  run.cacheSalt = hw.toJson();
  run.dramBytes = hw.dramBytes();
  run.reuseIdentical =
      !options.noReuse && options.outputsPath.empty() && options.tracePath.empty() && options.repeat <= 1;
  // Compiling the next layers while one executes: not when host times are measured per layer
  // (--repeat, --trace's host tracks), which overlapping compilations would blur. Nor with a
  // cycle-level DRAM: a layer compiled ahead is placed around whatever the others hold in DRAM at
  // that moment, which depends on the threads' timing, and such a DRAM's cycles depend on the
  // addresses (channel, bank, row): the figures would change from run to run (and between the
  // rtl and approx runs of weft validate). The simple pipe does not see addresses.
  const bool cycleLevelDram = hw.getEnum<hw::Param::kDram>() != hw::Dram::kSimple;
  if (options.tracePath.empty() && options.repeat <= 1 && !cycleLevelDram) run.prepareAhead = options.compileAhead;
  if (backend == "timing") {
    run.values = TensorValues::kZeroPages;  // nothing reads them; the cache keeps the two apart
    run.cacheSalt += "|zero-page tensors";
  }
  if (!options.quiet) {
    fmt::print(stderr, "weft: {} layers of {} on the accelerator ({} backend, {})\n", names.size(),
               table.name, backend, hw.name());
    run.onLayer = [](size_t i, size_t n, const std::string& name) {
      fmt::print(stderr, "[{:>3}/{}] {}\n", i + 1, n, name);
    };
  }
  // A trace shows every command: the device records per-command timelines (DeviceQueue).
  if (!options.tracePath.empty()) {
    setenv("WEFT_COMMAND_TRACE", "1", 1);
    run.traceCommandLimit = options.traceLimit;
  }
  const std::vector<LayerRun> runs = onnxModel ? runOnnxLayers(*onnxModel, hw, run) : runLayerTable(table, run);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  printTable(table, runs, hw, backend, wall, estimator, std::cout);
  const bool referenceFailed = onnxModel && !printReferenceCheck(runs);
  if (!options.outputsPath.empty()) {
    std::string bytes;
    for (const LayerRun& r : runs) bytes.append(reinterpret_cast<const char*>(r.output.data()), r.output.size());
    writeOutputFile(options.outputsPath, bytes);
  }
  const std::string stem = defaultReportStem(table.name, backend, envOr("WEFT_HW", "weft16"));
  const std::string jsonPath = options.jsonPath.empty() ? stem + ".json" : options.jsonPath;
  const std::string reportPath =
      options.computeReportPath.empty() ? stem + "-COMPUTE_REPORT.csv" : options.computeReportPath;
  writeOutputFile(jsonPath, jsonReport(table, runs, hw, backend, wall, options.outputsPath, estimator));
  writeOutputFile(reportPath, computeReport(runs, hw));
  if (!options.csvPath.empty()) writeOutputFile(options.csvPath, csvReport(runs, hw, estimator));
  fmt::print("reports written to {} and {}{}\n", jsonPath, reportPath, options.csvPath.empty() ? "" : " and " + options.csvPath);
  if (scalesim) {
    ScaleSimComparison c = compareWithScaleSim(*scalesim, weftFigures(runs, hw), hw.rows(), hw.cols());
    c.table = table.name, c.hw = hw.name(), c.backend = backend;
    printComparison(c, std::cout);
    const std::string csv = options.compareCsvPath.empty() ? stem + "-vs-scalesim.csv" : options.compareCsvPath;
    const std::string json = options.compareJsonPath.empty() ? stem + "-vs-scalesim.json" : options.compareJsonPath;
    writeOutputFile(csv, comparisonCsv(c));
    writeOutputFile(json, comparisonJson(c).dump(2) + "\n");
    fmt::print("comparison written to {} and {}\n", csv, json);
  }
  if (!options.tracePath.empty()) {
    TraceBudget kept;
    for (const LayerRun& r : runs) {
      kept.commands += r.commands.size();
      kept.dramCommands += r.dramCommands.size();
      kept.cut = kept.cut || r.traceTruncated;
    }
    if (kept.cut) fmt::print(stderr, "weft: the trace shows {}; later ones are left out\n", traceKeptText(kept));
    writeOutputFile(options.tracePath, layersTrace(table, runs, hw, backend, estimator, kept));
    fmt::print("trace written to {} (open it in ui.perfetto.dev)\n", options.tracePath);
  }
  if (!options.htmlPath.empty()) {
    const int html = writeHtmlReport({{jsonPath}, options.htmlPath, ""});
    if (html != 0) return html;
  }
  return referenceFailed ? 1 : 0;
}

}  // namespace weft::tool
