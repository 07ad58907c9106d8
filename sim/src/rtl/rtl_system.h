// The elaborated SystemC design of the rtl backend: the device DRAM behind its TLM target,
// the harness around the verilated weft_top (RtlStepper), the driver's host port and the
// interrupt wire between them. One per process, built on the simulation thread; everything
// here is only touched from that thread.
#pragma once

#include <systemc>

#include <memory>

#include "weft/hw/config.h"
#include "weft/sim/backend.h"
#include "weft/sim/dram_model.h"
#include "weft/sim/harness/clock_map.h"
#include "weft/sim/harness/dram_target.h"
#include "weft/sim/harness/host_port.h"
#include "weft/sim/harness/rtl_harness.h"

namespace weft::sim {

class RtlSystem {
 public:
  // Cycles the device may run ahead of SystemC time: one wait() per this many cycles.
  static constexpr uint64_t kQuantumCycles = 10000;

  // Elaborates the design with a device of config's RTL build (its plugin loaded, the model
  // created and reset) and ends elaboration.
  RtlSystem(const hw::HwConfig& config, const BackendOptions& options);

  // Releases the device (its waveform, if any, is complete from then on).
  void detach();
  // A fresh device of `config` (same RTL build) in the elaborated design: a new model, an
  // empty DRAM, config's clock and DRAM timing, the options' waveform.
  void attach(const hw::HwConfig& config, const BackendOptions& options);
  bool attached() const { return harness_.attached(); }

  HostPort& host() { return host_; }
  DramStorage& dram() { return *dram_; }
  DramModel& dramModel() { return dramModel_; }
  ClockedDevice& device() { return harness_.device(); }
  const std::string& rtlKey() const { return rtlKey_; }

 private:
  std::string rtlKey_;
  ClockMap clock_;
  std::unique_ptr<DramStorage> dram_;
  DramModel dramModel_;
  sc_core::sc_signal<bool> irq_;
  DramTarget dramTarget_;
  RtlHarness harness_;
  HostPort host_;
};

}  // namespace weft::sim
