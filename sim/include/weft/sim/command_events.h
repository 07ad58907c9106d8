// Per-command timelines: when each command of a program entered decode, was dispatched to its
// unit's FIFO, started and completed, in device cycles (sim/README.md "Command timelines").
//
// Both backends record them with one CommandLog, fed with the same handshakes: the rtl backend
// from weft_top's observation signal (obs_cmd_events, read by RtlStepper), the approx backend
// from its engine's decode, dispatch, start and completion times. Recording is off by default
// (IDeviceBackend::recordCommands) and then costs one predictable branch per event site.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <deque>
#include <vector>

#include "weft/hw/generated.h"

namespace weft::sim {

inline constexpr uint64_t kNoCycle = ~uint64_t{0};

// One command, as its unit handled it. Cycles are the backend's cycle() scale; "in cycle c"
// means the handshake was high in cycle c (registered at the edge that ends it).
struct CommandEvent {
  uint64_t seq = 0;              // ordinal of the command among all decoded by this backend
  uint64_t decode = kNoCycle;    // the controller took it from the fetch buffer into decode
  uint64_t dispatch = kNoCycle;  // pushed into its unit's FIFO (control commands: = decode)
  uint64_t start = kNoCycle;     // its unit popped it from the FIFO (tokens waited for, slots reserved);
                                 // a BARRIER: found the machine drained and executed (its snapshot's
                                 // capture); a NOP: = complete
  uint64_t complete = kNoCycle;  // its unit signalled retire (the cycle RETIRED counts it); kNoCycle
                                 // when it never completed (halt, soft reset, still running)
  uint8_t unit = 0;              // hw::Unit
  uint8_t opcode = 0;            // hw::Opcode (the 4-bit field, even when invalid)

  bool operator==(const CommandEvent& o) const {
    return seq == o.seq && decode == o.decode && dispatch == o.dispatch && start == o.start &&
           complete == o.complete && unit == o.unit && opcode == o.opcode;
  }
  bool operator!=(const CommandEvent& o) const { return !(*this == o); }
};

// One DRAM request of the device (fetch, LOAD, STORE row, snapshot), outstanding from the cycle
// the port accepted it through the cycle of its last read beat or its write acknowledgement.
struct DramEvent {
  uint64_t issue = 0;
  uint64_t done = 0;
  uint32_t bytes = 0;
  uint8_t write = 0;  // 0: read, 1: write

  bool operator==(const DramEvent& o) const {
    return issue == o.issue && done == o.done && bytes == o.bytes && write == o.write;
  }
  bool operator<(const DramEvent& o) const {
    if (issue != o.issue) return issue < o.issue;
    if (write != o.write) return write < o.write;
    if (done != o.done) return done < o.done;
    return bytes < o.bytes;
  }
};

// One command of a cycle-level DRAM (ACT, PRE, RD, WR, RDA, WRA, REF, REFb: dram::CommandRecord,
// recorded with the command events), for the DRAM's own timeline track. DRAM cycle 0 is the
// backend's cycle 0 (DramModel::setCycleOrigin), so `cycle`, the backend cycle at which the DRAM
// cycle begins, is dramCycle times the accelerator's cycles per DRAM cycle (a fraction: several
// DRAM commands may fall in one accelerator cycle).
struct DramCommandEvent {
  uint64_t dramCycle = 0;
  double cycle = 0;
  uint8_t kind = 0;  // dram::CommandRecord::Kind
  uint32_t channel = 0, rank = 0, bankGroup = 0, bank = 0;
  int64_t row = -1;   // ACT: the row opened; column commands: the row accessed; else -1
  uint64_t addr = 0;  // column commands: the transaction's address
};

// The recorder. Commands go through decode one at a time and through each unit in order, so
// the handshakes identify the command: dispatch and a controller retire concern the command
// in decode, a unit's start its FIFO's head, a unit's completion its oldest started command.
class CommandLog {
 public:
  bool enabled() const { return enabled_; }
  void enable(bool on) { enabled_ = on; }

  void decode(uint64_t cycle, unsigned opcode) {
    CommandEvent& e = events_.emplace_back();
    e.seq = nextSeq_++;
    e.decode = cycle;
    e.opcode = static_cast<uint8_t>(opcode);
    const auto op = static_cast<hw::Opcode>(opcode);
    e.unit = static_cast<uint8_t>(hw::isOpcode(opcode) ? hw::unitOf(op) : hw::Unit::kControl);
    inDecode_ = e.seq;
  }
  // The command in decode goes to unit u's FIFO.
  void dispatch(unsigned u, uint64_t cycle) {
    if (CommandEvent* e = find(inDecode_)) {
      e->dispatch = cycle;
      e->unit = static_cast<uint8_t>(u);
    }
    if (u < queued_.size()) queued_[u].push_back(inDecode_);
    inDecode_ = kNoCycle;
  }
  // The BARRIER in decode executes (the machine drained).
  void controlStart(uint64_t cycle) {
    if (CommandEvent* e = find(inDecode_)) e->start = cycle;
  }
  // The command in decode (NOP, BARRIER) retires.
  void controlRetire(uint64_t cycle) {
    if (CommandEvent* e = find(inDecode_)) {
      e->dispatch = e->decode;
      if (e->start == kNoCycle) e->start = cycle;
      e->complete = cycle;
    }
    inDecode_ = kNoCycle;
  }
  void start(unsigned u, uint64_t cycle) {
    if (u >= queued_.size() || queued_[u].empty()) return;
    const uint64_t seq = queued_[u].front();
    queued_[u].pop_front();
    if (CommandEvent* e = find(seq)) e->start = cycle;
    running_[u].push_back(seq);
  }
  void complete(unsigned u, uint64_t cycle) {
    if (u >= running_.size() || running_[u].empty()) return;
    const uint64_t seq = running_[u].front();
    running_[u].pop_front();
    if (CommandEvent* e = find(seq)) e->complete = cycle;
  }
  void dram(bool write, uint64_t issue, uint64_t done, uint32_t bytes) {
    dram_.push_back({issue, done, bytes, static_cast<uint8_t>(write)});
  }
  // The DRAM requests recorded since the last take, by issue cycle (reads before writes).
  std::vector<DramEvent> takeDram() {
    std::vector<DramEvent> out;
    out.swap(dram_);
    std::sort(out.begin(), out.end());
    return out;
  }

  // A soft or hardware reset at cycle t: queued and running work is dropped; times recorded
  // at or after t (a model may plan ahead) did not happen.
  void reset(uint64_t t) {
    for (CommandEvent& e : events_) {
      for (uint64_t* c : {&e.decode, &e.dispatch, &e.start, &e.complete}) {
        if (*c != kNoCycle && *c >= t) *c = kNoCycle;
      }
    }
    dram_.erase(std::remove_if(dram_.begin(), dram_.end(), [t](const DramEvent& d) { return d.issue >= t; }),
                dram_.end());
    for (auto& q : queued_) q.clear();
    for (auto& q : running_) q.clear();
    inDecode_ = kNoCycle;
  }
  // The events of the commands decoded since the last take, in decode order; later
  // handshakes of commands taken are ignored.
  std::vector<CommandEvent> take() {
    std::vector<CommandEvent> out;
    out.swap(events_);
    base_ = nextSeq_;
    return out;
  }

 private:
  CommandEvent* find(uint64_t seq) {
    if (seq == kNoCycle || seq < base_ || seq - base_ >= events_.size()) return nullptr;
    return &events_[seq - base_];
  }

  bool enabled_ = false;
  std::vector<CommandEvent> events_;
  std::vector<DramEvent> dram_;
  uint64_t base_ = 0, nextSeq_ = 0;
  uint64_t inDecode_ = kNoCycle;
  std::array<std::deque<uint64_t>, hw::kNumFifoUnits> queued_, running_;
};

}  // namespace weft::sim
