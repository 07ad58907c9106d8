// A cycle-level DRAM's counters in the tool's per-layer reports. The DRAM lives in the driver's
// accelerator module, which writes its counters (DRAM_ROW_HITS, DRAM_ENERGY_PJ, ...; each one's
// growth since the file was named: sim/include/weft/sim/dram_counters.h) to the file
// WEFT_DRAM_STATS names at the end of every program; the tool reads it after each execution and
// reports the growth.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "weft/hw/config.h"

namespace weft::tool {

// For the life of a command: when `hw` has a cycle-level DRAM, points WEFT_DRAM_STATS at a
// temporary file (removed at the end). Nothing for Dram "simple".
class DramCountersScope {
 public:
  explicit DramCountersScope(const hw::HwConfig& hw);
  ~DramCountersScope();
  DramCountersScope(const DramCountersScope&) = delete;
  DramCountersScope& operator=(const DramCountersScope&) = delete;

 private:
  std::string path_;
};

// Appends to `counters` each DRAM counter's growth since the previous call, replacing an entry of
// the same name (a layer's, from its snapshots: the program's includes its end). Nothing when no
// DramCountersScope is active or the DRAM is the simple pipe.
void appendDramCounterDeltas(std::vector<std::pair<std::string, uint64_t>>& counters);

struct RunReport;
// `weft run`: a network is one program. Each accelerator layer's DRAM counters, and so its DRAM
// energy, are the DRAM's growth between the snapshots around it (the driver's checkpoints); the
// execution's whole DRAM energy (DRAM_ENERGY_PJ of report.dramCounters, the program's end
// included) less the layers' is outside every layer: the program's start and the posted writes
// drained at its end. Sets report.dramOutsideLayersPj and adds it to the report's total. Nothing
// when `report.dramCounters` is empty.
void attributeDramEnergy(RunReport& report);

}  // namespace weft::tool
