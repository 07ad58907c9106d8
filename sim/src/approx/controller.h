// The controller of the approximate model, as two agents: the fetcher reads commands from the
// ring in DRAM while CTRL.enable is set and RING_HEAD != RING_TAIL; the dispatcher checks
// each fetched command in ring order, hands it to its unit's FIFO (and to the functional
// model, which executes the program in ring order — a valid schedule of every correct
// program), and executes nop and barrier itself.
#pragma once

#include <array>

#include "approx/machine.h"
#include "approx/units.h"

namespace weft::sim::approx {

class Fetcher final : public Agent {
 public:
  explicit Fetcher(Machine& m) : m_(m) {}
  uint64_t nextCycle() const override;
  void act(uint64_t now) override;
  void abort(uint64_t now) override { nextFetch_ = now; }
  void reset() override { nextFetch_ = 0; }

 private:
  Machine& m_;
  uint64_t nextFetch_ = 0;
};

class Dispatcher final : public Agent {
 public:
  Dispatcher(Machine& m, std::array<const ExecUnit*, 3> units) : m_(m), units_(units) {}
  uint64_t nextCycle() const override;
  void act(uint64_t now) override;
  void abort(uint64_t now) override;
  void reset() override;

  // A barrier is waiting for the units or for its snapshot's acknowledgement.
  bool inBarrier() const { return barrier_ != BarrierPhase::kNone; }

 private:
  enum class BarrierPhase { kNone, kDraining, kSnapshotAck };
  bool drained() const;
  void dispatch(uint64_t now);
  void finishBarrier(uint64_t now);

  Machine& m_;
  std::array<const ExecUnit*, 3> units_;
  uint64_t nextDispatch_ = 0;
  BarrierPhase barrier_ = BarrierPhase::kNone;
  hw::CommandWord barrierWord_;
  uint64_t barrierReady_ = 0;  // dispatch of the barrier, or its snapshot's acknowledgement
};

}  // namespace weft::sim::approx
