// A cycle-level DRAM's activity as named counters, and the environment through which the tool
// reaches the DRAM inside the driver's accelerator module.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "weft/sim/cycle_dram.h"

namespace weft::sim {

// Cumulative (a layer's are the difference of two readings): DRAM_READS, DRAM_WRITES
// (transactions), DRAM_ROW_HITS, DRAM_ROW_MISSES, DRAM_ROW_CONFLICTS, DRAM_ACTIVATES,
// DRAM_PRECHARGES (explicit and auto), DRAM_REFRESHES (all-bank and per-bank),
// DRAM_READ_LATENCY_SUM (DRAM cycles from entry to last data, over the reads done),
// DRAM_READS_DONE, DRAM_WRITE_LATENCY_SUM (DRAM cycles from entry to WR command) and
// DRAM_WRITE_COMMANDS, DRAM_BANK_BUSY_SUM and DRAM_BUSY_CYCLES (bank-level parallelism: the first over
// the second, DramStats::bankLevelParallelism), DRAM_CYCLES
// (the model's now()), DRAM_ENERGY_PJ (rounded), DRAM_TIME_ENERGY_PJ (its part that time, not
// traffic, spends: background and refresh; rounded).
std::vector<std::pair<std::string, uint64_t>> dramCounters(const DramActivity& a);

// Environment, read by every cycle-level DRAM of the process (the tool sets them):
//   WEFT_DRAM_TRACE=FILE  every transaction, in DRAMsim3's trace format (`0x<address> READ|WRITE
//                         <cycle>`, the DRAM cycle it entered the controller), in the order
//                         offered; created by the first DRAM of the process, flushed at the end
//                         of every program.
//   WEFT_DRAM_STATS=FILE  replaced at the end of every program: dramCounters() as one JSON object,
//                         each counter's growth since the first program that began while FILE
//                         was named (the DRAM outlives a tool's workloads: name a new file for
//                         each, and the ones before do not count in it).

}  // namespace weft::sim
