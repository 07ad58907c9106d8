#include "EstimateCommand.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "LayerRunner.h"
#include "LayerTable.h"
#include "RunCommand.h"
#include "weft/common/files.h"
#include "weft/hw/config.h"
#include "weft/runtime/Profile.h"
#include "weft/sim/dram_config.h"

namespace weft::tool {
namespace {

namespace fs = std::filesystem;

struct Row {
  std::string name;
  uint64_t cycles = 0, estimate = 0;
  // With a cycle-level DRAM: the refresh commands issued while the layer ran (every channel's;
  // -1 with the simple pipe, which has none). A refresh stops a channel's reads for tRFC, which
  // no estimate of a layer alone can place: a layer of a few thousand cycles that one falls in
  // runs 10-30 % longer (driver/accel/README.md).
  int64_t refreshes = -1;
  // Whether the run is longer than the estimate and its refreshes account for at least half of
  // the difference beyond what the estimate holds for them: a refresh of every channel at once
  // (the presets) holds tRFC (`refreshCycles`, in the accelerator's cycles), and the estimate's
  // stream rates hold tRFC / tREFI of its time (`refreshShare`), so a long layer's steady
  // refreshes explain none of its miss. (A refresh cannot make a run shorter.)
  bool missIsRefresh(double refreshCycles, double refreshShare, uint32_t channels) const {
    if (refreshes <= 0 || cycles <= estimate) return false;
    const double stalled = static_cast<double>(refreshes) / channels * refreshCycles;
    const double unexpected = stalled - refreshShare * static_cast<double>(estimate);
    return unexpected >= 0.5 * static_cast<double>(cycles - estimate);
  }
  double error() const {  // (estimate - run) / run
    return cycles > 0 ? (static_cast<double>(estimate) - static_cast<double>(cycles)) / static_cast<double>(cycles)
                      : 0;
  }
};

bool isNetwork(const std::string& path) {
  if (fs::path(path).extension() != ".json") return false;
  std::ifstream in(path);
  const auto j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  return j.is_object() && j.contains("input");  // a network description; a layer set has none
}

// A network, run whole by `weft run` (its JSON report holds each layer's estimate).
std::vector<Row> networkRows(const std::string& path, const std::string& workDir) {
  RunOptions run;
  run.networkPath = path;
  run.jsonPath = (fs::path(workDir) / (fs::path(path).stem().string() + ".json")).string();
  run.csvPath = (fs::path(workDir) / (fs::path(path).stem().string() + ".csv")).string();
  run.quiet = true;
  runNetwork(run);  // a reference mismatch is not this command's business: the figures stand
  std::ifstream in(run.jsonPath);
  const auto j = nlohmann::json::parse(in);
  std::vector<Row> rows;
  for (const auto& l : j.at("layers")) {
    const uint64_t cycles = l.at("cycles").get<uint64_t>();
    if (cycles == 0) continue;  // not on the accelerator
    Row row{l.at("name").get<std::string>(), cycles, l.value("estimatedCycles", uint64_t{0})};
    if (l.contains("dram") && l["dram"].contains("refreshes")) row.refreshes = l["dram"]["refreshes"].get<int64_t>();
    rows.push_back(std::move(row));
  }
  return rows;
}

// A layer set or SCALE-Sim table, a layer at a time: each layer is a program of its own, whose
// estimate the accelerator reports with its progress.
std::vector<Row> tableRows(const std::string& path, const hw::HwConfig& hw, bool quiet) {
  const LayerTable table = loadLayerTable(path);
  std::vector<uint64_t> estimates(table.layers.size(), 0);
  size_t current = 0;
  runtime::setProgressListener([&](const runtime::ProgressEvent& e) {
    if (e.estimatedCycles > 0 && current < estimates.size()) estimates[current] = e.estimatedCycles;
  });
  LayerRunOptions run;
  run.cacheSalt = hw.toJson();
  run.dramBytes = hw.dramBytes();
  run.reuseIdentical = true;
  if (std::string(std::getenv("WEFT_BACKEND") != nullptr ? std::getenv("WEFT_BACKEND") : "") == "timing") {
    run.values = TensorValues::kZeroPages;
  }
  run.onLayer = [&](size_t i, size_t n, const std::string& name) {
    current = i;
    if (!quiet) fmt::print(stderr, "[{:>3}/{}] {}\n", i + 1, n, name);
  };
  const std::vector<LayerRun> runs = runLayerTable(table, run);
  runtime::setProgressListener({});
  std::vector<Row> rows;
  for (size_t i = 0; i < runs.size(); ++i) {
    const size_t from = runs[i].sameAs.value_or(i);
    Row row{runs[i].name, runs[i].cycles, estimates[from]};
    for (const auto& [counter, value] : runs[from].counters) {
      if (counter == "DRAM_REFRESHES") row.refreshes = static_cast<int64_t>(value);
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

// A cycle-level DRAM's refresh: tRFC in the accelerator's cycles, tRFC / tREFI, its channels.
struct Refresh {
  double cycles = 0, share = 0;
  uint32_t channels = 1;
};

struct Summary {
  size_t layers = 0, within10 = 0;
  bool dram = false;            // a cycle-level DRAM (Row::refreshes known)
  size_t outsideRefreshed = 0;  // of the layers outside 10 %, those whose miss is mostly refresh
  double median = 0, worst = 0;  // |error|; worst keeps its sign
  std::string worstLayer;
  uint64_t cycles = 0, estimate = 0;
};

Summary summarize(const std::vector<Row>& rows, const Refresh& refresh) {
  Summary s;
  std::vector<double> errors;
  for (const Row& r : rows) {
    const double e = r.error();
    errors.push_back(std::abs(e));
    s.within10 += std::abs(e) <= 0.10 ? 1 : 0;
    s.dram = s.dram || r.refreshes >= 0;
    s.outsideRefreshed += std::abs(e) > 0.10 && r.missIsRefresh(refresh.cycles, refresh.share, refresh.channels) ? 1 : 0;
    if (std::abs(e) >= std::abs(s.worst)) s.worst = e, s.worstLayer = r.name;
    s.cycles += r.cycles;
    s.estimate += r.estimate;
  }
  s.layers = rows.size();
  if (!errors.empty()) {
    std::sort(errors.begin(), errors.end());
    const size_t n = errors.size();
    s.median = n % 2 == 1 ? errors[n / 2] : (errors[n / 2 - 1] + errors[n / 2]) / 2;
  }
  return s;
}

std::string line(const std::string& what, const Summary& s) {
  std::string text =
      fmt::format("{:<28} {:>4} layers  median |err| {:5.1f} %  worst {:+6.1f} % ({})  within 10 %: {}/{}  "
                  "cycles {} estimate {}",
                  what, s.layers, 100 * s.median, 100 * s.worst, s.worstLayer, s.within10, s.layers, s.cycles,
                  s.estimate);
  if (s.dram && s.within10 < s.layers) {
    text += fmt::format("  (outside 10 %, half the miss or more a DRAM refresh: {} of {})", s.outsideRefreshed,
                        s.layers - s.within10);
  }
  return text;
}

nlohmann::ordered_json toJson(const Summary& s) {
  nlohmann::ordered_json j = {{"layers", s.layers},       {"medianAbsError", s.median}, {"worstError", s.worst},
                              {"worstLayer", s.worstLayer}, {"within10", s.within10},   {"cycles", s.cycles},
                              {"estimatedCycles", s.estimate}};
  if (s.dram) j["outsideWithRefresh"] = s.outsideRefreshed;
  return j;
}

}  // namespace

int runEstimate(const EstimateOptions& options) {
  const std::string hwName = std::getenv("WEFT_HW") != nullptr ? std::getenv("WEFT_HW") : "weft16";
  const hw::HwConfig hw = hw::HwConfig::load(hwName);
  const std::string workDir =
      options.workDir.empty() ? fmt::format("out/estimate-{}", static_cast<long>(getpid())) : options.workDir;
  fs::create_directories(workDir);
  Refresh refresh;
  if (const auto device = sim::dramDeviceFor(hw)) {
    refresh.cycles = device->timing.tRFC * device->timing.tCK() * hw.clockMHz() / 1000.0;
    refresh.share = static_cast<double>(device->timing.tRFC) / device->timing.tREFI;
    refresh.channels = device->org.channels;
  }
  nlohmann::ordered_json report;
  report["hw"] = hwName;
  report["backend"] = std::getenv("WEFT_BACKEND") != nullptr ? std::getenv("WEFT_BACKEND") : "rtl";
  auto& workloads = report["workloads"] = nlohmann::ordered_json::array();
  std::vector<Row> all;
  std::vector<std::string> lines;
  for (const std::string& path : options.workloads) {
    if (!options.quiet) fmt::print(stderr, "weft estimate: {} at {}\n", path, hwName);
    const std::vector<Row> rows = isNetwork(path) ? networkRows(path, workDir) : tableRows(path, hw, options.quiet);
    const std::string name = fs::path(path).stem().string();
    if (options.perLayer) {
      const bool dram = std::any_of(rows.begin(), rows.end(), [](const Row& r) { return r.refreshes >= 0; });
      fmt::print("{}\n{:<32} {:>12} {:>12} {:>8}{}\n", name, "layer", "cycles", "estimate", "error",
                 dram ? "  refreshes" : "");
      for (const Row& r : rows) {
        fmt::print("{:<32} {:>12} {:>12} {:>+7.1f}%{}\n", r.name, r.cycles, r.estimate, 100 * r.error(),
                   r.refreshes >= 0 ? fmt::format("  {:>9}", r.refreshes) : "");
      }
    }
    const Summary s = summarize(rows, refresh);
    lines.push_back(line(name, s));
    nlohmann::ordered_json w = {{"workload", path}, {"summary", toJson(s)}};
    auto& layers = w["layers"] = nlohmann::ordered_json::array();
    for (const Row& r : rows) {
      nlohmann::ordered_json l = {{"name", r.name}, {"cycles", r.cycles}, {"estimatedCycles", r.estimate},
                                  {"error", r.error()}};
      if (r.refreshes >= 0) l["dramRefreshes"] = r.refreshes;
      layers.push_back(std::move(l));
    }
    workloads.push_back(std::move(w));
    all.insert(all.end(), rows.begin(), rows.end());
  }
  const Summary total = summarize(all, refresh);
  report["summary"] = toJson(total);
  fmt::print("estimate vs run at {} ({} backend):\n", hwName, report["backend"].get<std::string>());
  for (const auto& l : lines) fmt::print("{}\n", l);
  if (options.workloads.size() > 1) fmt::print("{}\n", line("all", total));
  if (!options.jsonPath.empty()) {
    std::ofstream out(options.jsonPath);
    out << report.dump(2) << "\n";
    if (!out) throw std::runtime_error("could not write " + options.jsonPath);
  }
  return 0;
}

}  // namespace weft::tool
