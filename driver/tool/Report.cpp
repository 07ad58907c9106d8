#include "Report.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <nlohmann/json.hpp>

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

void printTable(const RunReport& r, std::ostream& out) {
  fmt::print(out, "{} on {} ({}x{} @ {:.0f} MHz, backend {})\n\n", r.network, r.hwConfig, r.rows, r.cols,
             r.clockMHz, r.backend);
  // Names as long as torchvision's ("layer2.0.downsample") widen the column rather than shift a row.
  size_t nameWidth = 14;
  for (const auto& l : r.layers) nameWidth = std::max(nameWidth, l.name.size());
  fmt::print(out, "{:>3}  {:<{}} {:<18} {:<11} {:>10} {:>11} {:>11} {:>6} {:>10} {:>10} {:>4}\n", "#", "layer",
             nameWidth, "operation", "device", "cycles", "on-hw us", "in-drv us", "util%", "DRAM rd KiB",
             "DRAM wr KiB", "err");
  for (const auto& l : r.layers) {
    const std::string util = l.cycles > 0 ? fmt::format("{:.1f}", 100.0 * l.utilization) : "-";
    fmt::print(out, "{:>3}  {:<{}} {:<18} {:<11} {:>10} {:>11} {:>11} {:>6} {:>10} {:>10} {:>4}\n", l.index,
               l.name, nameWidth, l.op, l.device, l.cycles, us(l.onHardwareNs), us(l.inDriverNs), util,
               kib(l.dramReadBytes), kib(l.dramWriteBytes), l.maxError);
  }
  // One total per device: device cycles and host time do not add up.
  for (const std::string& device : r.devices()) {
    std::vector<LayerReport> mine;
    for (const auto& l : r.layers) {
      if (l.device == device) mine.push_back(l);
    }
    const uint64_t cycles = sum(mine, [](const auto& l) { return l.cycles; });
    const uint64_t macs = sum(mine, [](const auto& l) { return l.cycles > 0 ? l.macs : 0; });
    const std::string util =
        cycles > 0 ? fmt::format("{:.1f}", 100.0 * macs / (double(r.rows) * r.cols * cycles)) : "-";
    fmt::print(out, "{:>3}  {:<{}} {:<18} {:<11} {:>10} {:>11} {:>11} {:>6} {:>10} {:>10} {:>4}\n", "", "total",
               nameWidth, fmt::format("{} layers", mine.size()), device, cycles,
               us(sum(mine, [](const auto& l) { return l.onHardwareNs; })),
               us(sum(mine, [](const auto& l) { return l.inDriverNs; })), util,
               kib(sum(mine, [](const auto& l) { return l.dramReadBytes; })),
               kib(sum(mine, [](const auto& l) { return l.dramWriteBytes; })),
               [&] {
                 int worst = 0;
                 for (const auto& l : mine) worst = std::max(worst, l.maxError);
                 return worst;
               }());
  }
  fmt::print(out, "\n");
  if (r.nnapiOnHardwareNs) {
    fmt::print(out, "NNAPI durations: on hardware {} us, in driver {} us\n", us(*r.nnapiOnHardwareNs),
               us(*r.nnapiInDriverNs));
  } else {
    fmt::print(out, "NNAPI durations: not available ({})\n", r.nnapiDurationNote);
  }
  const double rate = r.simulatorWallSeconds > 0 ? r.simulatedCycles / r.simulatorWallSeconds : 0;
  fmt::print(out, "simulator: {} cycles in {:.2f} s wall = {:.0f} simulated cycles/s\n", r.simulatedCycles,
             r.simulatorWallSeconds, rate);
  fmt::print(out, "wall time: accelerated run {:.2f} s, reference run {:.2f} s\n", r.runWallSeconds,
             r.referenceWallSeconds);
  if (r.referencePassed) {
    fmt::print(out, "reference check: PASS (worst error {} at {}, tolerance {})\n", r.worstError, r.worstLayer,
               r.tolerance);
  } else {
    fmt::print(out, "reference check: FAIL at layer {} (worst error {} at {}, tolerance {})\n",
               r.firstFailingLayer, r.worstError, r.worstLayer, r.tolerance);
  }
}

std::string toJson(const RunReport& r) {
  nlohmann::ordered_json j;
  j["network"] = r.network;
  j["backend"] = r.backend;
  j["hw"] = {{"config", r.hwConfig}, {"rows", r.rows}, {"cols", r.cols}, {"clockMHz", r.clockMHz}};
  auto& layers = j["layers"] = nlohmann::ordered_json::array();
  for (const auto& l : r.layers) {
    layers.push_back({{"index", l.index}, {"name", l.name}, {"operation", l.op}, {"inputs", l.inputs},
                      {"device", l.device},
                      {"cycles", l.cycles}, {"onHardwareNs", l.onHardwareNs}, {"inDriverNs", l.inDriverNs},
                      {"macs", l.macs}, {"macUtilization", l.utilization}, {"dramReadBytes", l.dramReadBytes},
                      {"dramWriteBytes", l.dramWriteBytes}, {"maxError", l.maxError}});
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
  if (r.nnapiOnHardwareNs) {
    j["nnapiDurations"] = {{"onHardwareNs", *r.nnapiOnHardwareNs}, {"inDriverNs", *r.nnapiInDriverNs}};
  } else {
    j["nnapiDurations"] = {{"available", false}, {"reason", r.nnapiDurationNote}};
  }
  j["simulator"] = {{"wallSeconds", r.simulatorWallSeconds}, {"cycles", r.simulatedCycles},
                    {"cyclesPerSecond", r.simulatorWallSeconds > 0 ? r.simulatedCycles / r.simulatorWallSeconds : 0}};
  j["wallSeconds"] = {{"run", r.runWallSeconds}, {"reference", r.referenceWallSeconds}};
  j["referenceCheck"] = {{"passed", r.referencePassed}, {"tolerance", r.tolerance}, {"worstError", r.worstError},
                         {"worstLayer", r.worstLayer}, {"firstFailingLayer", r.firstFailingLayer}};
  return j.dump(2) + "\n";
}

std::string toCsv(const RunReport& r) {
  std::string out =
      "index,layer,operation,device,cycles,on_hardware_ns,in_driver_ns,macs,mac_utilization,dram_read_bytes,"
      "dram_write_bytes,max_error\n";
  for (const auto& l : r.layers) {
    out += fmt::format("{},{},{},{},{},{},{},{},{:.6f},{},{},{}\n", l.index, l.name, l.op, l.device, l.cycles,
                       l.onHardwareNs, l.inDriverNs, l.macs, l.utilization, l.dramReadBytes, l.dramWriteBytes,
                       l.maxError);
  }
  return out;
}

}  // namespace weft::tool
