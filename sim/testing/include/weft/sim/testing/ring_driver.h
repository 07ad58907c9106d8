// A minimal driver for tests and benchmarks: owns a command ring in device DRAM and submits
// programs through the registers exactly as the accelerator driver does (RING_BASE/SIZE,
// IRQ_MASK, CTRL.enable, then the RING_TAIL doorbell), wrapping around the ring.
#pragma once

#include <cstdint>
#include <vector>

#include "weft/hw/generated.h"
#include "weft/sim/backend.h"

namespace weft::sim::testing {

// A 64-bit counter as a driver reads it: LO (which latches it), then the latched HI.
uint64_t readCounter(IDeviceBackend& device, hw::Counter c);

class RingDriver {
 public:
  RingDriver(IDeviceBackend& device, uint64_t ringBase, uint32_t ringSize);

  // Programs the ring registers and enables the controller (after creation or a reset).
  void init();
  // Writes `commands` after the current tail (wrapping) and rings the doorbell. A program
  // must fit the ring (at most ringSize - 1 commands in flight).
  void submit(const std::vector<hw::CommandWord>& commands);
  // Runs to the interrupt; returns IRQ_STATUS (0 on timeout) and clears it.
  uint32_t runToInterrupt(uint64_t maxCycles);
  // CTRL.soft_reset, then init() again: the ring restarts at index 0.
  void softReset();

  uint64_t readCounter(hw::Counter c);
  uint32_t tail() const { return tail_; }

 private:
  IDeviceBackend& device_;
  uint64_t ringBase_;
  uint32_t ringSize_;
  uint32_t tail_ = 0;
};

}  // namespace weft::sim::testing
