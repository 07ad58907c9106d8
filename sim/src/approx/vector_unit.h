// The vector unit (weft_vector): one command at a time, each started once the previous one has
// completed (its tokens and a visible head permitting), with the closed-form timeline of
// vector_timing.h. No DRAM traffic: a command's whole timeline is known when it starts.
#pragma once

#include <optional>

#include "approx/unit_front.h"
#include "approx/vector_timing.h"

namespace weft::sim::approx {

class VectorUnit final : public Agent {
 public:
  explicit VectorUnit(Machine& m);
  uint64_t nextCycle() const override;
  void act(uint64_t now, uint64_t horizon) override;
  void softReset(uint64_t t) override;
  void hardReset() override;

  bool idle() const { return !job_.has_value(); }
  uint64_t lastCompletion() const { return lastCompletion_; }
  const UnitFront& front() const { return front_; }
  uint64_t slots(uint64_t t) const { return slots_.value(t); }

 private:
  struct Job {
    hw::CommandWord cmd;
    uint64_t doneAt;
  };
  uint64_t startFrom() const;

  Machine& m_;
  UnitFront front_;
  std::optional<Job> job_;
  uint64_t lastCompletion_ = 0;
  uint64_t idleFrom_ = 0;  // the next command may start from this cycle
  IntervalCounter slots_;
};

}  // namespace weft::sim::approx
