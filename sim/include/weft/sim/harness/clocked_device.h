// What the SystemC harness drives: a clocked device with a register bus, DRAM ports served
// through an IDramPort, and an interrupt line, advanced by the caller in batches of cycles.
// It is the shape of weft::sim::RtlStepper (the verilated RTL, kernel-free), which the rtl
// backend adapts to it; tests drive the harness with small fakes.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "weft/sim/command_events.h"
#include "weft/sim/dram_port.h"

namespace weft::sim {

class ClockedDevice {
 public:
  virtual ~ClockedDevice() = default;

  // Cycles the device has been clocked since it was created (a reset does not restart it).
  virtual uint64_t cycle() const = 0;
  // Clocks until the interrupt line is high (checked before every cycle: 0 when it already
  // is) or maxCycles have passed; returns the cycles clocked. DRAM requests go to the
  // IDramPort the device was made with, with issue cycles on the cycle() scale.
  virtual uint64_t run(uint64_t maxCycles) = 0;
  // Clocks exactly `cycles` cycles, whatever the interrupt line does.
  virtual void step(uint64_t cycles) = 0;
  virtual bool irq() const = 0;
  // One register-bus access each; they clock the device for the bus cycles they take.
  virtual uint32_t readReg(uint32_t addr) = 0;
  virtual void writeReg(uint32_t addr, uint32_t value) = 0;
  // Drives the hardware reset (clocking the device through the reset pulse).
  virtual void reset() = 0;
  // Its per-command timelines (command_events.h), on the cycle() scale; nullptr: none.
  virtual CommandLog* commandLog() { return nullptr; }
};

// Makes the device with the DRAM port it must use (the harness's TLM initiator).
using ClockedDeviceFactory = std::function<std::unique_ptr<ClockedDevice>(IDramPort&)>;

}  // namespace weft::sim
