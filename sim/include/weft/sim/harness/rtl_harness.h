// The SystemC harness around the RTL: one module that owns the clocked device (the verilated
// weft_top, through RtlStepper) and advances it itself, in batches, from one SC_THREAD — no
// sc_clock and no per-edge scheduling. It is a TLM-2.0 loosely-timed model:
//
//  * regSocket (target): b_transport performs a register access at the initiator's time
//    (sc_time_stamp() + delay; the device first catches up to it) and annotates the delay
//    to the end of the access.
//  * dramSocket (initiator): every DRAM request the device makes becomes a b_transport whose
//    delay is its issue cycle's offset from sc_time_stamp(); the answer's delay is turned
//    back into the cycle the device sees its data or acknowledgement.
//  * irq_o: the interrupt line, updated whenever the device stops or a register changes it.
//  * run(until): from a process, runs the device until cycle `until` or the interrupt. The
//    device runs ahead of SystemC time by at most a quantum (tlm_quantumkeeper; the global
//    quantum is the harness's), syncing with wait() once per quantum, not per cycle.
#pragma once

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>
#include <tlm_utils/simple_target_socket.h>
#include <tlm_utils/tlm_quantumkeeper.h>

#include <exception>
#include <memory>
#include <utility>

#include "weft/sim/harness/clock_map.h"
#include "weft/sim/harness/clocked_device.h"

namespace weft::sim {

// The standard quantum keeper, telling how far the current quantum still reaches, so that the
// harness can clock exactly that many cycles in one batch.
class BatchQuantumKeeper : public tlm_utils::tlm_quantumkeeper {
 public:
  sc_core::sc_time remaining() const {
    const sc_core::sc_time now = get_current_time();
    return m_next_sync_point > now ? m_next_sync_point - now : sc_core::SC_ZERO_TIME;
  }
};

class RtlHarness : public sc_core::sc_module, private IDramPort {
 public:
  tlm_utils::simple_target_socket<RtlHarness> regSocket;
  tlm_utils::simple_initiator_socket<RtlHarness> dramSocket;
  sc_core::sc_out<bool> irq_o;

  SC_HAS_PROCESS(RtlHarness);
  RtlHarness(sc_core::sc_module_name name, const ClockedDeviceFactory& makeDevice,
             const ClockMap& clock, uint64_t quantumCycles);

  // Blocking, from a process: runs the device until cycle `until` (absolute, on the device's
  // scale), until its interrupt line is high or until it faults, then returns with SystemC time
  // at the device's time.
  void run(uint64_t until);
  // A fault of the device since the last call (a DRAM access outside the memory), or null.
  // Faults are recorded, never thrown: exceptions must not unwind SystemC's coroutines (they
  // also defeat AddressSanitizer's view of the stacks). The device needs a reset after one.
  std::exception_ptr takeFault() { return std::exchange(fault_, nullptr); }
  // Blocking, from a process: the hardware reset.
  void hardReset();

  ClockedDevice& device() { return *device_; }
  // The device is plain C++, not part of the elaborated design: it can be replaced (a fresh
  // model for the next user) or released (closing its waveform) between simulations.
  void attach(const ClockedDeviceFactory& makeDevice) { device_ = makeDevice(*this); }
  void detach() { device_.reset(); }
  bool attached() const { return device_ != nullptr; }
  uint64_t quantumCycles() const { return quantumCycles_; }
  // The device's cycle count translated to its time, for callers that sync to it.
  sc_core::sc_time deviceTime() const { return clock_.timeOf(device_->cycle()); }

 private:
  void runThread();
  void regTransport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);
  // Clocks the device (idle) up to the cycle in progress at `t`.
  void catchUp(sc_core::sc_time t);
  // irq_o has one driver, this method; the contexts that may change the line notify it.
  void driveIrq();
  void updateIrq() { irqChanged_.notify(); }
  // IDramPort of the device: forwarded through dramSocket.
  uint64_t read(uint64_t addr, uint8_t* dst, uint32_t bytes, uint64_t issueCycle) override;
  uint64_t write(uint64_t addr, const uint8_t* src, uint32_t bytes, uint64_t issueCycle) override;
  uint64_t forward(tlm::tlm_command cmd, uint64_t addr, uint8_t* data, uint32_t bytes, uint64_t issueCycle);

  const ClockMap& clock_;
  uint64_t quantumCycles_;
  std::unique_ptr<ClockedDevice> device_;
  BatchQuantumKeeper qk_;
  tlm::tlm_generic_payload dramPayload_;
  sc_core::sc_event runRequest_, stopped_, irqChanged_;
  uint64_t runUntil_ = 0;
  std::exception_ptr fault_;
};

}  // namespace weft::sim
