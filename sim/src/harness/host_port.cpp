#include "weft/sim/harness/host_port.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <utility>

namespace weft::sim {

HostPort::HostPort(sc_core::sc_module_name name, RtlHarness& harness)
    : sc_core::sc_module(name), socket("socket"), irq_i("irq_i"), harness_(harness) {
  SC_THREAD(thread);
}

std::exception_ptr HostPort::call(const std::function<void()>& op) {
  // The first call ends elaboration: notifications before it would be lost.
  if (sc_core::sc_get_status() == sc_core::SC_ELABORATION) sc_core::sc_start(sc_core::SC_ZERO_TIME);
  op_ = op;
  done_ = false;
  error_ = nullptr;
  opEvent_.notify(sc_core::SC_ZERO_TIME);
  sc_core::sc_start();  // returns at the host thread's sc_pause()
  if (!done_) return std::make_exception_ptr(std::logic_error("the simulation stopped before the host operation finished"));
  if (!error_) error_ = harness_.takeFault();  // a fault during register accesses
  return std::exchange(error_, nullptr);
}

void HostPort::thread() {
  for (;;) {
    wait(opEvent_);
    op_();  // records its errors in error_
    done_ = true;
    sc_core::sc_pause();
  }
}

void HostPort::fail(std::exception_ptr e) {
  if (!error_) error_ = std::move(e);
}

void HostPort::access(tlm::tlm_command cmd, uint32_t addr, uint32_t& value) {
  tlm::tlm_generic_payload& gp = payload_;
  gp.set_command(cmd);
  gp.set_address(addr);
  gp.set_data_ptr(reinterpret_cast<unsigned char*>(&value));
  gp.set_data_length(4);
  gp.set_streaming_width(4);
  gp.set_byte_enable_ptr(nullptr);
  gp.set_dmi_allowed(false);
  gp.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
  sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
  socket->b_transport(gp, delay);
  if (gp.is_response_error()) {
    fail(std::make_exception_ptr(
        std::invalid_argument(fmt::format("register access at {:#x}: {}", addr, gp.get_response_string()))));
  }
  wait(delay);  // the driver waits for its access to complete
}

uint32_t HostPort::readReg(uint32_t addr) {
  uint32_t v = 0;
  access(tlm::TLM_READ_COMMAND, addr, v);
  return v;
}

void HostPort::writeReg(uint32_t addr, uint32_t value) { access(tlm::TLM_WRITE_COMMAND, addr, value); }

bool HostPort::runUntilInterrupt(uint64_t maxCycles) {
  if (irq_i.read()) return true;
  const uint64_t now = harness_.device().cycle();
  harness_.run(now + std::min(maxCycles, UINT64_MAX - now));  // "forever" must not wrap
  if (auto fault = harness_.takeFault()) fail(fault);
  return irq_i.read();
}

void HostPort::hardReset() { harness_.hardReset(); }

}  // namespace weft::sim
