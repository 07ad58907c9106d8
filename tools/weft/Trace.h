// Timelines as Chrome trace-event JSON (the format ui.perfetto.dev and chrome://tracing open):
// `--trace FILE.json` on `weft run` and `weft layers`.
//
// The device process, in device cycles at the configuration's clock:
//   * "layers": one slice per accelerator layer (the span between the snapshot barriers around
//     it, layers end to end in execution order), with the layer's figures as arguments, and
//     counter tracks of the units' busy fractions and DRAM traffic per layer (the counters).
//   * One track per unit, one slice per command, from the per-command timelines both backends
//     record (sim/include/weft/sim/command_events.h; the tool turns recording on with
//     WEFT_COMMAND_TRACE=1): "load (DMA in)", "compute (array)", "store (post-processing, DMA
//     out)", "vector". A slice spans the cycle the unit took the command from its FIFO through
//     the cycle it retired it, is named by opcode and carries the command's index in its
//     program, its dispatch/start/complete cycles, the cycles it queued and its decoded fields.
//   * "controller (decode, NOP, BARRIER)": each command from the cycle it entered decode to the
//     cycle it left (dispatched to its unit's FIFO; a NOP or BARRIER: retired, so a BARRIER's
//     slice shows the wait for the machine to drain and its snapshot write).
//   * Counter tracks derived from those events: "command FIFO entries" per unit, "token queue
//     tokens" per dependency queue (popped at a start, pushed at a completion) and "DMA bytes of
//     running commands" (a LOAD's or STORE's bytes while it runs); and from the device's DRAM
//     requests (recorded with them): "DRAM bytes in flight" and "DRAM requests in flight", read
//     and write, each request from its acceptance through its last read beat or its write
//     acknowledgement, averaged over windows (at most about 4000 a program, at least 16 cycles).
//   * With a cycle-level DRAM, its commands on a track per channel ("DRAM channel N"): one slice
//     per ACT, PRE, RD, WR, RDA, WRA, REF or REFb, one DRAM clock long (a channel issues at most
//     one command a DRAM cycle), at the time its DRAM cycle begins, with its rank, bank group,
//     bank, row, address and DRAM cycle as arguments. The DRAM model behind both backends is one
//     (sim/include/weft/sim/cycle_dram.h), so RTL and approx give the same commands.
// An execution's commands are placed so that its first BARRIER's start (the snapshot opening
// its first layer) is where that layer's slice begins. Both backends give the same counters
// and the same command events, so they give the same device process, event for event.
//
// The host process, in wall time from the tool's start: `run` has the NNAPI calls (building
// the model, supported operations, compilation, executions), the compilation's partitioning
// and each step's device compilation (prepareModel: lowering, tiling search, program), the
// host time inside the device backend (simulation) and the reference run; `layers` has each
// layer's building and compiling, its execution and the simulator's share of it.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "weft/hal/IPreparedModel.h"

namespace weft::tool {

// Builds the traceEvents list: processes and threads get names, slices ("X") and counters ("C")
// take microseconds.
class ChromeTrace {
 public:
  int process(const std::string& name);
  int thread(int pid, const std::string& name);
  void slice(int pid, int tid, const std::string& name, double startUs, double durationUs,
             const nlohmann::ordered_json& args = nlohmann::ordered_json::object());
  void counter(int pid, const std::string& name, double atUs, const nlohmann::ordered_json& values);
  // {"traceEvents": [...], "displayTimeUnit": "ns", "otherData": metadata}
  std::string dump(const nlohmann::ordered_json& metadata) const;

 private:
  void add(const nlohmann::ordered_json& event);
  std::vector<std::string> events_;  // each event's JSON text
  int nextPid_ = 1;
  int nextTid_ = 1;
};

// One accelerator layer as the device timeline shows it.
struct DeviceSpan {
  std::string name;
  uint64_t cycles = 0;
  nlohmann::ordered_json args;  // its figures: operation, unit, MACs, utilization, bytes, energy...
  // Per-layer averages for the counter tracks: fractions of the layer's cycles and DRAM bytes.
  double arrayBusy = 0, vectorBusy = 0, loadBusy = 0, storeBusy = 0, dramStall = 0;
  uint64_t dramReadBytes = 0, dramWriteBytes = 0;
};

// One stretch of host work, in wall seconds.
struct HostSpan {
  std::string track;  // "NNAPI calls", "compilation", "simulation", ...
  std::string name;
  double seconds = 0;
  double start = -1;  // seconds from the trace's origin; negative: where the previous span ended
};

// One execution's per-command timelines (hal::CommandProfile, program order), placed on the
// device timeline: the start of its first BARRIER (the snapshot that opens its first layer)
// lands at cycle `atCycle`, where that layer's slice begins.
struct DeviceCommands {
  uint64_t atCycle = 0;
  uint32_t cols = 0;  // the array's columns (a STORE's row bytes)
  std::vector<hal::CommandProfile> commands;
  std::vector<hal::DramRequestProfile> dram;  // its DRAM requests
  std::vector<hal::DramCommandProfile> dramCommands;  // a cycle-level DRAM's commands
};

// What a trace kept of its --trace-limit (so far, for runs that cut layer by layer).
struct TraceBudget {
  size_t commands = 0;
  size_t dramCommands = 0;
  bool cut = false;  // some were left out
};
// Cuts one execution's timelines to what is left of `limit` after `kept`: its first commands and
// the DRAM requests and DRAM commands issued while they ran (a trace shows --trace-limit commands,
// about 1 KB of trace each), and at most as many DRAM commands, counted apart (a network's DRAM
// issues hundreds of thousands, about 200 bytes of trace each). Adds what it kept to `kept`;
// true when it cut.
bool keepWithin(std::vector<hal::CommandProfile>& commands, std::vector<hal::DramRequestProfile>& dram,
                std::vector<hal::DramCommandProfile>& dramCommands, size_t limit, TraceBudget& kept);
// The same over a run's executions in order, `limit` commands and `limit` DRAM commands in all.
TraceBudget keepFirstCommands(std::vector<DeviceCommands>& executions, size_t limit);
// What was kept, "the first N commands [and M DRAM commands] (--trace-limit)", for the message
// on stderr and for a cut trace's otherData.commandsTruncated (commandsTruncatedNote).
std::string traceKeptText(const TraceBudget& kept);
std::string commandsTruncatedNote(const TraceBudget& kept);

// The trace of a run: the device's layers in execution order (clock in MHz turns cycles into
// time) on process `deviceName`, with the executions' command timelines when there are any,
// and the host spans end to end on process "host".
std::string buildTrace(const std::string& deviceName, double clockMHz, const std::vector<DeviceSpan>& device,
                       const std::vector<HostSpan>& host, const nlohmann::ordered_json& metadata,
                       const std::vector<DeviceCommands>& commands = {});

}  // namespace weft::tool
