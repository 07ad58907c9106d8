// What the load, compute and store units share: the head of the unit's command FIFO and the
// tokens it needs (wait tokens available, room to reserve its signal tokens), the start that
// pops and reserves them, the completion that fills the reservations and retires, and the
// counters of token stalls (head present, tokens not) and activity (commands in flight).
#pragma once

#include <array>

#include "approx/machine.h"

namespace weft::sim::approx {

class UnitFront {
 public:
  UnitFront(Machine& m, hw::Unit unit);

  bool hasHead() const { return !m_.fifo(unit_).empty(); }
  const hw::CommandWord& head() const { return m_.fifo(unit_).front().word; }
  // The first cycle >= from at which the head is visible and its tokens allow a start;
  // kNever while that depends on something not yet known.
  uint64_t readyFrom(uint64_t from) const;
  // Starts the head in cycle t: pops it and its wait tokens, reserves its signal tokens.
  hw::CommandWord start(uint64_t t) {
    startTokens(t);
    return pop(t);
  }
  // The two halves of start() for a command of several steps (a GEMM's k_steps): its first
  // step pops the wait tokens and reserves the signal tokens, its last pops the command.
  void startTokens(uint64_t t);
  hw::CommandWord pop(uint64_t t);
  // A command that started here completes in cycle t.
  void complete(const hw::CommandWord& cmd, uint64_t t);

  ActivityCounter& activity() { return active_; }
  const ActivityCounter& activity() const { return active_; }
  uint64_t tokenStallCycles(uint64_t t) const;
  void softReset(uint64_t t);
  void hardReset();

 private:
  std::array<int, 2> waits(const hw::CommandWord& cmd) const;
  std::array<int, 2> signals(const hw::CommandWord& cmd) const;
  // The cycle from which the head's tokens were (or will be) all there; kNever if unknown.
  uint64_t tokensFrom() const;

  Machine& m_;
  hw::Unit unit_;
  ActivityCounter active_;
  uint64_t stallTotal_ = 0;
  bool headStarted_ = false;  // the head's tokens are taken (startTokens), it is not popped yet
};

}  // namespace weft::sim::approx
