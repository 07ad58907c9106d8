// The micro-architecture constants of weft_top the approximate model times with. They come from
// hw/spec/micro.json (generated into weft/hw/generated.h, as into the RTL package), so the model
// and the RTL cannot disagree about a depth; the two harness facts below are the stepper's.
#pragma once

#include <cstdint>

#include "weft/hw/generated.h"

namespace weft::sim::approx {

struct ApproxTiming {
  // Register bus: a request cycle; read data is registered at its end (weft_csr).
  uint32_t regAccessCycles = 1;
  // Hardware reset: cycles rst_ni is held low (RtlStepper::reset).
  uint32_t resetCycles = 2;

  uint32_t fetchSlots = hw::micro::kFetchSlots;
  uint32_t loadMaxReqBytes = hw::micro::kLoadMaxReqBytes;
  uint32_t streamQueueDepth = hw::micro::kStreamQueueDepth;
  uint32_t storeFifoDepth = hw::micro::kStoreFifoDepth;
  uint32_t storeCmdsInFlight = hw::micro::kStoreCmdsInFlight;
  uint32_t storeIssueToRequest = hw::micro::kStoreIssueToRequest;

  // Rows of `rowSize` bytes one merged LOAD request covers (weft_load's max_rows()): several
  // only when rows are whole beats and fit the largest request.
  uint32_t rowsPerRequest(uint32_t rowSize, uint32_t busBytes) const {
    return (rowSize % busBytes != 0 || rowSize > loadMaxReqBytes) ? 1 : loadMaxReqBytes / rowSize;
  }
};

}  // namespace weft::sim::approx
