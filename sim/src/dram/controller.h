// One channel's controller and its banks (memory_system.h describes the behaviour). Private to
// the model: MemorySystem routes transactions here by channel.
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include "address_table.h"
#include "timing_table.h"
#include "weft/sim/dram/address_mapping.h"
#include "weft/sim/dram/device.h"
#include "weft/sim/dram/memory_system.h"
#include "weft/sim/dram/stats.h"

namespace weft::sim::dram {

class ChannelController {
 public:
  ChannelController(const DeviceSpec& spec, const TimingTable& timing, uint32_t index, ReferenceChecks checks = {});

  bool canAccept(bool isWrite) const {
    return (unified_ || !isWrite ? readsWaiting_ : writesWaiting_) < transactionQueueSize_;
  }
  // `cycle` >= every cycle simulated so far; the caller checked canAccept().
  void enqueue(const Transaction& t, const Coordinates& where, uint64_t cycle, std::vector<Completion>& out);
  // Simulates the cycles before `end`.
  void advanceTo(uint64_t end, std::vector<Completion>& out);
  uint64_t nextEvent() const { return nextEvent_; }
  // Runs event after event while a read is undecided; returns the cycle after the last event run
  // (0 if none): the same as advanceTo(nextEvent() + 1) while undecided() > 0.
  uint64_t runUntilDecided(std::vector<Completion>& out);
  uint64_t undecided() const { return undecided_; }
  DramStats statsAt(uint64_t now) const;
  uint32_t index() const { return index_; }
  void recordCompletions(bool on) { recordCompletions_ = on; }
  void recordWriteCompletions(bool on) { recordWriteCompletions_ = on; }
  void recordCommands(bool on) { recordCommands_ = on; }
  void takeCommands(std::vector<CommandRecord>& out) {
    out.insert(out.end(), commands_.begin(), commands_.end());
    commands_.clear();
  }
  uint64_t lastDoneCycle() const { return stats_.lastDoneCycle; }
  // Writes not yet written: waiting in the write queue or in a command queue.
  bool writesPending() const;
  // On: the write queue drains whatever it holds, below the low watermark too (the end of a
  // program, MemorySystem::drainWrites). The caller runs the channel while it is on.
  void flushWrites(bool on, uint64_t now);

 private:
  struct Entry {
    uint64_t addr;
    uint32_t row, column;
    uint32_t bank;   // flat: rank * banks + group * banksPerGroup + bank
    uint32_t queue;  // its command queue
    uint32_t slot;   // reads: the head of its pending-read chain; writes: the cycle it entered, mod 2^32
    uint32_t next;   // the next transaction waiting for the same command queue
    uint32_t order;  // arrival order in the transaction queues (wraps; compare differences)
    bool isWrite;
  };
  struct WaitList {  // transactions waiting for one command queue, oldest first
    uint32_t head = kNil, tail = kNil, count = 0;
  };
  struct Bank {
    int64_t openRow = -1;
    uint32_t hits = 0;              // column commands since the row opened
    uint32_t outstanding = 0;       // transactions waiting for their column command
    bool closedForConflict = false; // the last close made room for another row
    bool openedAfterConflict = false;
  };
  struct ReadSlot {
    uint64_t id, addr, enter;
    uint32_t next;  // next read merged into the same command, or kNoSlot
  };
  struct Candidate {
    CommandKind kind;
    uint32_t queue, entry, bank;
    bool fromRefresh;
  };
  struct Summary {  // of a per-bank command queue, valid until the queue or its bank changes
    bool valid = false;
    bool activate = false, precharge = false;
    int32_t readHit = -1, writeHit = -1;
    bool anyHit = false;  // an entry hits the open row
  };
  struct RefreshRequest {
    uint32_t rank;
    int32_t bank;  // flat bank for a per-bank refresh, -1 for the whole rank
  };
  static constexpr uint32_t kNoSlot = UINT32_MAX;
  static constexpr uint32_t kNil = UINT32_MAX;
  static constexpr uint64_t kNever = UINT64_MAX;
  static constexpr int32_t kNoEntry = INT32_MAX;

  [[gnu::always_inline]] inline void processCycle(uint64_t c, std::vector<Completion>& out);
  uint64_t computeNextEvent(uint64_t c);
  [[gnu::always_inline]] inline bool pick(uint64_t c, Candidate& out);
  [[gnu::always_inline]] inline bool firstReady(uint32_t q, uint64_t c, Candidate& out);
  uint64_t queueReady(uint32_t q);
  bool scanQueue(uint32_t q, uint64_t c, Candidate* out, uint64_t* earliest);
  void summarize(uint32_t q);
  bool summaryAfterAppend(uint32_t q);
  bool refreshCandidate(uint64_t c, Candidate& out) const;
  uint64_t refreshReady() const;
  void insertRefresh();
  void blockRefreshedQueues();
  void issue(const Candidate& cand, uint64_t c, std::vector<Completion>& out);
  [[gnu::always_inline]] inline void applyTiming(CommandKind kind, uint32_t bank, uint32_t rank, uint64_t c);
  [[gnu::always_inline]] inline bool scheduleTransaction(uint64_t c);
  [[gnu::always_inline]] inline bool drainStarts() const;
  [[gnu::always_inline]] inline bool canMoveNextCycle() const;
  [[gnu::always_inline]] inline void updateMovable(uint32_t q);
  [[gnu::always_inline]] inline void wait(uint64_t addr, const Coordinates& where, uint32_t bank, uint32_t q,
                                          uint32_t slot, bool isWrite, bool asWrite);
  static bool anyBit(const std::vector<uint64_t>& bits) {
    for (const uint64_t w : bits) {
      if (w != 0) return true;
    }
    return false;
  }
  void touchQueueOf(uint32_t bank);
  void openRowCount(uint32_t rank, int delta, uint64_t c);
  void outstandingChange(uint32_t bank, int delta, uint64_t c);
  bool writeDependsOnEarlierRead(uint32_t q, uint32_t i) const;
  bool blocked(uint32_t q) const { return q >= blockedLo_ && q < blockedHi_; }

  uint64_t ready(uint32_t bank, Target t) const {
    const uint64_t b = bankNext_[size_t{bank} * kTargets + t];
    const uint64_t r = rankNext_[size_t{rankOf(bank)} * kTargets + t];
    uint64_t v = b > r ? b : r;
    if (groups_) {  // without bank groups the rank's times hold the group's (TimingTable::groups)
      const uint64_t g = groupNext_[size_t{groupOf(bank)} * kTargets + t];
      v = v > g ? v : g;
    }
    return v;
  }
  uint64_t actReady(uint32_t bank) const;
  void recordActivate(uint32_t rank, uint64_t c);
  // Bank counts are powers of two (the address mapping needs whole bits): shifts, not divisions.
  uint32_t rankOf(uint32_t bank) const { return bank >> rankShift_; }
  uint32_t groupOf(uint32_t bank) const { return bank >> groupShift_; }  // flat over the channel
  uint32_t queueOf(uint32_t bank) const { return perBank_ ? bank : bank >> rankShift_; }
  Entry& entry(uint32_t q, uint32_t i) { return cmd_[size_t{q} * 2 * queueCap_ + head_[q] + i]; }
  const Entry& entry(uint32_t q, uint32_t i) const { return cmd_[size_t{q} * 2 * queueCap_ + head_[q] + i]; }
  [[gnu::always_inline]] inline void removeEntry(uint32_t q, uint32_t i);
  [[gnu::always_inline]] inline void appendEntry(uint32_t q, const Entry& e);
  CommandKind columnKind(bool isWrite) const {
    return closedPage_ ? (isWrite ? kWra : kRda) : (isWrite ? kWr : kRd);
  }

  const TimingTable& timing_;
  const uint32_t index_;
  const ReferenceChecks checks_;
  const uint32_t ranks_, banksPerRank_, banksPerGroup_, banks_;
  const uint32_t rankShift_, groupShift_;
  const uint32_t transactionQueueSize_, queueCap_, numQueues_;
  const uint32_t writeHigh_, writeLow_, rowHitCap_;
  const bool perBank_, unified_, closedPage_, dualIssue_, groups_;
  const RefreshPolicy refreshPolicy_;
  const uint64_t refreshInterval_;

  // Timing: the earliest cycle of each Target, per bank, per bank group, per rank.
  std::vector<uint64_t> bankNext_, groupNext_, rankNext_;
  // The last activates per rank (ring buffers) for tFAW and GDDR's t32AW.
  std::vector<uint64_t> faw_, aw32_;
  std::vector<uint32_t> fawCount_, aw32Count_;
  std::vector<uint64_t> actWindow_;  // per rank: no activate before this cycle (tFAW, t32AW)
  std::vector<Bank> bank_;

  // Transaction queues. The scheduler moves the oldest transaction whose command queue has room,
  // so they are kept as one arrival-ordered list per command queue (in a pool of entries): the
  // oldest movable one is the oldest head among the queues with room, found from a bit mask.
  std::vector<Entry> pool_;
  std::vector<uint32_t> freePool_;
  std::vector<WaitList> waitingReads_, waitingWrites_;  // unified: all in waitingReads_
  uint32_t readsWaiting_ = 0, writesWaiting_ = 0;
  uint32_t arrivals_ = 0;
  std::vector<uint64_t> movableReads_, movableWrites_;  // bit q: waits for q, and q has room
  uint32_t drainLeft_ = 0;
  bool drainBlocked_ = false;
  bool flush_ = false;  // flushWrites: drain below the low watermark too  // a drain stopped at a write whose address a pending read needs

  // Command queues, numQueues_ x 2 x queueCap_ slots (removeEntry, appendEntry).
  std::vector<Entry> cmd_;
  std::vector<uint32_t> size_, head_;
  std::vector<Summary> summary_;
  std::vector<uint64_t> lowerBound_;  // no command from this queue before this cycle
  // lowerBound_[q] is the queue's exact ready time while exact_[q] == epoch_ (applyTiming moves
  // epoch_ on; a change of the queue or its bank sets exact_[q] to 0).
  std::vector<uint64_t> exact_;
  uint64_t epoch_ = 1;
  std::vector<uint64_t> nonEmpty_;    // bit q: command queue q holds an entry
  std::vector<uint64_t> blockedBits_; // bit q: command queue q waits for a refresh
  std::vector<uint32_t> writesIn_;    // writes in each command queue
  uint32_t cmdTotal_ = 0;
  uint32_t rr_ = 0;  // round-robin: the queue served last

  std::deque<RefreshRequest> refreshQ_;
  uint32_t blockedLo_ = 0, blockedHi_ = 0;  // queues of the refresh being performed
  uint64_t nextRefresh_;
  uint32_t refreshRank_ = 0, refreshGroup_ = 0, refreshBank_ = 0;

  AddressTable pendingReads_, pendingWrites_;
  std::vector<ReadSlot> slots_;
  std::vector<uint32_t> freeSlots_;
  uint64_t undecided_ = 0;

  uint64_t nextEvent_ = kNever;
  uint64_t lastMove_ = kNever;

  bool recordCompletions_ = true;
  bool recordWriteCompletions_ = true;  // posted writes' records (MemorySystem::recordWriteCompletions)
  bool recordCommands_ = false;
  std::vector<CommandRecord> commands_;
  DramStats stats_;
  std::vector<uint32_t> openRows_;        // per rank
  std::vector<uint64_t> rankSince_;       // per rank: when its open/precharged state began
  uint32_t busyBanks_ = 0;
  uint64_t busySince_ = 0;
};

}  // namespace weft::sim::dram
