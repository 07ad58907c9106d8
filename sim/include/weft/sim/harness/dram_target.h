// The device DRAM as a TLM-2.0 loosely-timed target: b_transport performs the access at once
// through the DRAM model and annotates the delay to the cycle the model answers (first read
// beat, or write acknowledgement). Accesses outside the memory answer
// TLM_ADDRESS_ERROR_RESPONSE and change nothing.
#pragma once

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include "weft/sim/dram_model.h"
#include "weft/sim/harness/clock_map.h"

namespace weft::sim {

class DramTarget : public sc_core::sc_module {
 public:
  tlm_utils::simple_target_socket<DramTarget> socket;

  DramTarget(sc_core::sc_module_name name, DramModel& model, const ClockMap& clock);

 private:
  void b_transport(tlm::tlm_generic_payload& gp, sc_core::sc_time& delay);

  DramModel& model_;
  const ClockMap& clock_;
};

}  // namespace weft::sim
