#include "weft/sim/harness/dram_target.h"

#include <stdexcept>

namespace weft::sim {

DramTarget::DramTarget(sc_core::sc_module_name name, DramModel& model, const ClockMap& clock)
    : sc_core::sc_module(name), socket("socket"), model_(model), clock_(clock) {
  socket.register_b_transport(this, &DramTarget::b_transport);
}

void DramTarget::b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay) {
  const sc_core::sc_time now = sc_core::sc_time_stamp();
  if (gp.get_byte_enable_ptr() != nullptr || gp.get_streaming_width() < gp.get_data_length()) {
    gp.set_response_status(tlm::TLM_BYTE_ENABLE_ERROR_RESPONSE);
    return;
  }
  const uint64_t issue = clock_.cycleAt(now + delay);
  uint64_t ready = 0;
  try {
    switch (gp.get_command()) {
      case tlm::TLM_READ_COMMAND:
        ready = model_.read(gp.get_address(), gp.get_data_ptr(), gp.get_data_length(), issue);
        break;
      case tlm::TLM_WRITE_COMMAND:
        ready = model_.write(gp.get_address(), gp.get_data_ptr(), gp.get_data_length(), issue);
        break;
      default:
        gp.set_response_status(tlm::TLM_COMMAND_ERROR_RESPONSE);
        return;
    }
  } catch (const std::out_of_range&) {
    gp.set_response_status(tlm::TLM_ADDRESS_ERROR_RESPONSE);
    return;
  }
  delay = clock_.delayTo(ready, now);
  gp.set_response_status(tlm::TLM_OK_RESPONSE);
}

}  // namespace weft::sim
