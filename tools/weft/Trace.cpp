#include "Trace.h"

#include <algorithm>
#include <array>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "weft/hw/command_word.h"
#include "weft/hw/generated.h"
#include "weft/sim/dram/memory_system.h"

namespace weft::tool {

using nlohmann::ordered_json;

int ChromeTrace::process(const std::string& name) {
  const int pid = nextPid_++;
  add({{"ph", "M"}, {"name", "process_name"}, {"pid", pid}, {"tid", 0}, {"args", {{"name", name}}}});
  add({{"ph", "M"}, {"name", "process_sort_index"}, {"pid", pid}, {"tid", 0}, {"args", {{"sort_index", pid}}}});
  return pid;
}

int ChromeTrace::thread(int pid, const std::string& name) {
  const int tid = nextTid_++;
  add({{"ph", "M"}, {"name", "thread_name"}, {"pid", pid}, {"tid", tid}, {"args", {{"name", name}}}});
  return tid;
}

void ChromeTrace::slice(int pid, int tid, const std::string& name, double startUs, double durationUs,
                        const ordered_json& args) {
  add({{"ph", "X"}, {"name", name}, {"pid", pid}, {"tid", tid}, {"ts", startUs}, {"dur", durationUs}, {"args", args}});
}

void ChromeTrace::counter(int pid, const std::string& name, double atUs, const ordered_json& values) {
  add({{"ph", "C"}, {"name", name}, {"pid", pid}, {"tid", 0}, {"ts", atUs}, {"args", values}});
}

// An event is kept as its JSON text: a JSON object per event took about 1.7 KB of heap, so a
// table of millions of commands could not be traced in memory.
void ChromeTrace::add(const ordered_json& event) { events_.push_back(event.dump()); }

std::string ChromeTrace::dump(const ordered_json& metadata) const {
  // One line per event.
  size_t bytes = 256 + metadata.dump().size();
  for (const std::string& e : events_) bytes += e.size() + 2;
  std::string out;
  out.reserve(bytes);
  out = "{\"traceEvents\": [\n";
  for (size_t i = 0; i < events_.size(); ++i) {
    out += events_[i];
    out += i + 1 < events_.size() ? ",\n" : "\n";
  }
  out += "],\n\"displayTimeUnit\": \"ns\",\n\"otherData\": " + metadata.dump() + "\n}\n";
  return out;
}

namespace {

// The first `keep` commands and the DRAM requests and DRAM commands issued while they ran; true
// when it cut.
bool keepFirst(std::vector<hal::CommandProfile>& commands, std::vector<hal::DramRequestProfile>& dram,
               std::vector<hal::DramCommandProfile>& dramCommands, size_t keep) {
  if (commands.size() <= keep) return false;
  commands.resize(keep);
  uint64_t until = 0;
  for (const auto& c : commands) until = std::max(until, c.complete);
  dram.erase(std::remove_if(dram.begin(), dram.end(),
                            [&](const hal::DramRequestProfile& d) { return keep == 0 || d.issue > until; }),
             dram.end());
  dramCommands.erase(std::remove_if(dramCommands.begin(), dramCommands.end(),
                                    [&](const hal::DramCommandProfile& d) {
                                      return keep == 0 || d.cycle > static_cast<double>(until);
                                    }),
                     dramCommands.end());
  commands.shrink_to_fit();
  dram.shrink_to_fit();
  dramCommands.shrink_to_fit();
  return true;
}

}  // namespace

bool keepWithin(std::vector<hal::CommandProfile>& commands, std::vector<hal::DramRequestProfile>& dram,
                std::vector<hal::DramCommandProfile>& dramCommands, size_t limit, TraceBudget& kept) {
  bool cut = keepFirst(commands, dram, dramCommands, limit - std::min(kept.commands, limit));
  const size_t dramLeft = limit - std::min(kept.dramCommands, limit);
  if (dramCommands.size() > dramLeft) {
    dramCommands.resize(dramLeft);
    dramCommands.shrink_to_fit();
    cut = true;
  }
  kept.commands += commands.size();
  kept.dramCommands += dramCommands.size();
  kept.cut = kept.cut || cut;
  return cut;
}

TraceBudget keepFirstCommands(std::vector<DeviceCommands>& executions, size_t limit) {
  TraceBudget kept;
  for (DeviceCommands& e : executions) keepWithin(e.commands, e.dram, e.dramCommands, limit, kept);
  return kept;
}

std::string traceKeptText(const TraceBudget& kept) {
  const std::string dram = kept.dramCommands > 0 ? fmt::format(" and {} DRAM commands", kept.dramCommands) : "";
  return fmt::format("the first {} commands{} (--trace-limit)", kept.commands, dram);
}

std::string commandsTruncatedNote(const TraceBudget& kept) {
  return "per-command tracks show " + traceKeptText(kept) + "; the layers track shows every layer";
}

namespace {

constexpr uint64_t kNone = std::numeric_limits<uint64_t>::max();

// The track of each unit's commands (hw::Unit order; control is the controller's track).
constexpr std::array<const char*, hw::kNumFifoUnits> kUnitTracks = {
    "load (DMA in)", "compute (array)", "store (post-processing, DMA out)", "vector"};

// A command's decoded fields, as arguments.
ordered_json commandArgs(const hal::CommandProfile& c) {
  hw::CommandWord word;
  word.words() = c.word;
  ordered_json fields = ordered_json::object();
  fields["wait0"] = word.get(hw::field::kWait0);
  fields["wait1"] = word.get(hw::field::kWait1);
  fields["signal0"] = word.get(hw::field::kSignal0);
  fields["signal1"] = word.get(hw::field::kSignal1);
  for (const auto& f : hw::kOpcodeFields) {
    if (static_cast<uint8_t>(f.op) != c.opcode) continue;
    if (f.field.isSigned) {
      fields[std::string(f.name)] = word.getSigned(f.field);
    } else {
      fields[std::string(f.name)] = word.get(f.field);
    }
  }
  return fields;
}

// DRAM bytes a LOAD reads or a STORE writes.
uint64_t commandDramBytes(const hal::CommandProfile& c, uint32_t cols) {
  hw::CommandWord word;
  word.words() = c.word;
  if (c.opcode == static_cast<uint8_t>(hw::Opcode::kLoad)) {
    const auto l = hw::LoadCmd::decode(word);
    return uint64_t{l.rowBytes} * l.count0 * l.count1 * l.count2;
  }
  if (c.opcode == static_cast<uint8_t>(hw::Opcode::kStore)) {
    const auto st = hw::StoreCmd::decode(word);
    const uint64_t e = hw::columnBytes(st.mode);
    return e * ((uint64_t{st.tiles} - 1) * cols + st.rowBytes) * st.count0 * st.count1;
  }
  return 0;
}

// DRAM requests in flight (from acceptance through the last read beat or the write
// acknowledgement), as averages over windows of W cycles: a network makes hundreds of thousands
// of requests, so the tracks hold at most about kDramWindows samples per execution.
template <typename At>
void dramCounters(ChromeTrace& trace, int dev, const At& at, const std::vector<hal::DramRequestProfile>& dram) {
  if (dram.empty()) return;
  constexpr uint64_t kDramWindows = 4000;
  struct Step {
    uint64_t cycle;
    int series;  // 0 read, 1 write
    int64_t bytes, requests;
  };
  std::vector<Step> steps;
  steps.reserve(2 * dram.size());
  uint64_t first = kNone, last = 0;
  for (const hal::DramRequestProfile& d : dram) {
    const int series = d.write ? 1 : 0;
    steps.push_back({d.issue, series, static_cast<int64_t>(d.bytes), 1});
    steps.push_back({d.done + 1, series, -static_cast<int64_t>(d.bytes), -1});
    first = std::min(first, d.issue);
    last = std::max(last, d.done + 1);
  }
  std::sort(steps.begin(), steps.end(), [](const Step& a, const Step& b) { return a.cycle < b.cycle; });
  const uint64_t window = std::max<uint64_t>(16, (last - first + kDramWindows - 1) / kDramWindows);
  int64_t bytes[2] = {0, 0}, requests[2] = {0, 0};
  size_t i = 0;
  for (uint64_t w = first; w < last; w += window) {
    // Integrate the step functions over [w, w + window).
    double bytesSum[2] = {0, 0}, requestsSum[2] = {0, 0};
    const uint64_t end = w + window;
    uint64_t t = w;
    const auto accumulate = [&](uint64_t until) {
      for (int k = 0; k < 2; ++k) {
        bytesSum[k] += static_cast<double>(bytes[k]) * static_cast<double>(until - t);
        requestsSum[k] += static_cast<double>(requests[k]) * static_cast<double>(until - t);
      }
      t = until;
    };
    for (; i < steps.size() && steps[i].cycle < end; ++i) {
      accumulate(std::max(t, steps[i].cycle));
      bytes[steps[i].series] += steps[i].bytes;
      requests[steps[i].series] += steps[i].requests;
    }
    accumulate(end);
    const double n = static_cast<double>(window);
    trace.counter(dev, "DRAM bytes in flight", at(w), {{"read", bytesSum[0] / n}, {"write", bytesSum[1] / n}});
    trace.counter(dev, "DRAM requests in flight", at(w),
                  {{"read", requestsSum[0] / n}, {"write", requestsSum[1] / n}});
  }
  trace.counter(dev, "DRAM bytes in flight", at(last), {{"read", 0}, {"write", 0}});
  trace.counter(dev, "DRAM requests in flight", at(last), {{"read", 0}, {"write", 0}});
}

// A cycle-level DRAM's commands: a track per channel, a slice per command one DRAM clock long
// (a channel's command bus carries one command a DRAM cycle, so a track's slices never overlap).
template <typename At>
void dramCommandTracks(ChromeTrace& trace, int dev, double usPerCycle, const At& at,
                       const std::vector<hal::DramCommandProfile>& commands, std::map<uint32_t, int>& channelTracks) {
  if (commands.empty()) return;
  // A DRAM clock in device cycles: each command's time is its DRAM cycle times that.
  double dramClock = 0;
  for (auto it = commands.rbegin(); it != commands.rend() && dramClock == 0; ++it) {
    if (it->dramCycle > 0) dramClock = it->cycle / static_cast<double>(it->dramCycle);
  }
  for (const hal::DramCommandProfile& c : commands) {
    auto [track, added] = channelTracks.emplace(c.channel, 0);
    if (added) track->second = trace.thread(dev, fmt::format("DRAM channel {}", c.channel));
    const auto kind = static_cast<sim::dram::CommandRecord::Kind>(c.kind);
    ordered_json args = {{"rank", c.rank}, {"bankGroup", c.bankGroup}, {"bank", c.bank}};
    if (c.row >= 0) args["row"] = c.row;
    if (c.kind != sim::dram::CommandRecord::kActivate && c.row >= 0) args["address"] = fmt::format("{:#x}", c.addr);
    args["dramCycle"] = c.dramCycle;
    trace.slice(dev, track->second, sim::dram::commandName(kind), at(c.cycle), dramClock * usPerCycle, args);
  }
}

// Per-command slices on one track per unit plus the controller's, and counter tracks of the
// unit FIFOs, the token queues and the DMA bytes of running commands, all from the events.
void commandTracks(ChromeTrace& trace, int dev, double usPerCycle, const std::vector<DeviceCommands>& executions) {
  bool any = false;
  for (const auto& e : executions) any = any || !e.commands.empty();
  if (!any) return;
  const int controller = trace.thread(dev, "controller (decode, NOP, BARRIER)");
  std::map<uint32_t, int> dramChannels;  // a DRAM channel's track, made at its first command
  std::array<int, hw::kNumFifoUnits> units{};
  for (size_t u = 0; u < units.size(); ++u) units[u] = trace.thread(dev, kUnitTracks[u]);
  for (const DeviceCommands& ex : executions) {
    if (ex.commands.empty()) continue;
    uint64_t origin = ex.commands.front().decode;
    for (const auto& c : ex.commands) {
      if (c.opcode == static_cast<uint8_t>(hw::Opcode::kBarrier) && c.start != kNone) {
        origin = c.start;
        break;
      }
    }
    const auto at = [&](auto cycle) {
      return (static_cast<double>(ex.atCycle) + static_cast<double>(cycle) - static_cast<double>(origin)) * usPerCycle;
    };
    // (cycle, counter series, delta), folded into values below.
    struct Change {
      uint64_t cycle;
      int counter, series;
      int64_t delta;
    };
    std::vector<Change> changes;
    for (const hal::CommandProfile& c : ex.commands) {
      if (c.decode == kNone) continue;
      const std::string name(hw::opcodeName(static_cast<hw::Opcode>(c.opcode)));
      const bool fifo = c.unit < hw::kNumFifoUnits;
      const uint64_t leave = fifo ? c.dispatch : c.complete;
      if (leave != kNone) {
        trace.slice(dev, controller, name, at(c.decode), static_cast<double>(leave - c.decode + 1) * usPerCycle,
                    {{"index", c.index}, {"decode", c.decode}, {"leave", leave}});
      }
      if (!fifo || c.start == kNone || c.complete == kNone) continue;
      ordered_json args = {{"index", c.index},       {"dispatch", c.dispatch},
                           {"start", c.start},       {"complete", c.complete},
                           {"queued", c.start - c.dispatch}, {"fields", commandArgs(c)}};
      trace.slice(dev, units[c.unit], name, at(c.start), static_cast<double>(c.complete - c.start + 1) * usPerCycle,
                  args);
      // FIFO: in from the cycle after the dispatch, out from the cycle after the start.
      changes.push_back({c.dispatch + 1, 0, c.unit, 1});
      changes.push_back({c.start + 1, 0, c.unit, -1});
      // Tokens: popped at the start, pushed at the completion (visible from the next cycle).
      hw::CommandWord word;
      word.words() = c.word;
      const auto& ports = hw::kUnitTokenPorts[c.unit];
      const hw::Field waits[2] = {hw::field::kWait0, hw::field::kWait1};
      const hw::Field signals[2] = {hw::field::kSignal0, hw::field::kSignal1};
      for (int i = 0; i < 2; ++i) {
        if (word.get(waits[i]) && ports.waits[i] >= 0) changes.push_back({c.start + 1, 1, ports.waits[i], -1});
        if (word.get(signals[i]) && ports.signals[i] >= 0) changes.push_back({c.complete + 1, 1, ports.signals[i], 1});
      }
      const uint64_t bytes = commandDramBytes(c, ex.cols);
      if (bytes > 0) {
        const int series = c.opcode == static_cast<uint8_t>(hw::Opcode::kLoad) ? 0 : 1;
        changes.push_back({c.start, 2, series, static_cast<int64_t>(bytes)});
        changes.push_back({c.complete + 1, 2, series, -static_cast<int64_t>(bytes)});
      }
    }
    std::stable_sort(changes.begin(), changes.end(), [](const Change& a, const Change& b) { return a.cycle < b.cycle; });
    constexpr int kCounters = 3;
    const char* counterNames[kCounters] = {"command FIFO entries", "token queue tokens", "DMA bytes of running commands"};
    std::vector<std::vector<std::string>> series(kCounters);
    for (const char* u : kUnitTracks) series[0].emplace_back(u);
    for (const auto& q : hw::kTokenQueues) series[1].emplace_back(q.name);
    series[2] = {"LOAD (read)", "STORE (write)"};
    std::vector<std::vector<int64_t>> value(kCounters);
    for (int k = 0; k < kCounters; ++k) value[k].assign(series[k].size(), 0);
    const auto emit = [&](int k, double ts) {
      ordered_json v = ordered_json::object();
      for (size_t i = 0; i < series[k].size(); ++i) v[series[k][i]] = value[k][i];
      trace.counter(dev, counterNames[k], ts, v);
    };
    for (size_t i = 0; i < changes.size();) {
      const uint64_t cycle = changes[i].cycle;
      bool touched[kCounters] = {};
      for (; i < changes.size() && changes[i].cycle == cycle; ++i) {
        value[changes[i].counter][changes[i].series] += changes[i].delta;
        touched[changes[i].counter] = true;
      }
      for (int k = 0; k < kCounters; ++k) {
        if (touched[k]) emit(k, at(cycle));
      }
    }
    dramCounters(trace, dev, at, ex.dram);
    dramCommandTracks(trace, dev, usPerCycle, at, ex.dramCommands, dramChannels);
  }
}

}  // namespace

std::string buildTrace(const std::string& deviceName, double clockMHz, const std::vector<DeviceSpan>& device,
                       const std::vector<HostSpan>& host, const ordered_json& metadata,
                       const std::vector<DeviceCommands>& commands) {
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
  commandTracks(trace, dev, usPerCycle, commands);

  const int hostPid = trace.process("host (wall time)");
  std::map<std::string, int> tracks;
  double at = 0;
  for (const HostSpan& s : host) {
    auto [it, added] = tracks.emplace(s.track, 0);
    if (added) it->second = trace.thread(hostPid, s.track);
    const double start = s.start >= 0 ? s.start : at;
    trace.slice(hostPid, it->second, s.name, start * 1e6, s.seconds * 1e6);
    at = std::max(at, start + s.seconds);
  }
  return trace.dump(metadata);
}

}  // namespace weft::tool
