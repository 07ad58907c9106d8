// Energy of what the accelerator did, from its own performance counters (hw/spec/regs.json)
// times the per-event energies of an EnergyModel, plus leakage over the elapsed time. Which
// counter stands for which event, and what is left out, is in tools/codesign/README.md.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "EnergyModel.h"
#include "weft/hw/config.h"

namespace weft::codesign {

// Counter deltas by name, as the execution profile gives them (weft/hal/IPreparedModel.h).
using Counters = std::vector<std::pair<std::string, uint64_t>>;

// One on-chip memory of a configuration: the SRAM macros the area and energy models cost.
struct Memory {
  std::string name;
  uint64_t bytes = 0;   // capacity of one copy
  unsigned copies = 1;  // identical macros (the vector scratchpad is two, one per read port)
};
// The scratchpads, the accumulator, the parameter memory and the lookup table of `hw`.
std::vector<Memory> memories(const hw::HwConfig& hw);

// Access energy of one byte of an SRAM of `bytes` capacity.
double sramPjPerByte(const EnergyModel& model, uint64_t bytes);

struct EnergyBreakdown {
  double macPj = 0;          // the array's PE operations
  double vectorPj = 0;       // the vector unit's lane operations
  double scratchpadPj = 0;   // input / vector scratchpad reads and every loaded byte written
  double accumulatorPj = 0;  // accumulator read-modify-writes, vector write-backs, store reads
  double dramPj = 0;
  double registerPj = 0;
  double leakagePj = 0;
  double dynamicPj() const { return macPj + vectorPj + scratchpadPj + accumulatorPj + dramPj + registerPj; }
  double totalPj() const { return dynamicPj() + leakagePj; }
  EnergyBreakdown& operator+=(const EnergyBreakdown& o);
};

// `counters` are one span's deltas (a layer, an execution); its cycles are CYCLES among them.
// `areaUm2` is what leaks (0: no leakage).
EnergyBreakdown estimateEnergy(const EnergyModel& model, const hw::HwConfig& hw, const Counters& counters,
                               uint64_t registerAccesses, double areaUm2);

}  // namespace weft::codesign
