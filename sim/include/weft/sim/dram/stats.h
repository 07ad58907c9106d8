// What the DRAM did, and the energy it took by the command method of DRAMPower and of DRAMsim3's
// power model: a per-command energy from IDD currents and VDD for activates, precharges,
// reads, writes and refreshes, plus background energy for every cycle a rank spends with a row
// open (IDD3N) or all banks precharged (IDD2N).
#pragma once

#include <cstdint>
#include <vector>

namespace weft::sim::dram {

struct DeviceSpec;

struct DramStats {
  // Transactions that entered the controllers.
  uint64_t reads = 0, writes = 0;
  uint64_t readsForwarded = 0;  // served from a pending write of the same address
  uint64_t readsMerged = 0;     // joined a pending read of the same address (one command for both)
  uint64_t writesMerged = 0;    // replaced a pending write of the same address

  // Commands.
  uint64_t readCommands = 0, writeCommands = 0;  // column commands (with auto-precharge or not)
  uint64_t activates = 0;
  uint64_t precharges = 0;      // explicit PRE commands (row conflicts, closing for refresh)
  uint64_t autoPrecharges = 0;  // RDA / WRA (closed-page policy)
  uint64_t refreshes = 0;       // all-bank REF
  uint64_t bankRefreshes = 0;   // per-bank REFb

  // Each column command: a hit if its row had served one since it opened, a conflict if the
  // row was opened after closing another for a waiting request, a miss otherwise (a closed
  // bank: idle, closed page, after refresh). hits + misses + conflicts = column commands.
  uint64_t rowHits = 0, rowMisses = 0, rowConflicts = 0;

  // Completions determined so far.
  uint64_t readsDone = 0, writesDone = 0;
  uint64_t readLatencySum = 0;  // sum of doneCycle - enterCycle over reads
  // Sum over write commands of the cycles their write waited in the controller: from entering it
  // (where it was acknowledged, posted) to its WR command. A write that replaced a pending one
  // counts from the first's entry.
  uint64_t writeLatencySum = 0;
  uint64_t lastDoneCycle = 0;

  // Bank-level parallelism: integral over time of the number of banks with a transaction
  // waiting for its column command, and the cycles with at least one.
  uint64_t bankBusySum = 0, busyCycles = 0;

  // Background: cycles each rank spent with some row open / with every bank precharged.
  std::vector<uint64_t> rankActiveCycles, rankPrechargedCycles;

  double averageReadLatency() const { return readsDone == 0 ? 0.0 : double(readLatencySum) / double(readsDone); }
  double averageWriteLatency() const {
    return writeCommands == 0 ? 0.0 : double(writeLatencySum) / double(writeCommands);
  }
  double bankLevelParallelism() const { return busyCycles == 0 ? 0.0 : double(bankBusySum) / double(busyCycles); }
  uint64_t columnCommands() const { return readCommands + writeCommands; }
  double rowHitRate() const { return columnCommands() == 0 ? 0.0 : double(rowHits) / double(columnCommands()); }

  // Adds another channel's figures (ranks are appended).
  void add(const DramStats& other);
};

struct DramEnergy {  // pJ
  double activate = 0, precharge = 0, read = 0, write = 0, refresh = 0, background = 0;
  double total() const { return activate + precharge + read + write + refresh + background; }
};

// Per activate (IDD0 - IDD3N) * tRAS, per precharge (IDD0 - IDD2N) * tRP (together DRAMsim3's
// IDD0 * tRC - IDD3N * tRAS - IDD2N * tRP), per read (IDD4R - IDD3N) * burst, per write
// (IDD4W - IDD3N) * burst, per refresh (IDD5AB - IDD3N) * tRFC (per-bank: IDD5PB, tRFCb);
// background IDD3N or IDD2N per cycle; each times VDD and tCK (mA * V * ns = pJ), summed over
// the supply rails and the devices of a rank.
DramEnergy computeEnergy(const DeviceSpec& spec, const DramStats& stats);

}  // namespace weft::sim::dram
