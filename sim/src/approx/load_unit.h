// LOAD (weft_load): the front end walks a command's 3-level row pattern issuing one DRAM read
// request a cycle when the read port grants (contiguous full rows of an i0 run merged into
// requests of up to loadMaxReqBytes), and starts the next command in the cycle it issues the
// last request of the current one. A command completes the cycle after the last beat of its
// last request (its last row is written then). Each request is one action, so the DRAM model
// sees the load's requests in cycle order with everyone else's.
#pragma once

#include <deque>

#include "approx/unit_front.h"

namespace weft::sim::approx {

class LoadUnit final : public Agent {
 public:
  explicit LoadUnit(Machine& m);
  uint64_t nextCycle() const override;
  void act(uint64_t now, uint64_t horizon) override;
  void softReset(uint64_t t) override;
  void hardReset() override;

  // No command started and not complete (the barrier's condition).
  bool idle() const { return inFlight_.empty(); }
  uint64_t lastCompletion() const { return lastCompletion_; }
  const UnitFront& front() const { return front_; }
  uint64_t dramStallCycles(uint64_t t) const;

 private:
  struct InFlight {
    hw::CommandWord cmd;
    uint64_t doneAt;  // kNever until its last request is accepted
  };
  void start(uint64_t t);
  void request(uint64_t t);
  uint64_t startFrom() const;

  Machine& m_;
  UnitFront front_;
  std::deque<InFlight> inFlight_;
  uint64_t lastCompletion_ = 0;

  // The pattern of the command whose requests are being issued (busy_q).
  bool busy_ = false;
  uint64_t wantFrom_ = 0;  // the next request is valid from this cycle
  uint64_t idleFrom_ = 0;  // not busy from this cycle
  hw::LoadCmd cmd_;
  uint32_t maxRows_ = 1;   // rows per request (1 unless merging)
  uint32_t i0_ = 0, i1_ = 0, i2_ = 0;
  uint64_t addr1_ = 0, addr2_ = 0, addr0_ = 0;

  uint64_t stallTotal_ = 0;  // busy_q && !req_accept
};

}  // namespace weft::sim::approx
