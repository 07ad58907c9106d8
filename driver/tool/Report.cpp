#include "Report.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

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

uint64_t RunReport::totalCycles() const { return sum(layers, [](const auto& l) { return l.cycles; }); }
uint64_t RunReport::totalOnHardwareNs() const { return sum(layers, [](const auto& l) { return l.onHardwareNs; }); }
uint64_t RunReport::totalInDriverNs() const { return sum(layers, [](const auto& l) { return l.inDriverNs; }); }
uint64_t RunReport::totalMacs() const { return sum(layers, [](const auto& l) { return l.macs; }); }
uint64_t RunReport::acceleratorMacs() const {
  return sum(layers, [](const auto& l) { return l.cycles > 0 ? l.macs : 0; });
}

void printTable(const RunReport& r, std::ostream& out) {
  fmt::print(out, "{} on {} ({}x{} @ {:.0f} MHz, backend {})\n\n", r.network, r.hwConfig, r.rows, r.cols,
             r.clockMHz, r.backend);
  fmt::print(out, "{:>3}  {:<14} {:<18} {:<11} {:>10} {:>11} {:>11} {:>6} {:>10} {:>10} {:>4}\n", "#", "layer",
             "operation", "device", "cycles", "on-hw us", "in-drv us", "util%", "DRAM rd KiB", "DRAM wr KiB",
             "err");
  for (const auto& l : r.layers) {
    const std::string util = l.cycles > 0 ? fmt::format("{:.1f}", 100.0 * l.utilization) : "-";
    fmt::print(out, "{:>3}  {:<14} {:<18} {:<11} {:>10} {:>11} {:>11} {:>6} {:>10} {:>10} {:>4}\n", l.index,
               l.name, l.op, l.device, l.cycles, us(l.onHardwareNs), us(l.inDriverNs), util,
               kib(l.dramReadBytes), kib(l.dramWriteBytes), l.maxError);
  }
  const uint64_t cycles = r.totalCycles();
  const double util = cycles > 0 ? static_cast<double>(r.acceleratorMacs()) / (double(r.rows) * r.cols * cycles) : 0;
  fmt::print(out, "{:>3}  {:<14} {:<18} {:<11} {:>10} {:>11} {:>11} {:>6} {:>10} {:>10} {:>4}\n\n", "", "total", "",
             "", cycles, us(r.totalOnHardwareNs()), us(r.totalInDriverNs()), fmt::format("{:.1f}", 100 * util),
             kib(sum(r.layers, [](const auto& l) { return l.dramReadBytes; })),
             kib(sum(r.layers, [](const auto& l) { return l.dramWriteBytes; })), r.worstError);
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
    layers.push_back({{"index", l.index}, {"name", l.name}, {"operation", l.op}, {"device", l.device},
                      {"cycles", l.cycles}, {"onHardwareNs", l.onHardwareNs}, {"inDriverNs", l.inDriverNs},
                      {"macs", l.macs}, {"macUtilization", l.utilization}, {"dramReadBytes", l.dramReadBytes},
                      {"dramWriteBytes", l.dramWriteBytes}, {"maxError", l.maxError}});
  }
  j["totals"] = {{"cycles", r.totalCycles()}, {"onHardwareNs", r.totalOnHardwareNs()},
                 {"inDriverNs", r.totalInDriverNs()}, {"macs", r.totalMacs()}};
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
