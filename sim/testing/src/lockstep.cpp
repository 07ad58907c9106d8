#include "weft/sim/testing/lockstep.h"

#include <fmt/format.h>

#include <array>
#include <stdexcept>

#include "weft/hw/generated.h"
#include "weft/sim/testing/ring_driver.h"

namespace weft::sim::testing {
namespace {

// STATUS, then each counter (LO latches it, HI reads the latched half): every value a driver
// can observe while a program runs, in one fixed order.
struct Observation {
  uint32_t status = 0;
  std::array<uint64_t, hw::kNumCounters> counters{};
};

Observation observe(IDeviceBackend& d) {
  Observation o;
  o.status = d.readReg(hw::reg::kStatus);
  for (size_t i = 0; i < hw::kNumCounters; ++i) o.counters[i] = readCounter(d, static_cast<hw::Counter>(i));
  return o;
}

std::optional<Divergence> compare(const Observation& a, const Observation& b, uint64_t cycle) {
  if (a.status != b.status) return Divergence{cycle, "STATUS", a.status, b.status};
  for (size_t i = 0; i < hw::kNumCounters; ++i) {
    if (a.counters[i] != b.counters[i]) {
      return Divergence{cycle, std::string(hw::kCounterNames[i]), a.counters[i], b.counters[i]};
    }
  }
  return std::nullopt;
}

}  // namespace

std::string Divergence::describe() const { return fmt::format("cycle {}: {} {} vs {}", cycle, what, first, second); }

LockstepResult runInLockstep(IDeviceBackend& first, IDeviceBackend& second, uint64_t step, uint64_t maxCycles) {
  if (step == 0) throw std::invalid_argument("runInLockstep: the step must be at least one cycle");
  LockstepResult r;
  for (uint64_t run = 0; run < maxCycles; run += step) {
    const bool a = first.runUntilInterrupt(step), b = second.runUntilInterrupt(step);
    ++r.steps;
    if (first.cycle() != second.cycle()) {
      r.divergence = Divergence{first.cycle(), "cycle", first.cycle(), second.cycle()};
      return r;
    }
    if (a != b) {
      r.divergence = Divergence{first.cycle(), "interrupt", a, b};
      return r;
    }
    r.divergence = compare(observe(first), observe(second), first.cycle());
    if (r.divergence) return r;
    if (a) {
      r.interrupted = true;
      return r;
    }
  }
  return r;
}

std::optional<std::string> runProgramsInLockstep(IDeviceBackend& first, IDeviceBackend& second,
                                                 const std::vector<Program>& programs, uint64_t step,
                                                 uint64_t maxCycles) {
  const ProgramLayout layout;
  RingDriver a(first, layout.ringBase, layout.ringSize), b(second, layout.ringBase, layout.ringSize);
  a.init();
  b.init();
  for (size_t i = 0; i < programs.size(); ++i) {
    const Program& p = programs[i];
    writeInputs(first, p);
    writeInputs(second, p);
    a.submit(p.commands);
    b.submit(p.commands);
    const LockstepResult r = runInLockstep(first, second, step, maxCycles);
    const std::string which = fmt::format("program {} (tag {}): after {} steps", i, p.tag, r.steps);
    if (r.divergence) return fmt::format("{}, {}", which, r.divergence->describe());
    if (!r.interrupted) return fmt::format("{}, no interrupt within {} cycles", which, maxCycles);
    const uint32_t statusA = a.runToInterrupt(1), statusB = b.runToInterrupt(1);
    if (statusA != hw::reg::kIrqStatusDoneMask || statusB != statusA) {
      return fmt::format("{}, IRQ_STATUS {:#x} vs {:#x} (done expected)", which, statusA, statusB);
    }
  }
  return std::nullopt;
}

}  // namespace weft::sim::testing
