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

  // Elaborates the design for config's RTL build (loading its plugin) and ends elaboration.
  RtlSystem(const hw::HwConfig& config, const BackendOptions& options);

  // Makes the design a fresh device of `config` (same RTL build): its clock and DRAM timing,
  // an empty DRAM, the hardware reset.
  void renew(const hw::HwConfig& config);

  HostPort& host() { return host_; }
  DramStorage& dram() { return *dram_; }
  ClockedDevice& device() { return harness_.device(); }
  const std::string& rtlKey() const { return rtlKey_; }
  bool tracing() const { return tracing_; }

 private:
  std::string rtlKey_;
  bool tracing_;
  ClockMap clock_;
  std::unique_ptr<DramStorage> dram_;
  DramModel dramModel_;
  sc_core::sc_signal<bool> irq_;
  DramTarget dramTarget_;
  RtlHarness harness_;
  HostPort host_;
};

}  // namespace weft::sim
