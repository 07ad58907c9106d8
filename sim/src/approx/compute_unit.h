// GEMM (weft_compute + the array and accumulator): the preloader starts a GEMM (tokens, a
// free weight buffer, room in the stream queue) and reads its k_rows weight rows one a cycle
// into the PE buffer the current weights are not in; the streamer issues the queue's rows one
// a cycle, back to back across GEMMs, from the cycle after the start. The last row issued in
// cycle c completes the GEMM at c + 1 + Rows + Cols (its write-back reaches the last column).
// A buffer is reused Cols cycles after the last row of its previous GEMM entered the array.
// With the output-stationary array (Dataflow OS) there is no preload and the rows go in blocks
// (gemm_schedule.h).
// A GEMM of k_steps steps starts once a step, each a GEMM to the rules above, a step the cycle
// after the one before it at the earliest; the first takes the tokens, the last pops the
// command, and the command completes with the last.
// No DRAM traffic: a GEMM's whole timeline is known when it starts.
#pragma once

#include <array>
#include <deque>

#include "approx/unit_front.h"

namespace weft::sim::approx {

class ComputeUnit final : public Agent {
 public:
  explicit ComputeUnit(Machine& m);
  uint64_t nextCycle() const override;
  void act(uint64_t now, uint64_t horizon) override;
  void softReset(uint64_t t) override;
  void hardReset() override;

  bool idle() const { return jobs_.empty(); }
  uint64_t lastCompletion() const { return lastCompletion_; }
  const UnitFront& front() const { return front_; }
  uint64_t arrayRows(uint64_t t) const { return arrayRows_.value(t); }
  uint64_t fp16Rows(uint64_t t) const { return fp16Rows_.value(t); }
  uint64_t weightRows(uint64_t t) const { return weightRows_.value(t); }

 private:
  struct Job {
    hw::CommandWord cmd;
    uint64_t lastIssue;  // cycle its last row enters the array
    uint64_t doneAt;
  };
  uint64_t startFrom() const;
  void start(uint64_t t);

  Machine& m_;
  UnitFront front_;
  const bool os_;  // Dataflow OS
  std::deque<Job> jobs_;  // started (the last step), not complete, in order
  std::deque<uint64_t> stepIssues_;  // the last issue of the newest steps, up to the stream queue's depth
  uint32_t step_ = 0;                // of the head: steps started
  uint64_t lastStepStart_ = 0;
  uint64_t lastCompletion_ = 0;
  uint64_t lastIssue_ = 0;         // of the newest job (rows issue back to back)
  bool anyIssued_ = false;
  uint64_t preloadFreeFrom_ = 0;   // the weight read port is free from this cycle
  unsigned lastBuf_ = 0;           // buffer with the most recent weights
  std::array<uint64_t, 2> bufFreeFrom_{};  // Cols cycles after its last GEMM's last row
  IntervalCounter arrayRows_;
  IntervalCounter fp16Rows_;  // FP16_ROWS
  IntervalCounter weightRows_;   // WSPAD_RD_ROWS
  uint32_t lastK_ = 0;           // k_rows of the latest GEMM with new weights (keep_weights)
};

}  // namespace weft::sim::approx
