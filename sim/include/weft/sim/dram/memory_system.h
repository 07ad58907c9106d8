// The cycle-level DRAM model: channels of ranks, bank groups, banks and rows under JEDEC timing,
// each channel behind its own controller (read and write transaction queues, per-bank command
// queues, FR-FCFS, write draining, refresh). Event-driven: time only advances when the caller
// says so, and between two cycles at which something can happen the model does no work, so an
// idle or slowly fed DRAM costs nothing per cycle. Deterministic: integer time, no hashing of
// pointers, no dependence on the order channels are advanced in.
//
// Time is in DRAM cycles (tCK). `now()` is the first cycle not yet simulated: the model has run
// every cycle before it. A transaction that enters the controller at cycle e can have its first
// command at e + 1. Within a cycle a controller issues at most one command (HBM: one row and one
// column command), then moves at most one transaction from its transaction queues into a
// command queue.
//
// The controller (controller.cpp) schedules as DRAMsim3's does, which is what makes the two
// comparable: command queues served round-robin, in each the oldest ready command, a row hit
// ahead of an older miss's precharge until rowHitCap hits (FR-FCFS with a cap), reads before
// writes until the write queue drains (ControllerPolicy), refresh as soon as due: the rank's
// banks are precharged and refreshed before any other command to them.
//
// Completions: a read completes with its last data beat, RL + burst after its column command;
// a write completes (is acknowledged) the cycle after it enters the write queue, as a posted
// write; a read of an address with a write pending is served from the write queue the same way.
// Each completion is reported as soon as it is determined (a read's when its column command
// issues, so up to RL + burst cycles early); takeCompletions() hands them over in that order.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "weft/sim/dram/address_mapping.h"
#include "weft/sim/dram/device.h"
#include "weft/sim/dram/stats.h"

namespace weft::sim::dram {

class ChannelController;
struct TimingTable;

struct Transaction {
  uint64_t id = 0;  // the caller's tag, echoed in its completion
  uint64_t addr = 0;
  bool isWrite = false;
};

struct Completion {
  uint64_t id = 0;
  uint64_t addr = 0;
  uint64_t enterCycle = 0;     // entered the controller
  uint64_t decidedCycle = 0;   // its column command issued (or it entered, for posted writes)
  uint64_t doneCycle = 0;      // read: last data beat; write: acknowledged
  uint32_t channel = 0;
  bool isWrite = false;
};

// For tests: the same behaviour computed the slow way, to prove the fast way equal to it.
struct ReferenceChecks {
  bool everyCycle = false;  // visit every cycle instead of jumping from event to event
  bool scanQueues = false;  // evaluate every command-queue entry instead of per-bank summaries
};

// One DRAM command, for timelines and for checking the timing rules from outside.
struct CommandRecord {
  enum Kind : uint8_t { kActivate, kPrecharge, kRead, kWrite, kReadAutoPrecharge, kWriteAutoPrecharge, kRefresh,
                        kBankRefresh };
  uint64_t cycle = 0;
  Kind kind = kActivate;
  uint32_t channel = 0, rank = 0, bankGroup = 0, bank = 0;  // bank within its group; refresh: bank 0
  int64_t row = -1;                                          // ACT: the row opened; column commands: the row read
  // The transaction's address for a column command and for the ACT or PRE it asked for (0 for a
  // refresh's commands).
  uint64_t addr = 0;
  bool forRefresh = false;  // a refresh, or a precharge that closed a bank for one
};
const char* commandName(CommandRecord::Kind k);

class MemorySystem {
 public:
  static constexpr uint64_t kNever = UINT64_MAX;

  explicit MemorySystem(DeviceSpec spec, ReferenceChecks checks = {});
  ~MemorySystem();
  MemorySystem(const MemorySystem&) = delete;
  MemorySystem& operator=(const MemorySystem&) = delete;

  const DeviceSpec& spec() const { return spec_; }
  const AddressMapping& mapping() const { return mapping_; }
  uint64_t now() const { return now_; }

  // Whether the channel of `addr` has room now for a transaction of this kind.
  bool canAccept(uint64_t addr, bool isWrite) const;
  // Runs the model to `cycle` (>= now()) and lets `t` enter there. Throws std::logic_error if
  // its queue is full then (ask canAccept() first) and std::out_of_range for an address beyond
  // the device.
  void enqueue(const Transaction& t, uint64_t cycle);
  // Offers `t` from `cycle` on: runs the model until its queue has room and lets it enter then.
  // Returns the cycle it entered.
  uint64_t offer(const Transaction& t, uint64_t cycle);

  // Simulates every cycle before `cycle` (>= now()). Channels do not interact, so each runs
  // when something asks about it; the results do not depend on when that is.
  void advanceTo(uint64_t cycle);
  // The earliest cycle >= now() at which the model may change state on its own (a command, a
  // queue move, a refresh); a caller that feeds transactions can run up to it and no further.
  uint64_t nextEventCycle();
  // Transactions entered whose completions have not been determined yet.
  uint64_t undecided();
  // Runs until every entered transaction's completion is determined; returns the latest
  // doneCycle of all (0 if none). now() is then past the last column command.
  uint64_t drain();
  // Writes every posted write still buffered (a write queue holds up to its low watermark while
  // the channel is otherwise idle): the end of a program, before its energy and counters are
  // read. Runs each channel from now() until its write queues are empty and their WR commands
  // issued; now() is then past the last of them. Returns now().
  uint64_t drainWrites();

  // Appends the completions decided before now(), ordered by the cycle they were decided, then
  // by channel, and forgets them (successive calls continue that order).
  void takeCompletions(std::vector<Completion>& out);
  // Off: no completion records are kept (statistics only, e.g. a trace replay). On by default.
  void recordCompletions(bool on);
  // Off: posted writes leave no completion record (a caller that knows a write is acknowledged
  // the cycle after it entered need not sort and discard them); reads still do. On by default.
  void recordWriteCompletions(bool on);
  // drain() and takeCompletions() for a caller that offers one request at a time and waits for
  // its reads (weft/sim/cycle_dram.h), without their cost per request: runs only the channels
  // with undecided reads, each until they are decided, moving now() exactly as drain() does, and
  // appends every completion record held, whatever its decidedCycle, in no particular order. The
  // other channels catch up when next asked, to the same state (channels do not interact).
  // tests/sim/dram_decide_reads_test.cpp holds it equal to drain() + takeCompletions().
  void decideReads(std::vector<Completion>& out);
  // On: every command issued is recorded; takeCommands() hands them over in issue order (cycle,
  // then channel). Off by default.
  void recordCommands(bool on);
  void takeCommands(std::vector<CommandRecord>& out);

  // Statistics summed over the channels, the background state counted up to now().
  DramStats stats();
  const std::vector<std::unique_ptr<ChannelController>>& channels() const { return channels_; }

 private:
  DeviceSpec spec_;
  AddressMapping mapping_;
  uint64_t capacity_;
  std::unique_ptr<TimingTable> timing_;  // shared by the channels
  uint64_t now_ = 0;
  std::vector<std::unique_ptr<ChannelController>> channels_;
  void sync();  // every channel run to now()

  std::vector<Completion> completions_;
};

}  // namespace weft::sim::dram
