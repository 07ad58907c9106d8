// Two devices side by side, a few cycles at a time: after every step both answer STATUS and
// every performance counter, and the first value that differs is reported with its cycle.
// Final counters can agree while the timelines underneath differ (an event counted a cycle
// late, a start a cycle early that nothing waited for); this finds where, to the step.
// Reading a register takes device cycles, the same on both, so a step is `step` cycles plus
// the reads.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "weft/sim/backend.h"
#include "weft/sim/testing/programs.h"

namespace weft::sim::testing {

struct Divergence {
  uint64_t cycle = 0;  // the devices' cycle after the step where they first differ
  std::string what;    // a counter's name, "STATUS", "interrupt" or "cycle"
  uint64_t first = 0, second = 0;
  std::string describe() const;  // "cycle 18732: STALL_STORE_TOKEN 1254 vs 1255"
};

struct LockstepResult {
  std::optional<Divergence> divergence;  // none: they agreed after every step
  bool interrupted = false;              // both raised the interrupt (and agreed until then)
  uint64_t steps = 0;
};

// Runs both devices `step` cycles at a time until both raise the interrupt, `maxCycles` pass
// or they differ. The interrupt is left pending, as runUntilInterrupt leaves it.
LockstepResult runInLockstep(IDeviceBackend& first, IDeviceBackend& second, uint64_t step, uint64_t maxCycles);

// Runs `programs` back to back on two fresh devices, each program in lock-step through a ring
// driver per device (ProgramLayout's ring), acknowledging each interrupt. Returns what went
// wrong first ("program 2 (tag 7): after 48 steps, cycle 1605: DMA_WR_BYTES 160 vs 144", or an
// interrupt that did not come) or nullopt when they agreed throughout.
std::optional<std::string> runProgramsInLockstep(IDeviceBackend& first, IDeviceBackend& second,
                                                 const std::vector<Program>& programs, uint64_t step,
                                                 uint64_t maxCycles);

}  // namespace weft::sim::testing
