// The common life of a load, compute or store command in its unit: wait at the head of the
// unit's FIFO until the unit is free and its wait tokens are there, pop them and start; run
// (unit-specific, possibly in several steps); on completion push its signal tokens (waiting
// for space in a full token queue) and retire. Subclasses model only the run.
#pragma once

#include "approx/cycle_counter.h"
#include "approx/machine.h"

namespace weft::sim::approx {

class ExecUnit : public Agent {
 public:
  ExecUnit(Machine& m, hw::Unit unit);

  uint64_t nextCycle() const final;
  void act(uint64_t now) final;
  void abort(uint64_t now) override;
  void reset() override;

  // No command started and not finished.
  bool idle() const { return phase_ == Phase::kIdle; }
  // The cycle this unit's last command retired (the unit is free from then on).
  uint64_t freeAt() const { return freeAt_; }
  uint64_t activeCycles(uint64_t t) const { return active_.value(t); }
  uint64_t tokenStallCycles(uint64_t t) const;

 protected:
  // Starts executing `cmd` at cycle t.
  virtual void begin(const hw::CommandWord& cmd, uint64_t t) = 0;
  // The cycle of the running command's next step.
  virtual uint64_t nextStep() const = 0;
  // Performs the step due at t; returns true when the command completed at t.
  virtual bool step(uint64_t t) = 0;

  Machine& m_;

 private:
  enum class Phase { kIdle, kRunning, kRetiring };
  // The token queues this unit pops / pushes for `cmd` (at most two each; -1 = none).
  std::array<int, 2> waitQueues(const hw::CommandWord& cmd) const;
  std::array<int, 2> signalQueues(const hw::CommandWord& cmd) const;
  // The cycle from which the head command has waited only for tokens.
  uint64_t waitingSince() const;
  bool canRetire() const;
  void retire(uint64_t t);

  hw::Unit unit_;
  Phase phase_ = Phase::kIdle;
  hw::CommandWord current_;
  uint64_t freeAt_ = 0;
  CycleCounter active_;
  uint64_t tokenStallTotal_ = 0;
};

}  // namespace weft::sim::approx
