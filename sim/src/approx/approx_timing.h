// The fixed micro-architecture constants of weft_top that the hardware parameters do not
// carry (rtl/weft_rtl_pkg.sv and the unit modules), in one place: the approximate model
// mirrors the RTL's per-unit timing, and these are the numbers it cannot derive from hw/.
// A change of the RTL's internal depths or pipeline lengths is a change here.
#pragma once

#include <cstdint>

namespace weft::sim::approx {

struct ApproxTiming {
  // Register bus: a request cycle; read data is registered at its end (weft_csr).
  uint32_t regAccessCycles = 1;
  // Hardware reset: cycles rst_ni is held low (RtlStepper::reset).
  uint32_t resetCycles = 2;

  // weft_fetch: command buffer slots (also the largest fetch request, in commands); a
  // request waits for half the buffer free unless everything up to the tail fits.
  uint32_t fetchSlots = 8;

  // weft_load: contiguous full rows of one i0 run merge into requests of up to this many bytes
  // (rows whose size is a whole number of beats only).
  uint32_t loadMaxReqBytes = 1024;

  // weft_compute: GEMMs accepted by the preloader and not fully streamed.
  uint32_t streamQueueDepth = 2;

  // weft_store: rows between issue and their last write beat (pipeline + row buffer), store
  // commands awaiting their last acknowledgement, and the cycles from a row's issue to its
  // write request (accumulator read, two post-processing stages, row buffer).
  uint32_t storeFifoDepth = 8;
  uint32_t storeCmdsInFlight = 4;
  uint32_t storeIssueToRequest = 4;
};

}  // namespace weft::sim::approx
