// The driver's side of the harness: a TLM-2.0 initiator on the register bus and a listener on
// the interrupt line, run by one SC_THREAD. The backend hands it one operation at a time from
// outside the simulation (between sc_start calls) with call(); the operation runs inside the
// thread, where it can block on simulated time, and ends the sc_start with sc_pause().
#pragma once

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include <exception>
#include <functional>

#include "weft/sim/harness/rtl_harness.h"

namespace weft::sim {

class HostPort : public sc_core::sc_module {
 public:
  tlm_utils::simple_initiator_socket<HostPort> socket;
  sc_core::sc_in<bool> irq_i;

  SC_HAS_PROCESS(HostPort);
  HostPort(sc_core::sc_module_name name, RtlHarness& harness);

  // Outside the simulation: runs `op` in the host thread and the simulation until it is done.
  // Returns the error of the operation (a register bus error, a device fault), or null; it is
  // not thrown here because the caller may itself be SystemC's thread (see RtlHarness).
  [[nodiscard]] std::exception_ptr call(const std::function<void()>& op);

  // Inside an operation: one register access (syncing simulated time to its end), running
  // to the interrupt, the hardware reset. Errors are recorded for call() to return.
  uint32_t readReg(uint32_t addr);
  void writeReg(uint32_t addr, uint32_t value);
  bool runUntilInterrupt(uint64_t maxCycles);
  void hardReset();

 private:
  void thread();
  void access(tlm::tlm_command cmd, uint32_t addr, uint32_t& value);
  void fail(std::exception_ptr e);

  RtlHarness& harness_;
  tlm::tlm_generic_payload payload_;
  std::function<void()> op_;
  sc_core::sc_event opEvent_;
  bool done_ = false;
  std::exception_ptr error_;
};

}  // namespace weft::sim
