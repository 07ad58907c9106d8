#include "RunCommand.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <iostream>
#include <map>
#include <optional>
#include <string_view>
#include <unistd.h>

#include "ApiModelBuilder.h"
#include "DramCounters.h"
#include "Estimator.h"
#include "ResultChecker.h"
#include "TestModelLoader.h"
#include "HtmlReport.h"
#include "Trace.h"
#include "NetworkModel.h"
#include "Npy.h"
#include "OnnxQuantize.h"
#include "OnnxRun.h"
#include "Report.h"
#include "ReportNames.h"
#include "SingleLayer.h"
#include "weft/common/locations.h"
#include "weft/hw/config.h"
#include "weft/runtime/Profile.h"
#include "weft/sim/dram_config.h"

namespace weft::tool {
namespace {

using Clock = std::chrono::steady_clock;

struct Outputs {
  std::vector<std::vector<uint8_t>> layers;  // one buffer per layer output
};

Outputs allocateOutputs(const Network& net) {
  Outputs o;
  for (const auto& l : net.layers) {
    size_t n = 1;
    for (uint32_t d : l.outputShape) n *= d;
    o.layers.emplace_back(n);
  }
  return o;
}

// Runs one execution of `compilation`; returns the wall time in seconds.
double execute(ANeuralNetworksCompilation* compilation, const Network& net, Outputs& out, bool measure,
               ExecutionPtr& keep) {
  ANeuralNetworksExecution* raw = nullptr;
  check(ANeuralNetworksExecution_create(compilation, &raw), "ANeuralNetworksExecution_create");
  keep.reset(raw);
  for (size_t i = 0; i < net.inputCount(); ++i) {
    const uint64_t bytes = net.inputBytes(i);
    check(ANeuralNetworksExecution_setInput(raw, static_cast<int32_t>(i), nullptr,
                                            bytesOrZeroPages(net.inputData(i), bytes), bytes),
          "ANeuralNetworksExecution_setInput");
  }
  for (size_t i = 0; i < out.layers.size(); ++i) {
    check(ANeuralNetworksExecution_setOutput(raw, static_cast<int32_t>(i), nullptr, out.layers[i].data(),
                                             out.layers[i].size()),
          "ANeuralNetworksExecution_setOutput");
  }
  if (measure) check(ANeuralNetworksExecution_setMeasureTiming(raw, true), "ANeuralNetworksExecution_setMeasureTiming");
  const auto start = Clock::now();
  check(ANeuralNetworksExecution_compute(raw), "ANeuralNetworksExecution_compute");
  return std::chrono::duration<double>(Clock::now() - start).count();
}

CompilationPtr compile(ANeuralNetworksModel* model, const std::vector<ANeuralNetworksDevice*>& devices,
                       int32_t preference = ANEURALNETWORKS_PREFER_FAST_SINGLE_ANSWER) {
  ANeuralNetworksCompilation* raw = nullptr;
  if (devices.empty()) {
    check(ANeuralNetworksCompilation_create(model, &raw), "ANeuralNetworksCompilation_create");
  } else {
    check(ANeuralNetworksCompilation_createForDevices(model, devices.data(), static_cast<uint32_t>(devices.size()),
                                                      &raw),
          "ANeuralNetworksCompilation_createForDevices");
  }
  CompilationPtr compilation(raw);
  check(ANeuralNetworksCompilation_setPreference(raw, preference), "ANeuralNetworksCompilation_setPreference");
  check(ANeuralNetworksCompilation_finish(raw), "ANeuralNetworksCompilation_finish");
  return compilation;
}

// The profile has an entry per layer; an operation lowered to several (BATCH_MATMUL: a layer per
// product, and an adj_x transpose before them) is reported once, its layers' sums. Its unit, rate
// and mapping are its array layers' when it has any (the vector unit's lane operations then
// leave its MACs alone), else its first measured layer's.
std::vector<hal::OperationProfile> perOperation(const std::vector<hal::OperationProfile>& layers) {
  std::vector<hal::OperationProfile> ops;
  for (const hal::OperationProfile& l : layers) {
    if (ops.empty() || ops.back().operationIndex != l.operationIndex) {
      ops.push_back(l);
      continue;
    }
    hal::OperationProfile& op = ops.back();
    op.cycles += l.cycles;
    op.estimatedCycles += l.estimatedCycles;
    op.onHardwareNs += l.onHardwareNs;
    op.inDriverNs += l.inDriverNs;
    op.dramReadBytes += l.dramReadBytes;
    op.dramWriteBytes += l.dramWriteBytes;
    for (const auto& [name, value] : l.counters) {
      auto it = std::find_if(op.counters.begin(), op.counters.end(), [&](const auto& c) { return c.first == name; });
      if (it == op.counters.end()) {
        op.counters.emplace_back(name, value);
      } else {
        it->second += value;
      }
    }
    if (l.peakOpsPerCycle == 0) continue;
    if (op.peakOpsPerCycle == 0 || (l.unit == "array" && op.unit != "array")) {
      op.unit = l.unit, op.peakOpsPerCycle = l.peakOpsPerCycle, op.mapping = l.mapping, op.macs = l.macs;
    } else if (l.unit == op.unit) {
      op.macs += l.macs;
    }
  }
  return ops;
}

// `measured`: the execution measured NNAPI's durations, which only a compilation for the
// accelerator alone can (createForDevices with one device).
// A DramCountersScope around the execution gives a cycle-level DRAM's counters.
void fillTiming(RunReport& report, const ANeuralNetworksExecution* execution,
                const std::vector<runtime::CompilationStep>& steps, const hw::HwConfig& hwConfig,
                const codesign::Estimator& estimator, bool measured) {
  for (const auto& profile : runtime::getExecutionProfiles(execution)) {
    report.simulatorWallSeconds += profile.simulatorWallSeconds;
    report.simulatedCycles += profile.simulatedCycles;
    // The execution's register accesses belong to no one layer: they count in the total only.
    if (profile.deviceCycles > 0) report.acceleratorEnergy += estimator.energy({}, profile.registerAccesses);
    if (!profile.commands.empty()) {
      // Its first layer starts where the layers laid out so far end.
      DeviceCommands c;
      for (size_t index : report.deviceOrder) c.atCycle += report.layers[index].cycles;
      c.cols = report.cols;
      c.commands = profile.commands;
      c.dram = profile.dramRequests;
      c.dramCommands = profile.dramCommands;
      report.commands.push_back(std::move(c));
    }
    for (const auto& op : perOperation(profile.operations)) {
      if (op.operationIndex >= report.layers.size()) continue;
      LayerReport& l = report.layers[op.operationIndex];
      l.cycles = op.cycles;
      l.estimatedCycles = op.estimatedCycles;
      l.onHardwareNs = op.onHardwareNs;
      l.inDriverNs = op.inDriverNs;
      if (op.macs > 0) l.macs = op.macs;
      l.dramReadBytes = op.dramReadBytes;
      l.dramWriteBytes = op.dramWriteBytes;
      if (op.cycles > 0 && op.peakOpsPerCycle > 0) {
        l.unit = op.unit;
        l.peakOpsPerCycle = op.peakOpsPerCycle;
        l.mapping = op.mapping;
        const double cycles = static_cast<double>(op.cycles);
        l.utilization = static_cast<double>(l.macs) / (static_cast<double>(op.peakOpsPerCycle) * cycles);
        auto counter = [&](std::string_view name) -> double {
          for (const auto& [n, v] : op.counters) {
            if (n == name) return static_cast<double>(v);
          }
          return 0;
        };
        l.arrayBusy = counter("COMPUTE_ACTIVE") / cycles;
        l.vectorBusy = counter("VECTOR_ACTIVE") / cycles;
        l.loadBusy = counter("LOAD_ACTIVE") / cycles;
        l.storeBusy = counter("STORE_ACTIVE") / cycles;
        l.dramStall = std::min(1.0, (counter("STALL_DRAM_RD") + counter("STALL_DRAM_WR")) / cycles);
        l.energy = estimator.energy(op.counters, 0);
        for (const auto& [name, value] : op.counters) {
          if (name.rfind("DRAM_", 0) == 0) l.dramCounters.emplace_back(name, value);
        }
        report.deviceOrder.push_back(op.operationIndex);
        report.acceleratorEnergy += l.energy;
      }
    }
  }
  appendDramCounterDeltas(report.dramCounters);
  if (!report.dramCounters.empty()) report.dramDevice = sim::dramDeviceFor(hwConfig)->name;
  attributeDramEnergy(report);
  if (measured) {
    uint64_t onHw = 0, inDriver = 0;
    check(ANeuralNetworksExecution_getDuration(execution, ANEURALNETWORKS_DURATION_ON_HARDWARE, &onHw),
          "ANeuralNetworksExecution_getDuration");
    check(ANeuralNetworksExecution_getDuration(execution, ANEURALNETWORKS_DURATION_IN_DRIVER, &inDriver),
          "ANeuralNetworksExecution_getDuration");
    if (onHw != UINT64_MAX) {
      report.nnapiOnHardwareNs = onHw;
      report.nnapiInDriverNs = inDriver;
    } else {
      report.nnapiDurationNote = "the device did not report them";
    }
  } else if (steps.size() > 1) {
    report.nnapiDurationNote = fmt::format("the compilation spans {} steps on several devices; NNAPI reports "
                                           "UINT64_MAX then, per-layer figures above come from the devices",
                                           steps.size());
  } else {
    report.nnapiDurationNote = "the accelerator runs none of the operations";
  }
}

// The largest difference of two outputs in quant8 units. A signed network's bytes are int8:
// 0xFF against 0x00 is -1 against 0, one unit apart.
int worstDifference(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b, bool isSigned) {
  const auto value = [isSigned](uint8_t x) { return isSigned ? int{static_cast<int8_t>(x)} : int{x}; };
  int worst = 0;
  for (size_t e = 0; e < a.size(); ++e) worst = std::max(worst, std::abs(value(a[e]) - value(b[e])));
  return worst;
}

// Layer `index` alone on the CPU reference device, on the tensors the accelerated run gave it.
std::vector<uint8_t> referenceOnAcceleratorInputs(const Network& net, size_t index, const Outputs& accel,
                                                  ANeuralNetworksDevice* cpu) {
  Network alone = singleLayerNetwork(net, index, 0, TensorValues::kNone);
  const Layer& l = net.layers[index];
  for (size_t k = 0; k < l.inputs.size(); ++k) {
    const int source = l.inputs[k];
    std::vector<uint8_t> data = source >= 0 ? accel.layers[static_cast<size_t>(source)]
                                            : net.inputData(static_cast<size_t>(kNetworkInput - source));
    (k == 0 ? alone.input : alone.extraInputs[k - 1].data) = std::move(data);
  }
  ModelPtr model = buildModel(alone);
  CompilationPtr compilation = compile(model.get(), {cpu});
  Outputs out = allocateOutputs(alone);
  ExecutionPtr execution;
  execute(compilation.get(), alone, out, false, execution);
  return std::move(out.layers.front());
}

// Each layer's output against the CPU-only run of the whole network. Where a layer differs by
// more than the tolerance, differences may have built up through the layers before it (a deep
// transformer's softmax turns a unit of its input into several of its output), so the layer is
// also run alone on the CPU on the accelerator's own inputs: that, NNAPI's per-operation
// tolerance, decides; the end-to-end difference stays in the report as the layer's drift.
void compare(RunReport& report, const Network& net, const Outputs& accel, const Outputs& reference,
             ANeuralNetworksDevice* cpu) {
  std::vector<size_t> drifted;
  for (size_t i = 0; i < accel.layers.size(); ++i) {
    LayerReport& layer = report.layers[i];
    layer.driftError = worstDifference(accel.layers[i], reference.layers[i], net.isSigned);
    layer.maxError = layer.driftError;
    if (layer.driftError > report.tolerance) drifted.push_back(i);
  }
  // The drifted layers alone on the CPU, shared by two threads (each a model of its own).
  std::vector<int> local(drifted.size());
  auto check = [&](size_t first) {
    for (size_t k = first; k < drifted.size(); k += 2) {
      local[k] = worstDifference(accel.layers[drifted[k]], referenceOnAcceleratorInputs(net, drifted[k], accel, cpu),
                                 net.isSigned);
    }
  };
  auto second = std::async(std::launch::async, check, 1);
  check(0);
  second.get();
  for (size_t k = 0; k < drifted.size(); ++k) {
    LayerReport& layer = report.layers[drifted[k]];
    layer.maxError = local[k];
    if (layer.driftError > report.worstDrift) {
      report.worstDrift = layer.driftError;
      report.worstDriftLayer = layer.name;
    }
  }
  report.driftedLayers = drifted.size();
  report.referencePassed = true;
  for (const LayerReport& layer : report.layers) {
    if (layer.maxError > report.worstError || report.worstLayer.empty()) {
      report.worstError = layer.maxError;
      report.worstLayer = layer.name;
    }
    if (layer.maxError > report.tolerance && report.referencePassed) {
      report.referencePassed = false;
      report.firstFailingLayer = layer.name;
    }
  }
}

// Prints which layer runs and, on the accelerator, its device cycles so far: on a terminal as
// one line rewritten in place, otherwise as a line per event.
class ProgressDisplay {
 public:
  explicit ProgressDisplay(const Network& net) : net_(net), tty_(isatty(STDERR_FILENO) != 0) {
    runtime::setProgressListener([this](const runtime::ProgressEvent& e) { show(e); });
  }
  ~ProgressDisplay() {
    runtime::setProgressListener({});
    if (tty_ && shown_) fmt::print(stderr, "\n");
  }

 private:
  void show(const runtime::ProgressEvent& e) {
    if (e.operations.empty()) return;
    const size_t first = e.operations.front() + std::min(e.operationsDone, e.operations.size() - 1);
    const std::string layer = first < net_.layers.size() ? net_.layers[first].name : "?";
    std::string line = fmt::format("[{:>3}/{}] {} on {}", first + 1, net_.layers.size(), layer, e.device);
    if (e.deviceCycles > 0) {
      line += fmt::format(": {:.2f} M cycles", e.deviceCycles / 1e6);
      if (e.estimatedCycles > 0) line += fmt::format(" (step estimate {:.2f} M)", e.estimatedCycles / 1e6);
    }
    if (tty_) {
      fmt::print(stderr, "\r{:<100}", line);
    } else {
      fmt::print(stderr, "{}\n", line);
    }
    shown_ = true;
  }

  const Network& net_;
  bool tty_;
  bool shown_ = false;
};

// The accelerator's layers in device order on the device timeline; compiling, the accelerated
// and the reference run on the host's.
std::string runTrace(const RunReport& r) {
  std::vector<DeviceSpan> device;
  for (size_t index : r.deviceOrder) {
    const LayerReport& l = r.layers[index];
    DeviceSpan s;
    s.name = l.name;
    s.cycles = l.cycles;
    s.args = {{"index", l.index}, {"operation", l.op}, {"unit", l.unit}, {"cycles", l.cycles}, {"macs", l.macs},
              {"utilization", l.utilization}, {"boundBy", boundBy(l)}, {"dramReadBytes", l.dramReadBytes},
              {"dramWriteBytes", l.dramWriteBytes}, {"energyPj", l.energy.totalPj()}};
    s.arrayBusy = l.arrayBusy, s.vectorBusy = l.vectorBusy, s.loadBusy = l.loadBusy, s.storeBusy = l.storeBusy;
    s.dramStall = l.dramStall;
    s.dramReadBytes = l.dramReadBytes, s.dramWriteBytes = l.dramWriteBytes;
    device.push_back(std::move(s));
  }
  const std::vector<HostSpan>& host = r.hostSpans;
  nlohmann::ordered_json metadata = {
      {"tool", "weft run"}, {"network", r.network}, {"backend", r.backend}, {"hw", r.hwConfig}};
  if (r.traceKept.cut) metadata["commandsTruncated"] = commandsTruncatedNote(r.traceKept);
  return buildTrace(fmt::format("weft-accel: {}", r.network), r.clockMHz, device, host, metadata, r.commands);
}

std::string envOr(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? v : fallback;
}

// A report for `name` on this process's device configuration, its estimates' header filled.
RunReport newReport(const std::string& name, const hw::HwConfig& hwConfig, const codesign::Estimator& estimator,
                    const RunOptions& options) {
  RunReport report;
  report.network = name;
  report.backend = envOr("WEFT_BACKEND", "rtl");
  report.hwConfig = hwConfig.name();
  report.rows = hwConfig.rows();
  report.cols = hwConfig.cols();
  report.clockMHz = hwConfig.clockMHz();
  report.dramBytesPerCycle = hwConfig.get(hw::Param::kDramBytesPerCycle);
  report.hwEnums = hwConfig.enumParamsText();
  report.hwParams = nlohmann::ordered_json::parse(hwConfig.toJson())["params"];
  report.tolerance = options.tolerance;
  report.estimateLines = estimator.describe();
  report.estimates = estimator.json();
  return report;
}

// The JSON and CSV reports, the trace and the HTML page the options ask for; the exit code.
int writeReports(const RunReport& report, const RunOptions& options) {
  printTable(report, std::cout);
  const std::string stem = defaultReportStem(report.network, report.backend, envOr("WEFT_HW", "weft16"));
  const std::string jsonPath = options.jsonPath.empty() ? stem + ".json" : options.jsonPath;
  const std::string csvPath = options.csvPath.empty() ? stem + ".csv" : options.csvPath;
  writeOutputFile(jsonPath, toJson(report));
  writeOutputFile(csvPath, toCsv(report));
  fmt::print("report written to {} and {}\n", jsonPath, csvPath);
  if (!options.tracePath.empty()) {
    if (report.traceKept.cut) {
      fmt::print(stderr, "weft: the trace shows {}; later ones are left out\n", traceKeptText(report.traceKept));
    }
    writeOutputFile(options.tracePath, runTrace(report));
    fmt::print("trace written to {} (open it in ui.perfetto.dev)\n", options.tracePath);
  }
  if (!options.htmlPath.empty() && writeHtmlReport({{jsonPath}, options.htmlPath, ""}) != 0) return 2;
  return !report.referenceChecked || report.referencePassed ? 0 : 1;
}

// --save-outputs for a network: its outputs are the layers no later layer reads, each written as
// DIR/<layer>.npy in float32 (dequantized) and listed in the report.
void saveNetworkOutputs(const Network& net, const Outputs& accel, const std::string& dir, nlohmann::ordered_json& extra) {
  std::vector<bool> read(net.layers.size(), false);
  for (const Layer& l : net.layers) {
    for (int source : l.inputs) {
      if (source >= 0) read[static_cast<size_t>(source)] = true;
    }
  }
  nlohmann::ordered_json listed = nlohmann::ordered_json::array();
  for (size_t i = 0; i < net.layers.size(); ++i) {
    if (read[i]) continue;
    const Layer& l = net.layers[i];
    nlohmann::ordered_json entry = {{"name", l.name}, {"shape", l.outputShape}};
    if (!dir.empty()) {
      onnx::HostTensor t(onnx::DType::kFloat, onnx::Shape(l.outputShape.begin(), l.outputShape.end()));
      float* values = reinterpret_cast<float*>(t.bytes.data());
      for (size_t e = 0; e < accel.layers[i].size(); ++e) {
        const int q = net.isSigned ? int(int8_t(accel.layers[i][e])) : int(accel.layers[i][e]);
        values[e] = static_cast<float>((q - l.outputQuant.zeroPoint) * double(l.outputQuant.scale));
      }
      common::createDirectories(dir);
      const std::string file = (std::filesystem::path(dir) / (npyFileName(l.name) + ".npy")).string();
      onnx::writeNpy(file, t);
      entry["file"] = file;
    }
    listed.push_back(std::move(entry));
  }
  extra["outputs"] = std::move(listed);
  if (!dir.empty()) fmt::print("outputs written to {}/\n", dir);
}

// Whether `path` holds a case of the AOSP conformance corpus (SCHEMA.md) rather than a network
// description: its top level has the operands, operations and input indexes of a model.
bool isCorpusCase(const std::string& path) {
  std::ifstream in(path);
  if (!in) return false;
  const auto doc = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  return doc.is_object() && doc.contains("operands") && doc.contains("operations") && doc.contains("inputIndexes");
}

}  // namespace

// A model run as an NNAPI application would run it: built through the C API, compiled for the
// accelerator alone when it claims every operation (else partitioned with the CPU), executed on
// the inputs the model's input operands hold, its outputs checked by `modelCase.check`, with the
// per-operation timing report of a network.
int runModelCase(const ModelCase& modelCase, const RunOptions& options) {
  const test::TestModel& model = *modelCase.model;
  const test::TestSubgraph& main = model.main;
  const std::string& origin = modelCase.origin;
  if (!model.referenced.empty()) {
    throw std::runtime_error(fmt::format("{}: control flow (IF/WHILE) runs on the CPU only", origin));
  }
  const hw::HwConfig hwConfig = hw::HwConfig::load(envOr("WEFT_HW", "weft16"));
  const codesign::Estimator estimator(hwConfig, options.energyModelPath);
  RunReport report = newReport(modelCase.name, hwConfig, estimator, options);
  report.extra = modelCase.reportExtra;
  if (!options.tracePath.empty()) setenv("WEFT_COMMAND_TRACE", "1", 1);
  const auto origin0 = Clock::now();
  const auto since = [&](Clock::time_point t) { return std::chrono::duration<double>(t - origin0).count(); };

  test::ApiModelBuilder builder(model);
  if (builder.model() == nullptr) {
    throw std::runtime_error(fmt::format("{}: building the model failed: {}", origin, builder.failure()));
  }
  ANeuralNetworksDevice* accelerator = findDevice(ANEURALNETWORKS_DEVICE_ACCELERATOR);
  const size_t count = main.operations.size();
  std::unique_ptr<bool[]> supported(new bool[std::max<size_t>(1, count)]);
  check(ANeuralNetworksModel_getSupportedOperationsForDevices(builder.model(), &accelerator, 1, supported.get()),
        "ANeuralNetworksModel_getSupportedOperationsForDevices");
  const bool whole = std::all_of(supported.get(), supported.get() + count, [](bool s) { return s; });
  const auto compileStart = Clock::now();
  CompilationPtr compilation =
      compile(builder.model(), whole ? std::vector<ANeuralNetworksDevice*>{accelerator} : std::vector<ANeuralNetworksDevice*>{},
              options.preference);
  report.compileWallSeconds = since(Clock::now()) - since(compileStart);
  report.hostSpans.push_back({"NNAPI calls", "ANeuralNetworksCompilation_create/finish", report.compileWallSeconds,
                              since(compileStart)});
  const auto devices = runtime::getOperationDevices(compilation.get());
  const auto steps = runtime::getCompilationSteps(compilation.get());
  // Why the accelerator left operations to the CPU, in its driver's words.
  const auto reasons = whole ? std::map<uint32_t, std::string>{} : runtime::getUnsupportedReasons(builder.model(), accelerator);
  auto operandBytes = [&](uint32_t o) {
    const test::TestOperand& t = main.operands[o];
    return uint64_t{t.data.size()} > 0 ? uint64_t{t.data.size()}
                                      : nn::numberOfElements(t.dimensions) * test::testElementSize(t.type);
  };
  for (size_t i = 0; i < count; ++i) {
    const test::TestOperation& op = main.operations[i];
    LayerReport row;
    row.index = i;
    row.op = model.operationName(op.type);
    row.name = i < modelCase.operationNames.size() && !modelCase.operationNames[i].empty()
                   ? modelCase.operationNames[i]
                   : fmt::format("{}#{}", row.op, i);
    row.device = i < devices.size() ? devices[i] : "?";
    if (const auto why = reasons.find(static_cast<uint32_t>(i)); why != reasons.end()) row.reason = why->second;
    for (uint32_t o : op.inputs) {
      const test::TestOperand& t = main.operands[o];
      if (t.dimensions.empty()) continue;  // scalar parameters
      row.inputs.push_back(t.name.empty() ? fmt::format("operand {}", o) : t.name);
      row.minDramBytes += operandBytes(o);
    }
    for (uint32_t o : op.outputs) row.minDramBytes += operandBytes(o);
    report.layers.push_back(std::move(row));
  }
  if (!options.quiet) {
    fmt::print(stderr, "weft: {}: {} operations, {} on {} ({} backend){}; running...\n", modelCase.name, count,
               std::count(devices.begin(), devices.end(), deviceName(accelerator)), deviceName(accelerator),
               report.backend, whole ? "" : ", the rest on the CPU");
  }

  ANeuralNetworksExecution* raw = nullptr;
  check(ANeuralNetworksExecution_create(compilation.get(), &raw), "ANeuralNetworksExecution_create");
  ExecutionPtr execution(raw);
  for (size_t i = 0; i < main.inputIndexes.size(); ++i) {
    const test::TestBuffer& data = main.operands[main.inputIndexes[i]].data;
    check(ANeuralNetworksExecution_setInput(raw, static_cast<int32_t>(i), nullptr, data.empty() ? nullptr : data.data(),
                                            data.size()),
          "ANeuralNetworksExecution_setInput");
  }
  std::vector<std::vector<uint8_t>> outputs(main.outputIndexes.size());
  for (size_t i = 0; i < outputs.size(); ++i) {
    outputs[i].resize(std::max<size_t>(1, operandBytes(main.outputIndexes[i])));
    check(ANeuralNetworksExecution_setOutput(raw, static_cast<int32_t>(i), nullptr, outputs[i].data(),
                                             outputs[i].size()),
          "ANeuralNetworksExecution_setOutput");
  }
  if (whole) check(ANeuralNetworksExecution_setMeasureTiming(raw, true), "ANeuralNetworksExecution_setMeasureTiming");
  const DramCountersScope dramCounters(hwConfig);  // a cycle-level DRAM's counters, at the program's end
  const auto runStart = Clock::now();
  check(ANeuralNetworksExecution_compute(raw), fmt::format("ANeuralNetworksExecution_compute({})", modelCase.name));
  report.runWallSeconds = since(Clock::now()) - since(runStart);
  report.hostSpans.push_back({"NNAPI calls", "ANeuralNetworksExecution_compute", report.runWallSeconds,
                              since(runStart)});
  fillTiming(report, raw, steps, hwConfig, estimator, whole);
  // A float16 (or relaxed float32) model on a configuration without the fp16 datapath runs on the
  // CPU: say which configuration would run it on the accelerator.
  const bool halfTensors = std::any_of(main.operands.begin(), main.operands.end(), [&](const test::TestOperand& t) {
    return t.type == nn::OperandType::TENSOR_FLOAT16 || (t.type == nn::OperandType::TENSOR_FLOAT32 && model.isRelaxed);
  });
  if (!hwConfig.fp16() && halfTensors && !report.nnapiDurationNote.empty()) {
    report.nnapiDurationNote += fmt::format("; {} has no fp16 datapath (Fp16 0): --hw weft16fp runs float operations "
                                            "on the accelerator",
                                            hwConfig.name());
  }
  if (options.traceLimit > 0) report.traceKept = keepFirstCommands(report.commands, options.traceLimit);

  report.referenceChecked = report.backend != "timing";
  if (report.referenceChecked) {
    const test::CheckReport checked = modelCase.check(outputs);
    report.referencePassed = checked.ok();
    report.referenceRule = modelCase.rule;
    report.referenceFailures = checked.ok() ? "" : checked.summary() + "\n";
    if (modelCase.onOutputs) modelCase.onOutputs(outputs, report.extra);
  }
  return writeReports(report, options);
}

namespace {

// `weft run <case.json>`: one case of the conformance corpus, checked against the case's expected
// outputs with NNAPI's tolerances.
int runCorpusCase(const RunOptions& options) {
  auto loaded = test::loadTestModel(options.networkPath);
  if (!loaded.ok()) throw std::runtime_error(fmt::format("{}: {}", options.networkPath, loaded.error().message));
  const test::TestModel& model = *loaded;
  ModelCase modelCase;
  modelCase.model = &model;
  modelCase.name = model.name;
  modelCase.origin = options.networkPath;
  modelCase.rule = "every output within NNAPI's tolerance of the case's expected values";
  modelCase.check = [&](const std::vector<std::vector<uint8_t>>& outputs) {
    std::vector<test::TestBuffer> actual;
    for (const auto& o : outputs) actual.emplace_back(o.data(), o.size());
    return test::checkResults(model, actual);
  };
  return runModelCase(modelCase, options);
}

}  // namespace

int runNetwork(const RunOptions& options) {
  if (isOnnxModel(options.networkPath)) return runOnnx(options);
  if (!options.quantize.empty() || !options.calibrationDir.empty()) {
    throw std::invalid_argument(fmt::format("--quantize and --calibration are for ONNX float models; {} is not one",
                                            options.networkPath));
  }
  if (isCorpusCase(options.networkPath)) return runCorpusCase(options);
  // The timing backend reads no values: no weights or inputs drawn (zero pages instead).
  const bool timing = envOr("WEFT_BACKEND", "rtl") == "timing";
  const Network net = loadNetwork(options.networkPath, timing ? TensorValues::kZeroPages : TensorValues::kDrawn);
  const hw::HwConfig hwConfig = hw::HwConfig::load(envOr("WEFT_HW", "weft16"));
  const codesign::Estimator estimator(hwConfig, options.energyModelPath);  // a bad model file fails before running
  RunReport report = newReport(net.name, hwConfig, estimator, options);

  // A trace shows every command: the device records per-command timelines (DeviceQueue).
  if (!options.tracePath.empty()) setenv("WEFT_COMMAND_TRACE", "1", 1);
  const auto origin = Clock::now();
  const auto since = [&](Clock::time_point t) { return std::chrono::duration<double>(t - origin).count(); };
  auto& host = report.hostSpans;
  ANeuralNetworksDevice* accelerator = findDevice(ANEURALNETWORKS_DEVICE_ACCELERATOR);
  ANeuralNetworksDevice* cpu = findDevice(ANEURALNETWORKS_DEVICE_CPU);
  const auto buildStart = Clock::now();
  ModelPtr model = buildModel(net);
  host.push_back({"NNAPI calls", "ANeuralNetworksModel_* (build the model)", since(Clock::now()) - since(buildStart),
                  since(buildStart)});

  // The reference run: the same model on the CPU reference device alone, on a thread of its own
  // beside the accelerated compilation and run (the two share nothing but the finished model;
  // on two cores BERT-base's check then costs no wall time of its own). Not on the timing
  // backend, whose accelerator computes no outputs to check.
  report.referenceChecked = report.backend != "timing";
  struct ReferenceRun {
    Outputs outputs;
    double compileStart = 0, compileSeconds = 0, runStart = 0, runSeconds = 0;
  };
  std::future<ReferenceRun> reference;
  if (report.referenceChecked) {
    reference = std::async(std::launch::async, [&] {
      ReferenceRun r;
      const auto compileStart = Clock::now();
      CompilationPtr refCompilation = compile(model.get(), {cpu});
      r.compileStart = since(compileStart);
      r.compileSeconds = since(Clock::now()) - r.compileStart;
      r.outputs = allocateOutputs(net);
      ExecutionPtr refExecution;
      r.runStart = since(Clock::now());
      r.runSeconds = execute(refCompilation.get(), net, r.outputs, false, refExecution);
      return r;
    });
  }

  // The accelerated run: on the accelerator alone when it supports every layer (a single-device
  // compilation, for which NNAPI reports durations), else on every device, partitioned.
  std::unique_ptr<bool[]> supported(new bool[std::max<size_t>(1, net.layers.size())]);
  const auto supportedStart = Clock::now();
  check(ANeuralNetworksModel_getSupportedOperationsForDevices(model.get(), &accelerator, 1, supported.get()),
        "ANeuralNetworksModel_getSupportedOperationsForDevices");
  host.push_back({"NNAPI calls", "ANeuralNetworksModel_getSupportedOperationsForDevices",
                  since(Clock::now()) - since(supportedStart), since(supportedStart)});
  const bool whole = std::all_of(supported.get(), supported.get() + net.layers.size(), [](bool s) { return s; });
  const auto compileStart = Clock::now();
  CompilationPtr compilation = compile(model.get(), whole ? std::vector<ANeuralNetworksDevice*>{accelerator}
                                                          : std::vector<ANeuralNetworksDevice*>{},
                                       options.preference);
  report.compileWallSeconds = std::chrono::duration<double>(Clock::now() - compileStart).count();
  const auto devices = runtime::getOperationDevices(compilation.get());
  const auto steps = runtime::getCompilationSteps(compilation.get());
  {
    // Inside the compilation: the partitioning, then each step's device compilation, in order.
    const double start = since(compileStart);
    host.push_back({"NNAPI calls", "ANeuralNetworksCompilation_create/finish (accelerated)", report.compileWallSeconds,
                    start});
    double prepared = 0;
    for (const auto& step : steps) prepared += step.prepareSeconds;
    double at = start + std::max(0.0, report.compileWallSeconds - prepared);
    host.push_back({"compilation", "partitioning, plan", std::max(0.0, report.compileWallSeconds - prepared), start});
    for (const auto& step : steps) {
      host.push_back({"compilation",
                      fmt::format("{}: prepareModel ({} operations{})", step.device, step.operations.size(),
                                  step.device == deviceName(accelerator) ? ": lowering, tiling search, program" : ""),
                      step.prepareSeconds, at});
      at += step.prepareSeconds;
    }
  }
  // Why the accelerator left layers to the CPU, in its driver's words.
  const auto reasons = whole ? std::map<uint32_t, std::string>{} : runtime::getUnsupportedReasons(model.get(), accelerator);
  for (size_t i = 0; i < net.layers.size(); ++i) {
    const Layer& l = net.layers[i];
    LayerReport row;
    row.index = i;
    row.name = l.name;
    row.op = nnapiName(l.op);
    row.device = i < devices.size() ? devices[i] : "?";
    if (const auto why = reasons.find(static_cast<uint32_t>(i)); why != reasons.end()) row.reason = why->second;
    row.macs = l.macs;
    auto elements = [](const std::vector<uint32_t>& shape) {
      uint64_t n = 1;
      for (uint32_t d : shape) n *= d;
      return n;
    };
    // The weights by their shape: a timing run holds none (TensorValues::kZeroPages).
    const uint64_t weightBytes = l.weightShape.empty() ? 0 : elements(l.weightShape);
    row.minDramBytes = weightBytes + 4 * l.bias.size() + elements(l.outputShape);
    for (int source : l.inputs) {
      row.inputs.push_back(net.sourceName(source));
      row.minDramBytes += elements(net.sourceShape(source));
    }
    report.layers.push_back(std::move(row));
  }
  if (!options.quiet) {
    size_t accelerated = 0;
    for (const auto& d : devices) accelerated += d == deviceName(accelerator) ? 1 : 0;
    fmt::print(stderr, "weft: {} layers, {} on {} ({} backend), the rest on {}; running...\n", net.layers.size(),
               accelerated, deviceName(accelerator), report.backend, deviceName(cpu));
  }
  Outputs accelOut = allocateOutputs(net);
  ExecutionPtr accelExecution;
  const DramCountersScope dramCounters(hwConfig);  // a cycle-level DRAM's counters, at the program's end
  {
    std::optional<ProgressDisplay> progress;
    if (!options.quiet) progress.emplace(net);
    const auto runStart = Clock::now();
    report.runWallSeconds = execute(compilation.get(), net, accelOut, whole, accelExecution);
    host.push_back({"NNAPI calls", "ANeuralNetworksExecution_compute (accelerated)", report.runWallSeconds,
                    since(runStart)});
    // The host time inside the device backend (the simulator), per accelerator step, in order.
    double at = since(runStart);
    for (const auto& profile : runtime::getExecutionProfiles(accelExecution.get())) {
      if (profile.simulatorWallSeconds <= 0) continue;
      host.push_back({"simulation", fmt::format("{} backend ({} operations)", profile.backend, profile.operations.size()),
                      profile.simulatorWallSeconds, at});
      at += profile.simulatorWallSeconds;
    }
  }
  fillTiming(report, accelExecution.get(), steps, hwConfig, estimator, whole);
  if (options.traceLimit > 0) report.traceKept = keepFirstCommands(report.commands, options.traceLimit);

  if (report.referenceChecked) {
    if (!options.quiet) fmt::print(stderr, "weft: reference run on {} (beside the accelerated one)...\n", deviceName(cpu));
    const ReferenceRun ref = reference.get();
    report.referenceWallSeconds = ref.runSeconds;
    host.push_back({"NNAPI calls", "ANeuralNetworksCompilation_create/finish (reference)", ref.compileSeconds,
                    ref.compileStart});
    host.push_back({"NNAPI calls", "ANeuralNetworksExecution_compute (reference)", ref.runSeconds, ref.runStart});
    host.push_back({"reference", "reference run (CPU)", ref.runSeconds, ref.runStart});
    compare(report, net, accelOut, ref.outputs, cpu);
  }
  saveNetworkOutputs(net, accelOut, options.saveOutputsDir, report.extra);
  return writeReports(report, options);
}

}  // namespace weft::tool
