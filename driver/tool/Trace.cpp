#include "Trace.h"

#include <algorithm>
#include <map>

namespace weft::tool {

using nlohmann::ordered_json;

int ChromeTrace::process(const std::string& name) {
  const int pid = nextPid_++;
  events_.push_back({{"ph", "M"}, {"name", "process_name"}, {"pid", pid}, {"tid", 0}, {"args", {{"name", name}}}});
  events_.push_back({{"ph", "M"}, {"name", "process_sort_index"}, {"pid", pid}, {"tid", 0}, {"args", {{"sort_index", pid}}}});
  return pid;
}

int ChromeTrace::thread(int pid, const std::string& name) {
  const int tid = nextTid_++;
  events_.push_back({{"ph", "M"}, {"name", "thread_name"}, {"pid", pid}, {"tid", tid}, {"args", {{"name", name}}}});
  return tid;
}

void ChromeTrace::slice(int pid, int tid, const std::string& name, double startUs, double durationUs,
                        const ordered_json& args) {
  events_.push_back({{"ph", "X"}, {"name", name}, {"pid", pid}, {"tid", tid}, {"ts", startUs}, {"dur", durationUs},
                     {"args", args}});
}

void ChromeTrace::counter(int pid, const std::string& name, double atUs, const ordered_json& values) {
  events_.push_back({{"ph", "C"}, {"name", name}, {"pid", pid}, {"tid", 0}, {"ts", atUs}, {"args", values}});
}

std::string ChromeTrace::dump(const ordered_json& metadata) const {
  return ordered_json{{"traceEvents", events_}, {"displayTimeUnit", "ns"}, {"otherData", metadata}}.dump(1) + "\n";
}

std::string buildTrace(const std::string& deviceName, double clockMHz, const std::vector<DeviceSpan>& device,
                       const std::vector<HostSpan>& host, const ordered_json& metadata) {
  ChromeTrace trace;
  const int dev = trace.process(deviceName);
  const int layers = trace.thread(dev, "layers");
  const double usPerCycle = 1.0 / clockMHz;
  uint64_t cycle = 0;
  for (const DeviceSpan& s : device) {
    const double start = static_cast<double>(cycle) * usPerCycle, length = static_cast<double>(s.cycles) * usPerCycle;
    trace.slice(dev, layers, s.name, start, length, s.args);
    trace.counter(dev, "unit busy %", start,
                  {{"array", 100 * s.arrayBusy}, {"vector", 100 * s.vectorBusy}, {"load", 100 * s.loadBusy},
                   {"store", 100 * s.storeBusy}});
    trace.counter(dev, "DRAM stall %", start, {{"stall", 100 * s.dramStall}});
    // Bytes per cycle over the layer: DRAM traffic as a rate.
    const double cycles = static_cast<double>(std::max<uint64_t>(1, s.cycles));
    trace.counter(dev, "DRAM bytes/cycle", start,
                  {{"read", static_cast<double>(s.dramReadBytes) / cycles},
                   {"write", static_cast<double>(s.dramWriteBytes) / cycles}});
    cycle += s.cycles;
  }
  // Every counter track back to zero where the device timeline ends.
  const double end = static_cast<double>(cycle) * usPerCycle;
  trace.counter(dev, "unit busy %", end, {{"array", 0}, {"vector", 0}, {"load", 0}, {"store", 0}});
  trace.counter(dev, "DRAM stall %", end, {{"stall", 0}});
  trace.counter(dev, "DRAM bytes/cycle", end, {{"read", 0}, {"write", 0}});

  const int hostPid = trace.process("host (wall time)");
  std::map<std::string, int> tracks;
  double at = 0;
  for (const HostSpan& s : host) {
    auto [it, added] = tracks.emplace(s.track, 0);
    if (added) it->second = trace.thread(hostPid, s.track);
    trace.slice(hostPid, it->second, s.name, at * 1e6, s.seconds * 1e6);
    at += s.seconds;
  }
  return trace.dump(metadata);
}

}  // namespace weft::tool
