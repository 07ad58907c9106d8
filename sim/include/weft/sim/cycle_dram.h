// The cycle-level DRAM model (weft_dram, sim/dram/README.md) behind the accelerator's DRAM
// ports: what DramModel runs when a configuration's Dram is not "simple". One rule, used by both
// backends through DramModel, so that the RTL harness and the approximate model present the
// same transactions at the same DRAM cycles in the same order and get the same answers.
//
// The rule ("decide at offer"). A port request of n bytes at address a, issued in accelerator
// cycle t (a read: the cycle the port accepts it; a write: the cycle its last beat is accepted),
// becomes the aligned requestBytes() transactions it touches, in address order. Each is offered
// to the model at DRAM cycle d = ClockCrossing(ClockMHz, tCK).atOrAfter(t), or at the model's
// now() if that is later, and enters when its channel's queue has room (MemorySystem::offer).
// Then, for a read, the model runs until every transaction of the request has its completion
// decided (its column command issued, MemorySystem::drain). The answer is an accelerator cycle:
//   read:  the first cycle from which the port can deliver beat j at (answer + j) for every j,
//          each beat no earlier than the accelerator cycle that begins at or after the DRAM
//          cycle after its transaction's last data beat (the port delivers one beat a cycle);
//   write: posted: acknowledged from the accelerator cycle at or after the DRAM cycle after the
//          last transaction entered.
// Callers present requests in nondecreasing t (both backends do: DramModel's own contract).
// Because a request is decided before the next is offered, a later request may enter after the
// DRAM cycle its issue maps to (when the model ran past it deciding the previous one): the
// model never looks back. Both backends share this, so they agree exactly; the cost is some
// overlap lost between requests (sim/dram/README.md, "Connected to the backends").
//
// Writes below the controller's low watermark may stay buffered while a channel is idle
// (DRAMsim3's policy); endProgram() writes them at the end of a program (the interrupt), so
// that its commands, energy and counters are complete when read.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "weft/hw/config.h"
#include "weft/sim/command_events.h"
#include "weft/sim/dram/clock_crossing.h"
#include "weft/sim/dram/device.h"
#include "weft/sim/dram/memory_system.h"
#include "weft/sim/dram/stats.h"

namespace weft::sim {

// The device a configuration names (Dram, DramChannels, DramMapping, the .ini file), checked:
// nullptr for Dram "simple". Throws dram::DramInputError naming the parameter or file and the
// rule (a bad .ini file, channels that are not a power of two, a device smaller than DramMiB).
std::shared_ptr<const dram::DeviceSpec> dramDeviceFor(const hw::HwConfig& config);

// What the cycle-level DRAM did, for reports: its statistics and the energy of its commands.
struct DramActivity {
  dram::DramStats stats;
  dram::DramEnergy energy;  // pJ
  uint64_t dramCycles = 0;  // DRAM cycles simulated (now())
  double tckNs = 0;
  uint32_t requestBytes = 0;
};

// The DRAM's counters (dramCounters(), cumulative) when a snapshot record's write reached it:
// `record` is the record's index in the region CycleDram::watchSnapshots names.
struct DramCheckpoint {
  uint32_t record = 0;
  std::vector<std::pair<std::string, uint64_t>> counters;
};

class CycleDram {
 public:
  CycleDram(std::shared_ptr<const dram::DeviceSpec> device, uint64_t clockMHz, uint32_t busBytes);

  // The rule above; addresses beyond the device throw std::out_of_range (DramModel checks
  // the accelerator's memory first).
  uint64_t read(uint64_t addr, uint32_t bytes, uint64_t issueCycle);
  uint64_t write(uint64_t addr, uint32_t bytes, uint64_t issueCycle);
  // The end of a program at accelerator cycle t: every posted write is written.
  void endProgram(uint64_t cycle);

  // Counted up to the model's now().
  DramActivity activity();
  const dram::DeviceSpec& device() const { return *device_; }
  dram::MemorySystem& memory() { return memory_; }

  // Transactions as the DRAM saw them (DRAMsim3's trace format: address, write?, DRAM cycle
  // offered), recorded while on.
  struct TraceLine {
    uint64_t addr;
    uint64_t cycle;
    bool isWrite;
  };
  void recordTrace(bool on) { tracing_ = on; }
  std::vector<TraceLine>& trace() { return trace_; }

  // Per-layer counters: the driver's program writes a snapshot record (hw::kSnapshotBytes) at
  // each layer's end into [base, base + bytes); a write request that starts a record takes a
  // DramCheckpoint once its transactions have entered (the counters as far as the model has
  // run: reads are decided by then, the layer's posted writes still queued count later).
  // bytes 0: none. takeCheckpoints() hands over those recorded since the previous take.
  void watchSnapshots(uint64_t base, uint64_t bytes) {
    snapshotBase_ = base;
    snapshotBytes_ = bytes;
  }
  std::vector<DramCheckpoint> takeCheckpoints() { return std::exchange(checkpoints_, {}); }

  // The DRAM's commands (for its timeline track), recorded while on; takeCommands() hands over
  // those issued since the previous take, by cycle.
  void recordCommands(bool on) { memory_.recordCommands(on); }
  std::vector<DramCommandEvent> takeCommands();

 private:
  uint64_t dramCycle(uint64_t acceleratorCycle) const { return toDram_.atOrAfter(acceleratorCycle); }
  // The first request (or the end) of a program: takes the counters' base for WEFT_DRAM_STATS
  // when it names a file it did not name before.
  void beginProgram();

  std::shared_ptr<const dram::DeviceSpec> device_;
  dram::MemorySystem memory_;
  dram::ClockCrossing toDram_, fromDram_;
  uint32_t requestBytes_, requestShift_, busBytes_;
  uint64_t nextId_ = 0;
  std::vector<dram::Completion> completions_;
  bool tracing_ = false;
  std::vector<TraceLine> trace_;
  std::vector<dram::CommandRecord> commands_;
  uint64_t snapshotBase_ = 0, snapshotBytes_ = 0;
  std::vector<DramCheckpoint> checkpoints_;
  bool inProgram_ = false;
  std::string statsPath_;  // WEFT_DRAM_STATS as the last program began
  std::vector<std::pair<std::string, uint64_t>> statsBase_;  // the counters when it was first named
};

}  // namespace weft::sim
