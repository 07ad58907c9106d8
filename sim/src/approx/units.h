// The three execution units of the approximate model. Each models the run of one command on
// its own timeline; DRAM requests are single steps so that the scheduler hands them to the
// shared DRAM model in cycle order.
#pragma once

#include <deque>

#include "approx/exec_unit.h"

namespace weft::sim::approx {

// LOAD: one DRAM read request per row, at most MaxOutstanding in flight, one request a cycle;
// completes when the last row's data is in the scratchpad.
class LoadUnit final : public ExecUnit {
 public:
  explicit LoadUnit(Machine& m);
  void abort(uint64_t now) override;
  void reset() override;
  uint64_t dramStallCycles(uint64_t t) const { return dramStall_.value(t); }

 protected:
  void begin(const hw::CommandWord& cmd, uint64_t t) override;
  uint64_t nextStep() const override;
  bool step(uint64_t t) override;

 private:
  hw::LoadCmd cmd_;
  uint64_t rowsTotal_ = 0, rowsIssued_ = 0;
  uint32_t i0_ = 0, i1_ = 0, i2_ = 0;
  uint64_t nextIssue_ = 0;  // earliest cycle of the next request, ignoring the port
  uint64_t lastData_ = 0;   // last beat of the newest request
  std::deque<uint64_t> outstanding_;  // last-beat cycles of requests in flight
  unsigned maxOutstanding_;
  CycleCounter dramStall_;
};

// GEMM: weight preload (unless keep_weights), one input row a cycle into the array, then the
// array's skew until the last accumulator row is written. No DRAM traffic, one step.
class ComputeUnit final : public ExecUnit {
 public:
  explicit ComputeUnit(Machine& m);
  void abort(uint64_t now) override;
  void reset() override;
  uint64_t arrayRows(uint64_t t) const { return arrayRows_.value(t); }

 protected:
  void begin(const hw::CommandWord& cmd, uint64_t t) override;
  uint64_t nextStep() const override { return finish_; }
  bool step(uint64_t) override { return true; }

 private:
  uint64_t finish_ = 0;
  CycleCounter arrayRows_;  // one row per streaming cycle
};

// STORE: accumulator rows through post-processing into one DRAM write request per row, the
// row's beats one a cycle; completes when DRAM has acknowledged the last write.
class StoreUnit final : public ExecUnit {
 public:
  explicit StoreUnit(Machine& m);
  void abort(uint64_t now) override;
  void reset() override;
  uint64_t dramStallCycles(uint64_t t) const { return dramStall_.value(t); }

 protected:
  void begin(const hw::CommandWord& cmd, uint64_t t) override;
  uint64_t nextStep() const override;
  bool step(uint64_t t) override;

 private:
  hw::StoreCmd cmd_;
  uint64_t rowsTotal_ = 0, rowsWritten_ = 0;
  uint32_t i0_ = 0, i1_ = 0;
  uint32_t rowBytes_ = 0, rowBeats_ = 0;
  uint64_t nextRow_ = 0;  // the cycle the next row's data is ready
  uint64_t lastAck_ = 0;
  CycleCounter dramStall_;
};

}  // namespace weft::sim::approx
