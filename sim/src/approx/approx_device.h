// The accelerator at the register level, cycle-approximate: the register file of
// hw/spec/regs.json (as weft_csr implements it) over the controller and unit agents, and the
// scheduler that runs the agents in cycle order. Data moves through the functional model
// (bit-identical to the RTL by construction); time through the agents' timelines, which
// mirror the RTL's units (rtl/), and the shared DRAM model.
#pragma once

#include <array>
#include <exception>
#include <memory>

#include "approx/compute_unit.h"
#include "approx/controller.h"
#include "approx/load_unit.h"
#include "approx/machine.h"
#include "approx/store_unit.h"
#include "approx/vector_unit.h"

namespace weft::sim::approx {

class ApproxDevice final : public CounterSource {
 public:
  explicit ApproxDevice(const hw::HwConfig& config, const ApproxTiming& timing = {});
  // As the backend makes it: the reference agents always compute data (computesData false, the
  // timing backend, is the flow engine's alone and throws std::invalid_argument here).
  ApproxDevice(const hw::HwConfig& config, bool computesData);

  // One register-bus access (a cycle each, like weft_csr behind RtlStepper).
  uint32_t readReg(uint32_t addr);
  void writeReg(uint32_t addr, uint32_t value);
  // Runs until the interrupt line is high or maxCycles have passed; true on interrupt.
  // Rethrows a DRAM access fault of the device (std::out_of_range); the device then stays
  // stopped until hardReset().
  bool runUntilInterrupt(uint64_t maxCycles);
  void hardReset();

  uint64_t cycle() const { return now_; }
  bool irqLine() const { return machine_.control.irqLine(); }
  DramStorage& dram() { return *dram_; }
  DramModel& dramModel() { return dramModel_; }
  CounterValues counters(uint64_t t) const override;

 private:
  // Runs every agent action before cycle `limit`; with stopAtIrq, stops at the end of the
  // cycle in which the interrupt line rose. Leaves now_ at the cycle it stopped before.
  bool runTo(uint64_t limit, bool stopAtIrq);
  void applySoftReset(uint64_t t);
  bool busy(uint64_t t) const;
  void updateBusy(uint64_t t);
  uint32_t registerValue(uint32_t addr);

  std::unique_ptr<DramStorage> dram_;
  DramModel dramModel_;
  Machine machine_;
  Fetcher fetcher_;
  LoadUnit load_;
  ComputeUnit compute_;
  StoreUnit store_;
  VectorUnit vector_;
  Decoder decoder_;
  std::array<Agent*, 6> agents_;

  uint64_t now_ = 0;
  uint64_t resetCycle_ = 0;  // counters count from the end of the last hardware reset
  uint64_t softResetAt_ = kNever;
  ActivityCounter busy_;
  std::array<uint32_t, hw::kNumCounters> latchedHi_{};  // per counter, as weft_csr latches
  std::exception_ptr fault_;
  bool faulted_ = false;
};

}  // namespace weft::sim::approx
