#include "Report.h"

#include <fmt/format.h>
#include <unistd.h>
#include <fmt/ostream.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <array>
#include <iterator>
#include <stdexcept>
#include <utility>
#include <nlohmann/json.hpp>

#include "DramFigures.h"

#include "weft/common/locations.h"


namespace weft::tool {
namespace {

template <typename F>
uint64_t sum(const std::vector<LayerReport>& layers, F f) {
  uint64_t s = 0;
  for (const auto& l : layers) s += f(l);
  return s;
}

std::string us(uint64_t ns) { return fmt::format("{:.1f}", ns / 1000.0); }
std::string kib(uint64_t bytes) { return fmt::format("{:.1f}", bytes / 1024.0); }

}  // namespace

std::vector<std::string> RunReport::devices() const {
  std::vector<std::string> names;
  for (const auto& l : layers) {
    if (std::find(names.begin(), names.end(), l.device) == names.end()) names.push_back(l.device);
  }
  return names;
}

std::string boundBy(const LayerReport& l) {
  if (l.cycles == 0) return "-";
  const std::pair<double, const char*> busy[] = {
      {l.arrayBusy, "array"}, {l.vectorBusy, "vector"}, {l.loadBusy, "load"}, {l.storeBusy, "store"}};
  return std::max_element(std::begin(busy), std::end(busy))->second;
}

double cyclesOverBound(const LayerReport& l, int64_t dramBytesPerCycle) {
  if (l.cycles == 0 || l.peakOpsPerCycle == 0) return 0;
  const double compute = static_cast<double>(l.macs) / static_cast<double>(l.peakOpsPerCycle);
  const double bandwidth = dramBytesPerCycle > 0 ? static_cast<double>(l.minDramBytes) / dramBytesPerCycle : 0;
  const double bound = std::max(compute, bandwidth);
  return bound > 0 ? static_cast<double>(l.cycles) / bound : 0;
}

namespace {

std::string percent(double fraction, bool on) { return on ? fmt::format("{:.0f}", 100.0 * fraction) : "-"; }

// One line of the terminal table; every row and the header go through it.
void printRow(std::ostream& out, size_t nameWidth, const std::string& index, const std::string& name,
              const std::string& op, const std::string& unit, const std::string& cycles, const std::string& onHw,
              const std::string& inDriver, const std::string& util, const std::array<std::string, 5>& busy,
              const std::string& bound, const std::string& rd, const std::string& wr, const std::string& minimum,
              const std::string& overBound, const std::string& err, const std::string& energy) {
  fmt::print(out, "{:>3}  {:<{}} {:<18} {:<6} {:>10} {:>10} {:>10} {:>5} {:>4} {:>4} {:>4} {:>4} {:>5} {:<6} {:>10} "
                  "{:>10} {:>9} {:>7} {:>4} {:>9}\n",
             index, name, nameWidth, op, unit, cycles, onHw, inDriver, util, busy[0], busy[1], busy[2], busy[3],
             busy[4], bound, rd, wr, minimum, overBound, err, energy);
}

uint64_t dramCounter(const RunReport& r, std::string_view name) {
  for (const auto& [n, v] : r.dramCounters) {
    if (n == name) return v;
  }
  return 0;
}

// How the DRAM's energy is given to the layers.
std::string dramEnergySplit(const RunReport& r) {
  return fmt::format("each layer's from the DRAM's counters at the snapshots around it; {:.3f} uJ outside every "
                     "layer: the program's start and the posted writes drained at its end",
                     1e-6 * r.dramOutsideLayersPj);
}

// The cycle-level DRAM over the execution, on one line.
std::string dramLine(const RunReport& r) {
  return fmt::format("{} ({})", tool::dramLine(r.dramDevice, counterObject(r.dramCounters)), dramEnergySplit(r));
}

nlohmann::ordered_json dramJson(const RunReport& r) {
  nlohmann::ordered_json j;
  j["device"] = r.dramDevice;
  const nlohmann::json counters = counterObject(r.dramCounters);
  j["counters"] = counters;
  j["figures"] = dramFigures(counters);
  j["energyPj"] = dramCounter(r, "DRAM_ENERGY_PJ");
  j["outsideLayersPj"] = r.dramOutsideLayersPj;
  j["layersEnergySplit"] = dramEnergySplit(r);
  return j;
}

}  // namespace

void printTable(const RunReport& r, std::ostream& out) {
  fmt::print(out, "{} on {} ({}x{} @ {:.0f} MHz{}, backend {})\n\n", r.network, r.hwConfig, r.rows, r.cols, r.clockMHz,
             r.hwEnums.empty() ? "" : ", " + r.hwEnums, r.backend);
  // Names as long as torchvision's ("layer2.0.downsample") widen the column rather than shift a row.
  size_t nameWidth = 14;
  for (const auto& l : r.layers) nameWidth = std::max(nameWidth, l.name.size());
  printRow(out, nameWidth, "#", "layer", "operation", "unit", "cycles", "on-hw us", "in-drv us", "util%",
           {"arr%", "vec%", "ld%", "st%", "dram%"}, "bound", "DRAM rd KiB", "DRAM wr KiB", "min KiB", "x bound",
           "err", "energy uJ");
  for (const auto& l : r.layers) {
    const bool on = l.cycles > 0;
    printRow(out, nameWidth, std::to_string(l.index), l.name, l.op, l.unit, std::to_string(l.cycles),
             us(l.onHardwareNs), us(l.inDriverNs), on ? fmt::format("{:.1f}", 100.0 * l.utilization) : "-",
             {percent(l.arrayBusy, on), percent(l.vectorBusy, on), percent(l.loadBusy, on), percent(l.storeBusy, on),
              percent(l.dramStall, on)},
             boundBy(l), kib(l.dramReadBytes), kib(l.dramWriteBytes), kib(l.minDramBytes),
             on ? fmt::format("{:.2f}", cyclesOverBound(l, r.dramBytesPerCycle)) : "-", std::to_string(l.maxError),
             on ? fmt::format("{:.3f}", 1e-6 * l.energy.totalPj()) : "-");
  }
  // One total per device: device cycles and host time do not add up.
  for (const std::string& device : r.devices()) {
    std::vector<LayerReport> mine;
    for (const auto& l : r.layers) {
      if (l.device == device) mine.push_back(l);
    }
    const uint64_t cycles = sum(mine, [](const auto& l) { return l.cycles; });
    // Busy fractions weighted by each layer's cycles.
    auto busy = [&](double LayerReport::*f) {
      double c = 0;
      for (const auto& l : mine) c += l.*f * static_cast<double>(l.cycles);
      return percent(cycles > 0 ? c / static_cast<double>(cycles) : 0, cycles > 0);
    };
    int worst = 0;
    for (const auto& l : mine) worst = std::max(worst, l.maxError);
    printRow(out, nameWidth, "", "total", fmt::format("{} layers", mine.size()), device == "weft-cpu" ? "cpu" : "",
             std::to_string(cycles), us(sum(mine, [](const auto& l) { return l.onHardwareNs; })),
             us(sum(mine, [](const auto& l) { return l.inDriverNs; })), "",
             {busy(&LayerReport::arrayBusy), busy(&LayerReport::vectorBusy), busy(&LayerReport::loadBusy),
              busy(&LayerReport::storeBusy), busy(&LayerReport::dramStall)},
             "", kib(sum(mine, [](const auto& l) { return l.dramReadBytes; })),
             kib(sum(mine, [](const auto& l) { return l.dramWriteBytes; })),
             kib(sum(mine, [](const auto& l) { return l.minDramBytes; })), "", std::to_string(worst),
             cycles > 0 ? fmt::format("{:.3f}", 1e-6 * r.acceleratorEnergy.totalPj()) : "-");
  }
  const auto unclaimed = std::count_if(r.layers.begin(), r.layers.end(), [](const auto& l) { return !l.reason.empty(); });
  if (unclaimed > 0) {
    fmt::print(out, "\n{} operation{} the accelerator does not take, and why (its driver's words):\n", unclaimed,
               unclaimed == 1 ? "" : "s");
    constexpr long kShown = 12;  // the JSON report has every one
    long shown = 0;
    bool float32 = false;
    for (const auto& l : r.layers) {
      if (l.reason.empty()) continue;
      float32 = float32 || l.reason.find("TENSOR_FLOAT32") != std::string::npos;
      if (shown++ < kShown) fmt::print(out, "  #{} {} ({}): {}\n", l.index, l.name, l.op, l.reason);
    }
    if (unclaimed > kShown) fmt::print(out, "  ... and {} more (each in the JSON report's layers)\n", unclaimed - kShown);
    if (float32) {
      fmt::print(out, "  (float32 runs on the accelerator once quantized, --quantize int8, or in float16 with --relaxed on "
                      "a configuration with the fp16 datapath, --hw weft16fp)\n");
    }
  }
  // Where the accelerator's cycles went, by the unit each layer ran on.
  uint64_t all = 0;
  for (const auto& l : r.layers) all += l.cycles;
  if (all > 0) {
    std::vector<std::string> parts;
    for (const char* unit : {"array", "vector"}) {
      uint64_t cycles = 0, ops = 0, peak = 0;
      size_t count = 0;
      for (const auto& l : r.layers) {
        if (l.unit != unit) continue;
        ++count;
        cycles += l.cycles;
        ops += l.macs;
        peak = l.peakOpsPerCycle;
      }
      if (count == 0) continue;
      parts.push_back(fmt::format("{} layers on the {}: {} cycles ({:.1f}%) at {:.1f}% of its peak", count, unit, cycles,
                                  100.0 * cycles / all,
                                  cycles > 0 && peak > 0 ? 100.0 * ops / (double(peak) * cycles) : 0.0));
    }
    fmt::print(out, "\ntime by unit: {}\n", fmt::join(parts, "; "));
  }
  fmt::print(out, "\n");
  if (all > 0) fmt::print(out, "energy on the accelerator: {}\n", codesign::describe(r.acceleratorEnergy));
  if (!r.dramCounters.empty()) fmt::print(out, "{}\n", dramLine(r));
  for (const auto& line : r.estimateLines) fmt::print(out, "{}\n", line);
  if (r.nnapiOnHardwareNs) {
    fmt::print(out, "NNAPI durations: on hardware {} us, in driver {} us\n", us(*r.nnapiOnHardwareNs),
               us(*r.nnapiInDriverNs));
  } else {
    fmt::print(out, "NNAPI durations: not available ({})\n", r.nnapiDurationNote);
  }
  const double rate = r.simulatorWallSeconds > 0 ? r.simulatedCycles / r.simulatorWallSeconds : 0;
  fmt::print(out, "simulator: {} cycles in {:.2f} s wall = {:.0f} simulated cycles/s\n", r.simulatedCycles,
             r.simulatorWallSeconds, rate);
  if (r.referenceRule.empty()) {
    fmt::print(out, "wall time: accelerated run {:.2f} s, reference run {:.2f} s\n", r.runWallSeconds,
               r.referenceWallSeconds);
  } else {  // the reference is the case's expected outputs
    fmt::print(out, "wall time: run {:.2f} s\n", r.runWallSeconds);
  }
  if (!r.referenceChecked) {
    fmt::print(out, "reference check: not run (the {} backend computes no outputs)\n", r.backend);
  } else if (!r.referenceRule.empty()) {
    fmt::print(out, "reference check: {} ({})\n{}", r.referencePassed ? "PASS" : "FAIL", r.referenceRule,
               r.referenceFailures);
  } else if (r.referencePassed) {
    fmt::print(out, "reference check: PASS (worst error {} at {}, tolerance {})\n", r.worstError, r.worstLayer,
               r.tolerance);
  } else {
    fmt::print(out, "reference check: FAIL at layer {} (worst error {} at {}, tolerance {})\n",
               r.firstFailingLayer, r.worstError, r.worstLayer, r.tolerance);
  }
  if (r.referenceChecked && r.referenceRule.empty() && r.driftedLayers > 0) {
    fmt::print(out,
               "  end to end: {} layers differ from the CPU-only run by more than {} (up to {}, at {}), each "
               "checked on the accelerator's own inputs for it (the error above)\n",
               r.driftedLayers, r.tolerance, r.worstDrift, r.worstDriftLayer);
  }
}

std::string toJson(const RunReport& r) {
  nlohmann::ordered_json j;
  j["network"] = r.network;
  j["backend"] = r.backend;
  j["hw"] = {{"config", r.hwConfig}, {"rows", r.rows}, {"cols", r.cols}, {"clockMHz", r.clockMHz},
             {"dramBytesPerCycle", r.dramBytesPerCycle}};
  if (!r.hwParams.is_null()) j["hw"]["params"] = r.hwParams;
  auto& layers = j["layers"] = nlohmann::ordered_json::array();
  for (const auto& l : r.layers) {
    layers.push_back({{"index", l.index}, {"name", l.name}, {"operation", l.op}, {"inputs", l.inputs},
                      {"device", l.device},
                      {"cycles", l.cycles}, {"estimatedCycles", l.estimatedCycles}, {"onHardwareNs", l.onHardwareNs}, {"inDriverNs", l.inDriverNs},
                      {"macs", l.macs}, {"unit", l.unit}, {"peakOpsPerCycle", l.peakOpsPerCycle},
                      {"utilization", l.utilization},
                      {"busy", {{"array", l.arrayBusy}, {"vector", l.vectorBusy}, {"load", l.loadBusy},
                                {"store", l.storeBusy}, {"dramStall", l.dramStall}}},
                      {"boundBy", boundBy(l)}, {"dramReadBytes", l.dramReadBytes},
                      {"dramWriteBytes", l.dramWriteBytes}, {"minDramBytes", l.minDramBytes},
                      {"cyclesOverBound", cyclesOverBound(l, r.dramBytesPerCycle)}, {"mapping", l.mapping},
                      {"maxError", l.maxError}, {"driftError", l.driftError},
                      {"energy", codesign::toJson(l.energy)}});
    if (!l.reason.empty()) layers.back()["reason"] = l.reason;
    if (!l.dramCounters.empty()) {  // a cycle-level DRAM over the layer
      const nlohmann::json counters = counterObject(l.dramCounters);
      layers.back()["dram"] = dramFigures(counters);
      layers.back()["dramCounters"] = counters;
    }
  }
  auto& totals = j["totals"] = nlohmann::ordered_json::object();
  for (const std::string& device : r.devices()) {
    uint64_t cycles = 0, onHw = 0, inDriver = 0, macs = 0;
    for (const auto& l : r.layers) {
      if (l.device != device) continue;
      cycles += l.cycles;
      onHw += l.onHardwareNs;
      inDriver += l.inDriverNs;
      macs += l.macs;
    }
    totals[device] = {{"cycles", cycles}, {"onHardwareNs", onHw}, {"inDriverNs", inDriver}, {"macs", macs}};
  }
  j["acceleratorEnergy"] = codesign::toJson(r.acceleratorEnergy);
  if (!r.dramCounters.empty()) j["dram"] = dramJson(r);
  j["estimates"] = r.estimates;
  if (r.nnapiOnHardwareNs) {
    j["nnapiDurations"] = {{"onHardwareNs", *r.nnapiOnHardwareNs}, {"inDriverNs", *r.nnapiInDriverNs}};
  } else {
    j["nnapiDurations"] = {{"available", false}, {"reason", r.nnapiDurationNote}};
  }
  j["simulator"] = {{"wallSeconds", r.simulatorWallSeconds}, {"cycles", r.simulatedCycles},
                    {"cyclesPerSecond", r.simulatorWallSeconds > 0 ? r.simulatedCycles / r.simulatorWallSeconds : 0}};
  j["wallSeconds"] = {{"compile", r.compileWallSeconds}, {"run", r.runWallSeconds},
                      {"reference", r.referenceWallSeconds}};
  if (!r.referenceChecked) {
    j["referenceCheck"] = {{"run", false}, {"reason", "the " + r.backend + " backend computes no outputs"}};
  } else if (!r.referenceRule.empty()) {
    j["referenceCheck"] = {{"run", true}, {"passed", r.referencePassed}, {"rule", r.referenceRule},
                           {"failures", r.referenceFailures}};
  } else {
    j["referenceCheck"] = {{"run", true}, {"passed", r.referencePassed}, {"tolerance", r.tolerance},
                           {"worstError", r.worstError}, {"worstLayer", r.worstLayer},
                           {"firstFailingLayer", r.firstFailingLayer}, {"driftedLayers", r.driftedLayers},
                           {"worstDrift", r.worstDrift}, {"worstDriftLayer", r.worstDriftLayer}};
  }
  for (const auto& [key, value] : r.extra.items()) j[key] = value;
  return j.dump(2) + "\n";
}

std::string toCsv(const RunReport& r) {
  std::string out =
      "index,layer,operation,device,unit,cycles,on_hardware_ns,in_driver_ns,macs,peak_ops_per_cycle,utilization,"
      "array_busy,vector_busy,load_busy,store_busy,dram_stall,bound_by,dram_read_bytes,dram_write_bytes,min_dram_bytes,"
      "cycles_over_bound,max_error,energy_pj,area_um2\n";
  // The configuration's area on every row, so that rows of several reports can be pooled.
  const double area = r.estimates.is_object() ? r.estimates.value("areaUm2", 0.0) : 0.0;
  for (const auto& l : r.layers) {
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},{},{},{},{},{:.4f},{},{:.1f},{:.1f}\n",
                       l.index, l.name, l.op, l.device, l.unit, l.cycles, l.onHardwareNs, l.inDriverNs, l.macs,
                       l.peakOpsPerCycle, l.utilization, l.arrayBusy, l.vectorBusy, l.loadBusy, l.storeBusy,
                       l.dramStall, boundBy(l), l.dramReadBytes, l.dramWriteBytes, l.minDramBytes,
                       cyclesOverBound(l, r.dramBytesPerCycle), l.maxError, l.energy.totalPj(),
                       area);
  }
  return out;
}

void requireWritableDirectoryFor(const std::string& path) {
  if (::access(path.c_str(), W_OK) == 0) return;  // an existing file it may write (or /dev/stdout, a pipe)
  const auto parent = std::filesystem::path(path).parent_path();
  const std::string dir = std::filesystem::absolute(parent.empty() ? "." : parent).lexically_normal().string();
  try {
    common::createDirectories(dir);
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("{}: {} cannot be written (run weft in a directory you can write, or "
                                         "name the outputs' paths)", e.what(), path));
  }
  if (::access(dir.c_str(), W_OK) != 0) {
    throw std::runtime_error(fmt::format("the directory {} is not writable, so {} cannot be written (run weft in a "
                                         "directory you can write, or name the outputs' paths)", dir, path));
  }
}

void writeOutputFile(const std::string& path, const std::string& text) {
  requireWritableDirectoryFor(path);
  std::ofstream out(path, std::ios::binary);
  out << text;
  if (!out) throw std::runtime_error(fmt::format("cannot write '{}'", path));
}

}  // namespace weft::tool
