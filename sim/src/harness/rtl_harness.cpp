#include "weft/sim/harness/rtl_harness.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace weft::sim {

using sc_core::sc_time;

RtlHarness::RtlHarness(sc_core::sc_module_name name, const ClockedDeviceFactory& makeDevice,
                       const ClockMap& clock, uint64_t quantumCycles)
    : sc_core::sc_module(name),
      regSocket("regSocket"),
      dramSocket("dramSocket"),
      irq_o("irq_o"),
      clock_(clock),
      quantumCycles_(std::max<uint64_t>(quantumCycles, 1)),
      device_(makeDevice(*this)) {
  regSocket.register_b_transport(this, &RtlHarness::regTransport);
  SC_THREAD(runThread);
  SC_METHOD(driveIrq);
  sensitive << irqChanged_;
}

// ---- running ----

void RtlHarness::run(uint64_t until) {
  runUntil_ = until;
  runRequest_.notify(sc_core::SC_ZERO_TIME);
  wait(stopped_);
}

void RtlHarness::runThread() {
  for (;;) {
    wait(runRequest_);
    const sc_time period = clock_.period();
    BatchQuantumKeeper::set_global_quantum(sc_time::from_value(period.value() * quantumCycles_));
    qk_.reset();
    if (!fault_) catchUp(sc_core::sc_time_stamp());
    while (!fault_ && !device_->irq() && device_->cycle() < runUntil_) {
      // One batch: to the end of the quantum, the run's end or the interrupt.
      const uint64_t room = std::max<uint64_t>(qk_.remaining().value() / period.value(), 1);
      device_->run(std::min(runUntil_ - device_->cycle(), room));
      qk_.set(clock_.delayTo(device_->cycle(), sc_core::sc_time_stamp()));
      if (qk_.need_sync()) qk_.sync();
    }
    qk_.set(clock_.delayTo(device_->cycle(), sc_core::sc_time_stamp()));
    qk_.sync();
    updateIrq();
    stopped_.notify(sc_core::SC_ZERO_TIME);
  }
}

void RtlHarness::catchUp(sc_time t) {
  const uint64_t target = clock_.cycleAt(t);
  if (device_->cycle() < target) device_->step(target - device_->cycle());
}

void RtlHarness::hardReset() {
  // Reset first: a device that faulted must not be clocked again before it is reset.
  device_->reset();
  fault_ = nullptr;
  catchUp(sc_core::sc_time_stamp());
  wait(clock_.delayTo(device_->cycle(), sc_core::sc_time_stamp()));
  updateIrq();
}

void RtlHarness::driveIrq() { irq_o.write(device_->irq()); }

// ---- register bus ----

void RtlHarness::regTransport(tlm::tlm_generic_payload& gp, sc_time& delay) {
  const uint64_t addr = gp.get_address();
  if (gp.get_data_length() != 4 || addr % 4 != 0 || addr >= 4096 || gp.get_byte_enable_ptr()) {
    gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  const sc_time now = sc_core::sc_time_stamp();
  catchUp(now + delay);
  uint32_t value = 0;
  if (gp.is_read()) {
    value = device_->readReg(static_cast<uint32_t>(addr));
    std::memcpy(gp.get_data_ptr(), &value, 4);
  } else if (gp.is_write()) {
    std::memcpy(&value, gp.get_data_ptr(), 4);
    device_->writeReg(static_cast<uint32_t>(addr), value);
  } else {
    gp.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
    return;
  }
  delay = clock_.delayTo(device_->cycle(), now);
  updateIrq();
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

// ---- DRAM requests of the device ----

uint64_t RtlHarness::read(uint64_t addr, uint8_t* dst, uint32_t bytes, uint64_t issueCycle) {
  return forward(tlm::TLM_READ_COMMAND, addr, dst, bytes, issueCycle);
}

uint64_t RtlHarness::write(uint64_t addr, const uint8_t* src, uint32_t bytes, uint64_t issueCycle) {
  // TLM's data pointer is not const; a write target only reads it.
  return forward(tlm::TLM_WRITE_COMMAND, addr, const_cast<uint8_t*>(src), bytes, issueCycle);
}

uint64_t RtlHarness::forward(tlm::tlm_command cmd, uint64_t addr, uint8_t* data, uint32_t bytes,
                             uint64_t issueCycle) {
  tlm::tlm_generic_payload& gp = dramPayload_;
  gp.set_command(cmd);
  gp.set_address(addr);
  gp.set_data_ptr(data);
  gp.set_data_length(bytes);
  gp.set_streaming_width(bytes);
  gp.set_byte_enable_ptr(nullptr);
  gp.set_dmi_allowed(false);
  gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  const sc_time now = sc_core::sc_time_stamp();
  sc_time delay = clock_.delayTo(issueCycle, now);
  dramSocket->b_transport(gp, delay);
  if (gp.is_response_error()) {
    // A bus error: the device gets zeros (reads) or nothing is written, on the next cycle, and
    // the run ends at the batch's end with the fault reported.
    if (!fault_) {
      const std::string what = fmt::format("the device {} {} bytes at DRAM address {:#x} at cycle {}: {}",
                                           cmd == tlm::TLM_READ_COMMAND ? "read" : "wrote", bytes, addr,
                                           issueCycle, gp.get_response_string());
      fault_ = gp.get_response_status() == tlm::TLM_ADDRESS_ERROR_RESPONSE
                   ? std::make_exception_ptr(std::out_of_range(what + " (outside the device memory)"))
                   : std::make_exception_ptr(std::runtime_error(what));
    }
    if (cmd == tlm::TLM_READ_COMMAND) std::memset(data, 0, bytes);
    return issueCycle + 1;
  }
  return clock_.cycleAt(now + delay);
}

}  // namespace weft::sim
