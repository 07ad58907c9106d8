// What `weft run` measured, and its three renderings: a terminal table, JSON and CSV.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "Energy.h"
#include "Estimator.h"
#include "Trace.h"

namespace weft::tool {

struct LayerReport {
  size_t index = 0;
  std::string name, op, device;
  std::vector<std::string> inputs;  // what the layer reads: "input" or layers' names
  uint64_t cycles = 0;          // device cycles (0 off the accelerator)
  uint64_t estimatedCycles = 0; // the compiler's estimate of them (0 off the accelerator)
  uint64_t onHardwareNs = 0;
  uint64_t inDriverNs = 0;
  uint64_t macs = 0;            // the array's MACs, the vector unit's lane operations
  std::string unit = "cpu";     // where it ran: "array", "vector" or "cpu"
  uint64_t peakOpsPerCycle = 0; // that unit's peak rate of `macs`
  double utilization = 0;       // macs / (peakOpsPerCycle * cycles), accelerator layers only
  std::string mapping;          // the compiler's tiling of an accelerator layer
  // Where the layer's cycles go (fractions of them): each unit busy with a command, and the DMA
  // waiting on DRAM (read and write stall cycles, capped at all of them).
  double arrayBusy = 0, vectorBusy = 0, loadBusy = 0, storeBusy = 0, dramStall = 0;
  uint64_t dramReadBytes = 0, dramWriteBytes = 0;
  uint64_t minDramBytes = 0;    // the least DRAM traffic: every tensor the layer reads and writes, once
  // Largest |accelerator - reference| of the layer's output (quant8 units): against the CPU-only
  // run of the network; where that exceeds the tolerance, against the reference kernel run on the
  // accelerator's inputs for the layer (differences built up by the layers before are drift).
  int maxError = 0;
  int driftError = 0;           // against the CPU-only run of the whole network

  std::string reason;           // off the accelerator: why its driver does not take the operation
  codesign::EnergyBreakdown energy;  // accelerator layers: from their counters (tools/codesign)
  // A cycle-level DRAM's counters over the layer (DRAM_*: its growth between the snapshots
  // around the layer); empty for the simple pipe.
  std::vector<std::pair<std::string, uint64_t>> dramCounters;
};

// The unit whose busy fraction is largest ("array", "vector", "load", "store"): what bounds the
// layer; "-" off the accelerator.
std::string boundBy(const LayerReport& layer);

// The layer's cycles over the larger of its limits, accelerator layers only (0 otherwise): the
// compute bound (macs / peakOpsPerCycle) and the bandwidth bound (minDramBytes / DRAM bytes a
// cycle). 1.00 is a layer at its limit.
double cyclesOverBound(const LayerReport& layer, int64_t dramBytesPerCycle);

struct RunReport {
  std::string network, backend, hwConfig;
  // The accelerator executions' per-command timelines (only with --trace), for the trace, and
  // what --trace-limit kept of them.
  std::vector<DeviceCommands> commands;
  TraceBudget traceKept;
  unsigned rows = 0, cols = 0;
  double clockMHz = 0;
  int64_t dramBytesPerCycle = 0;
  std::string hwEnums;              // the enumerated parameters: "Dataflow WS" (HwConfig::enumParamsText)
  nlohmann::ordered_json hwParams;  // every parameter, enumerated ones by name (HwConfig::toJson's "params")
  std::vector<LayerReport> layers;
  // NNAPI's own durations of the accelerated run, when NNAPI defines them.
  std::optional<uint64_t> nnapiOnHardwareNs, nnapiInDriverNs;
  std::string nnapiDurationNote;
  double simulatorWallSeconds = 0;
  uint64_t simulatedCycles = 0;
  double runWallSeconds = 0, referenceWallSeconds = 0;
  int tolerance = 0;
  bool referencePassed = false;
  bool referenceChecked = true;  // false on the timing backend, which computes no outputs
  std::string worstLayer, firstFailingLayer;
  // A corpus case's check (weft run <case.json>): NNAPI's tolerances against the case's expected
  // outputs instead of quant8 units against the CPU device; its failures, one a line.
  std::string referenceRule, referenceFailures;
  int worstError = 0;
  // Layers whose end-to-end difference exceeded the tolerance (each checked on its own inputs),
  // and the largest such difference.
  size_t driftedLayers = 0;
  int worstDrift = 0;
  std::string worstDriftLayer;
  // Co-design estimates (tools/codesign): the accelerator's energy (its layers' and the
  // execution's register accesses), the configuration's area and the models' sources.
  codesign::EnergyBreakdown acceleratorEnergy;
  std::vector<size_t> deviceOrder;  // accelerator layers in the order the device ran them
  double compileWallSeconds = 0;
  // The host side for the trace: NNAPI calls, compilation steps and simulation, in wall time.
  std::vector<HostSpan> hostSpans;
  // What a kind of model adds to the JSON report after the rest (an ONNX run: its outputs and
  // their files, the int8 accuracy): an object whose keys are appended as they are.
  nlohmann::ordered_json extra = nlohmann::ordered_json::object();
  std::vector<std::string> estimateLines;
  // A cycle-level DRAM's counters over the execution (DRAM_READS, DRAM_ROW_HITS, DRAM_ENERGY_PJ,
  // ...: weft/sim/dram_counters.h), and the device's name; empty for the simple pipe. Each
  // layer has its own (LayerReport::dramCounters); the DRAM energy outside every layer (the
  // program's start, the posted writes drained at its end) is dramOutsideLayersPj
  // (attributeDramEnergy).
  std::vector<std::pair<std::string, uint64_t>> dramCounters;
  std::string dramDevice;
  double dramOutsideLayersPj = 0;
  nlohmann::ordered_json estimates;

  // The devices of the layers, in order of first use.
  std::vector<std::string> devices() const;
};

void printTable(const RunReport& report, std::ostream& out);
std::string toJson(const RunReport& report);
std::string toCsv(const RunReport& report);

// Writes one of the tool's outputs (a report, a table, a trace, an outputs file) where the user
// said, its folder created, or throws std::runtime_error "cannot write '<path>'". In place, not
// through a rename: the path may be /dev/stdout or a pipe.
void writeOutputFile(const std::string& path, const std::string& text);

// Creates the folder `path` goes in and checks it can be written, or throws std::runtime_error
// naming the directory and why: called before a run too, so that an unwritable working
// directory (an install's prefix, /) fails at once, not after minutes of simulation.
void requireWritableDirectoryFor(const std::string& path);

}  // namespace weft::tool
