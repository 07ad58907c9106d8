// The accelerator at the register level, cycle-approximate: the register file of
// hw/spec/regs.json over the controller and unit agents, and the scheduler that runs the
// agents in cycle order. Data moves through the functional model (bit-identical to the RTL by
// construction); time through the agents' timelines and the shared DRAM model.
#pragma once

#include <array>
#include <exception>
#include <memory>

#include "approx/controller.h"
#include "approx/cycle_counter.h"
#include "approx/machine.h"
#include "approx/units.h"

namespace weft::sim::approx {

class ApproxDevice final : public CounterSource {
 public:
  explicit ApproxDevice(const hw::HwConfig& config, const ApproxTiming& timing = {});

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
  const DramModel& dramModel() const { return dramModel_; }
  CounterValues counters(uint64_t t) const override;

 private:
  // Runs every agent action before cycle `limit`, stopping after the action that raises the
  // interrupt when stopAtIrq; leaves now_ at limit or just after that action.
  bool runTo(uint64_t limit, bool stopAtIrq);
  void softReset();
  uint32_t registerValue(uint32_t addr);
  bool busy() const;
  void updateBusy(uint64_t t);

  std::unique_ptr<DramStorage> dram_;
  DramModel dramModel_;
  Machine machine_;
  LoadUnit load_;
  ComputeUnit compute_;
  StoreUnit store_;
  Dispatcher dispatcher_;
  Fetcher fetcher_;
  std::array<Agent*, 5> agents_;

  uint64_t now_ = 0;
  uint64_t resetCycle_ = 0;  // counters count from the last hardware reset
  CycleCounter busy_;
  uint32_t latchedHi_ = 0;  // the upper half of the counter whose LO was read last
  std::exception_ptr fault_;
  bool faulted_ = false;
};

}  // namespace weft::sim::approx
