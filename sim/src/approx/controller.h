// The controller of the approximate model, as two agents.
//
// Fetcher (weft_fetch): while CTRL.enable is set, the controller is not halted and commands
// up to RING_TAIL remain unrequested, reads them from the ring into a buffer of fetchSlots
// commands, one request of as many as fit (waiting for half the buffer free unless all fit);
// a command is in the buffer the cycle after its last beat. A bad ring halts the controller.
//
// Decoder (weft_ctrl): takes the buffer's oldest command into its decode register (visible the
// next cycle), then in order dispatches it to its unit's FIFO when there is room, retires a nop,
// runs a barrier (waits until every FIFO is empty, every unit idle and every write
// acknowledged; then the optional snapshot write, then the optional interrupt) or halts on an
// invalid command. Each command dispatched is also executed by the functional model, in ring
// order (a valid schedule of every correct program), so data is bit-exact by construction.
#pragma once

#include <array>

#include "approx/compute_unit.h"
#include "approx/load_unit.h"
#include "approx/machine.h"
#include "approx/store_unit.h"
#include "approx/vector_unit.h"

namespace weft::sim::approx {

class Fetcher final : public Agent {
 public:
  explicit Fetcher(Machine& m) : m_(m) {}
  uint64_t nextCycle() const override;
  void act(uint64_t now, uint64_t horizon) override;
  void softReset(uint64_t t) override;
  void hardReset() override;

  // RING_HEAD in cycle t: commands received.
  uint32_t head(uint64_t t) const;
  // Fetch keeps the device busy (weft_fetch's busy_o) in cycle t.
  bool busy(uint64_t t) const;

 private:
  bool ringBad() const;
  // Commands one request would fetch in cycle t (0: no request then).
  uint32_t requestSize(uint64_t t) const;

  Machine& m_;
  uint32_t reqIdx_ = 0;  // next ring index to request
};

class Decoder final : public Agent {
 public:
  Decoder(Machine& m, const LoadUnit& load, const ComputeUnit& compute, const StoreUnit& store,
          const VectorUnit& vector)
      : m_(m), load_(load), compute_(compute), store_(store), vector_(vector) {}
  uint64_t nextCycle() const override;
  void act(uint64_t now, uint64_t horizon) override;
  void softReset(uint64_t t) override;
  void hardReset() override;

  bool busy() const { return hasDec_ || barrier_ != Barrier::kNone || flushBeat_ != kNever; }

 private:
  enum class Barrier { kNone, kWrite, kAck };
  uint64_t drainedFrom() const;
  void pop(uint64_t t);
  void leave(uint64_t t);
  void finishBarrier(uint64_t t);

  Machine& m_;
  const LoadUnit& load_;
  const ComputeUnit& compute_;
  const StoreUnit& store_;
  const VectorUnit& vector_;
  bool hasDec_ = false;
  FetchedCommand dec_{};
  uint64_t decVisible_ = 0;
  uint64_t lastLeave_ = 0;
  Barrier barrier_ = Barrier::kNone;
  uint64_t barrierAt_ = 0;  // the snapshot's last beat, then its acknowledgement
  // A soft reset during a snapshot's beats: they are finished, the acknowledgement dropped.
  uint64_t flushBeat_ = kNever;
  uint64_t flushAck_ = 0;
  uint64_t flushAddr_ = 0;
  uint64_t snapRequest_ = 0;
};

}  // namespace weft::sim::approx
