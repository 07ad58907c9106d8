#include "ValidateCommand.h"

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "weft/common/files.h"
#include "Report.h"
#include "WorkerProcess.h"
#include "weft/hw/config.h"

namespace weft::tool {
namespace {

using nlohmann::json;
using nlohmann::ordered_json;

// One hardware point: an array configuration with a DRAM bandwidth.
struct Point {
  std::string name;
  hw::HwConfig config;
  std::string configPath;  // the configuration as a file, for WEFT_HW
};

std::vector<Point> points(const ValidateOptions& o, const std::string& dir) {
  std::vector<Point> out;
  for (const std::string& h : o.hw) {
    const hw::HwConfig base = hw::HwConfig::load(h);
    std::vector<int64_t> bandwidths = o.dramBytesPerCycle;
    if (bandwidths.empty()) {
      const int64_t own = base.get(hw::Param::kDramBytesPerCycle);
      bandwidths = {own, std::max<int64_t>(1, own / 4)};
    }
    for (int64_t bw : bandwidths) {
      Point p;
      p.config = base.with(hw::Param::kDramBytesPerCycle, bw);  // a bad value fails here, with its range
      p.name = fmt::format("{}-bw{}", base.name(), bw);
      p.config.setName(p.name);
      p.configPath = fmt::format("{}/{}.json", dir, p.name);
      std::ofstream(p.configPath) << p.config.toJson();
      out.push_back(std::move(p));
    }
  }
  return out;
}

// Runs `weft layers` in a child process with the given backend and configuration; its table
// goes to `<stem>.log`, its progress to our stderr.
void runWorker(const std::string& backend, const Point& p, const std::string& layers, const std::string& stem,
               int repeat, bool quiet) {
  WorkerSpec spec;
  spec.args = {"layers", layers, "--json", stem + ".json", "--outputs", stem + ".bin", "--compute-report",
               stem + "-COMPUTE_REPORT.csv", "--repeat", std::to_string(repeat)};
  if (quiet) spec.args.push_back("--quiet");
  spec.backend = backend;
  spec.hw = p.configPath;
  spec.stdoutPath = stem + ".log";
  spec.what = p.name;
  weft::tool::runWorker(spec);
}

struct Side {
  json report;
  std::string outputs;
};

Side loadSide(const std::string& stem) {
  Side s;
  s.report = json::parse(common::readFileOrThrow(stem + ".json"));
  s.outputs = common::readFileOrThrow(stem + ".bin");
  return s;
}

// A performance counter whose final value differs between the backends.
struct CounterDifference {
  std::string name;
  uint64_t rtl = 0, model = 0;
};

struct LayerComparison {
  std::string name, shape;
  uint64_t rtlCycles = 0, modelCycles = 0;
  double errorPct = 0;
  size_t outputBytes = 0, differingBytes = 0;
  std::vector<CounterDifference> counters;  // the model follows the RTL's counters too
  double rtlSeconds = 0, modelSeconds = 0;            // simulator wall time
  double rtlExecuteSeconds = 0, modelExecuteSeconds = 0;  // whole execution wall time
};

struct PointResult {
  Point point;
  std::vector<LayerComparison> layers;
  double meanAbsErrorPct = 0, worstErrorPct = 0;
  std::string worstLayer;
  size_t identical = 0, countersIdentical = 0;
  double rtlSeconds = 0, modelSeconds = 0, rtlExecuteSeconds = 0, modelExecuteSeconds = 0;
  double speedup() const { return modelSeconds > 0 ? rtlSeconds / modelSeconds : 0; }
  double executeSpeedup() const { return modelExecuteSeconds > 0 ? rtlExecuteSeconds / modelExecuteSeconds : 0; }
};

PointResult compare(const Point& p, const Side& rtl, const Side& model) {
  PointResult r;
  r.point = p;
  const json& a = rtl.report["layers"];
  const json& b = model.report["layers"];
  if (a.size() != b.size()) throw std::runtime_error(fmt::format("{}: the workers ran different layer counts", p.name));
  for (size_t i = 0; i < a.size(); ++i) {
    LayerComparison c;
    c.name = a[i]["name"];
    c.shape = a[i]["shape"];
    c.rtlCycles = a[i]["cycles"];
    c.modelCycles = b[i]["cycles"];
    c.errorPct = c.rtlCycles > 0 ? 100.0 * (double(c.modelCycles) - double(c.rtlCycles)) / double(c.rtlCycles) : 0;
    const uint64_t offA = a[i]["outputOffset"], offB = b[i]["outputOffset"];
    c.outputBytes = a[i]["outputBytes"];
    if (b[i]["outputBytes"] != c.outputBytes || offA + c.outputBytes > rtl.outputs.size() ||
        offB + c.outputBytes > model.outputs.size()) {
      throw std::runtime_error(fmt::format("{}: layer {}: the workers' outputs do not line up", p.name, c.name));
    }
    for (size_t e = 0; e < c.outputBytes; ++e) c.differingBytes += rtl.outputs[offA + e] != model.outputs[offB + e];
    for (const auto& [counter, value] : a[i]["counters"].items()) {
      const uint64_t theirs = b[i]["counters"].value(counter, uint64_t{0});
      if (value.get<uint64_t>() != theirs) c.counters.push_back({counter, value.get<uint64_t>(), theirs});
    }
    c.rtlSeconds = a[i]["simulatorSeconds"];
    c.modelSeconds = b[i]["simulatorSeconds"];
    c.rtlExecuteSeconds = a[i]["executeSeconds"];
    c.modelExecuteSeconds = b[i]["executeSeconds"];
    r.meanAbsErrorPct += std::abs(c.errorPct);
    if (r.worstLayer.empty() || std::abs(c.errorPct) > std::abs(r.worstErrorPct)) {
      r.worstErrorPct = c.errorPct;
      r.worstLayer = c.name;
    }
    r.identical += c.differingBytes == 0;
    r.countersIdentical += c.counters.empty();
    r.rtlSeconds += c.rtlSeconds;
    r.modelSeconds += c.modelSeconds;
    r.rtlExecuteSeconds += c.rtlExecuteSeconds;
    r.modelExecuteSeconds += c.modelExecuteSeconds;
    r.layers.push_back(std::move(c));
  }
  if (!r.layers.empty()) r.meanAbsErrorPct /= double(r.layers.size());
  return r;
}

std::string speedupText(double rtl, double model) {
  return model > 0 ? fmt::format("{:.0f}x", rtl / model) : "-";
}

void printPoint(const PointResult& r, std::ostream& out) {
  const hw::HwConfig& c = r.point.config;
  const std::string enums = c.enumParamsText();  // "Dataflow WS"
  fmt::print(out, "\n{}: {}x{} array{}, DRAM {} B/cycle, {} cycles latency, {} B bursts (RTL build {})\n", r.point.name,
             c.rows(), c.cols(), enums.empty() ? "" : " (" + enums + ")", c.get(hw::Param::kDramBytesPerCycle),
             c.get(hw::Param::kDramLatencyCycles), c.get(hw::Param::kDramBurstBytes), c.rtlKey());
  const char* row = "{:>3}  {:<16} {:<24} {:>11} {:>12} {:>8}  {:<10} {:<10} {:>9} {:>10} {:>9}\n";
  fmt::print(out, fmt::runtime(row), "#", "layer", "shape", "RTL cycles", "model cycles", "error %", "outputs", "counters",
             "RTL s", "model ms", "speed-up");
  for (size_t i = 0; i < r.layers.size(); ++i) {
    const LayerComparison& l = r.layers[i];
    const std::string outputs = l.differingBytes == 0 ? "identical" : fmt::format("{} differ", l.differingBytes);
    const std::string counters = l.counters.empty() ? "identical" : fmt::format("{} differ", l.counters.size());
    fmt::print(out, fmt::runtime(row), i, l.name, l.shape, l.rtlCycles, l.modelCycles, fmt::format("{:+.3f}", l.errorPct), outputs,
               counters, fmt::format("{:.3f}", l.rtlSeconds), fmt::format("{:.3f}", 1e3 * l.modelSeconds),
               speedupText(l.rtlSeconds, l.modelSeconds));
  }
  for (const LayerComparison& l : r.layers) {
    for (const CounterDifference& d : l.counters) {
      fmt::print(out, "  {}: {} RTL {}, model {} ({:+})\n", l.name, d.name, d.rtl, d.model,
                 static_cast<int64_t>(d.model - d.rtl));
    }
  }
  fmt::print(out,
             "mean |error| {:.3f} %, worst {:+.3f} % ({}); outputs identical on {} of {} layers, every performance "
             "counter on {}; speed-up {} (simulation: RTL {:.2f} s, model {:.2f} ms; whole executions: {})\n",
             r.meanAbsErrorPct, r.worstErrorPct, r.worstLayer, r.identical, r.layers.size(), r.countersIdentical,
             speedupText(r.rtlSeconds, r.modelSeconds), r.rtlSeconds, 1e3 * r.modelSeconds,
             speedupText(r.rtlExecuteSeconds, r.modelExecuteSeconds));
}

ordered_json pointJson(const PointResult& r) {
  const hw::HwConfig& c = r.point.config;
  ordered_json j;
  j["name"] = r.point.name;
  j["hw"] = {{"rows", c.rows()},
             {"cols", c.cols()},
             {"dramBytesPerCycle", c.get(hw::Param::kDramBytesPerCycle)},
             {"dramLatencyCycles", c.get(hw::Param::kDramLatencyCycles)},
             {"dramBurstBytes", c.get(hw::Param::kDramBurstBytes)},
             {"rtlKey", c.rtlKey()},
             {"params", ordered_json::parse(c.toJson())["params"]}};  // enumerated ones by name
  auto& layers = j["layers"] = ordered_json::array();
  for (const LayerComparison& l : r.layers) {
    ordered_json counters = ordered_json::object();
    for (const CounterDifference& d : l.counters) counters[d.name] = {{"rtl", d.rtl}, {"model", d.model}};
    layers.push_back({{"name", l.name},
                      {"shape", l.shape},
                      {"rtlCycles", l.rtlCycles},
                      {"modelCycles", l.modelCycles},
                      {"errorPct", l.errorPct},
                      {"outputBytes", l.outputBytes},
                      {"outputBytesDiffering", l.differingBytes},
                      {"countersDiffering", counters},
                      {"rtlSimulatorSeconds", l.rtlSeconds},
                      {"modelSimulatorSeconds", l.modelSeconds},
                      {"speedup", l.modelSeconds > 0 ? l.rtlSeconds / l.modelSeconds : 0},
                      {"rtlExecuteSeconds", l.rtlExecuteSeconds},
                      {"modelExecuteSeconds", l.modelExecuteSeconds}});
  }
  j["summary"] = {{"layers", r.layers.size()},
                  {"meanAbsErrorPct", r.meanAbsErrorPct},
                  {"worstErrorPct", r.worstErrorPct},
                  {"worstLayer", r.worstLayer},
                  {"outputsIdentical", r.identical},
                  {"countersIdentical", r.countersIdentical},
                  {"rtlSimulatorSeconds", r.rtlSeconds},
                  {"modelSimulatorSeconds", r.modelSeconds},
                  {"speedup", r.speedup()},
                  {"rtlExecuteSeconds", r.rtlExecuteSeconds},
                  {"modelExecuteSeconds", r.modelExecuteSeconds},
                  {"executeSpeedup", r.executeSpeedup()}};
  return j;
}

}  // namespace

int runValidate(const ValidateOptions& o) {
  if (o.hw.empty()) throw std::invalid_argument("weft validate needs at least one --hw configuration");
  const std::string dir = o.workDir.empty() ? fmt::format("out/validate-{}", getpid()) : o.workDir;
  std::filesystem::create_directories(dir);
  const std::vector<Point> pts = points(o, dir);

  std::vector<PointResult> results;
  for (const Point& p : pts) {
    const std::string rtlStem = dir + "/" + p.name + "-rtl", modelStem = dir + "/" + p.name + "-approx";
    if (!o.quiet) fmt::print(stderr, "weft validate: {} on the rtl backend...\n", p.name);
    runWorker("rtl", p, o.layersPath, rtlStem, o.repeat, o.quiet);
    if (!o.quiet) fmt::print(stderr, "weft validate: {} on the approx backend...\n", p.name);
    runWorker("approx", p, o.layersPath, modelStem, o.repeat, true);
    results.push_back(compare(p, loadSide(rtlStem), loadSide(modelStem)));
    printPoint(results.back(), std::cout);
    std::cout.flush();
  }

  bool passed = true;
  fmt::print("\n{:<14} {:>6} {:>12} {:>12}  {:<16} {:>9} {:>9} {:>9}\n", "configuration", "layers", "mean |err| %",
             "worst err %", "worst layer", "outputs", "counters", "speed-up");
  for (const PointResult& r : results) {
    fmt::print("{:<14} {:>6} {:>12.3f} {:>+12.3f}  {:<16} {:>9} {:>9} {:>9}\n", r.point.name, r.layers.size(),
               r.meanAbsErrorPct, r.worstErrorPct, r.worstLayer, fmt::format("{}/{}", r.identical, r.layers.size()),
               fmt::format("{}/{}", r.countersIdentical, r.layers.size()), speedupText(r.rtlSeconds, r.modelSeconds));
    passed = passed && r.identical == r.layers.size() && r.meanAbsErrorPct <= o.maxMeanErrorPct &&
             std::abs(r.worstErrorPct) <= o.maxWorstErrorPct && (o.minSpeedup <= 0 || r.speedup() >= o.minSpeedup);
  }
  const std::string speedTarget = o.minSpeedup > 0 ? fmt::format(", speed-up >= {:.0f}x", o.minSpeedup) : "";
  fmt::print("targets: mean |error| <= {} %, worst <= {} %, outputs identical{}: {}\n", o.maxMeanErrorPct,
             o.maxWorstErrorPct, speedTarget, passed ? "MET" : "NOT MET");

  ordered_json j;
  j["layerSet"] = o.layersPath;
  auto& configs = j["configurations"] = ordered_json::array();
  for (const PointResult& r : results) configs.push_back(pointJson(r));
  j["targets"] = {{"maxMeanAbsErrorPct", o.maxMeanErrorPct},
                  {"maxWorstErrorPct", o.maxWorstErrorPct},
                  {"minSpeedup", o.minSpeedup},
                  {"met", passed}};
  const std::string jsonPath = o.jsonPath.empty() ? dir + "/validate.json" : o.jsonPath;
  writeOutputFile(jsonPath, j.dump(2) + "\n");
  fmt::print("report written to {} (worker reports and outputs in {})\n", jsonPath, dir);
  return passed ? 0 : 1;
}

}  // namespace weft::tool
