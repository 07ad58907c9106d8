// The accelerator as the driver sees it: registers, DRAM and an interrupt line.
//
// Two backends implement it: `rtl`, the verilated RTL inside the SystemC harness (the truth),
// and `approx`, the cycle-approximate model (fast), also as `timing` (approx without data). The driver programs both the same way:
// it places a command program and data in DRAM, writes the ring registers, rings the doorbell
// and waits for the interrupt; nothing above this interface knows which one it talks to.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "weft/hw/config.h"
#include "weft/sim/command_events.h"
#include "weft/sim/cycle_dram.h"

namespace weft::sim {

// kTiming is the approximate model without its data path: the same cycles, counters and
// snapshot records as kApprox (its timing never depends on data), but no LOAD, GEMM, vector
// command or STORE moves or computes a byte, so outputs are not computed and DRAM faults of
// such commands are not detected. For sweeps and baselines, where only timing is read.
enum class BackendKind { kRtl, kApprox, kTiming };
// Whether a backend of this kind computes data (all but kTiming): where it does not, the driver
// neither builds nor moves the bytes nobody would read (images, inputs, outputs).
inline bool computesData(BackendKind kind) { return kind != BackendKind::kTiming; }

std::string_view toString(BackendKind kind);
// "rtl", "approx" or "timing"; anything else throws std::invalid_argument naming the accepted values.
BackendKind parseBackendKind(std::string_view name);

struct BackendOptions {
  // Write an FST waveform of the RTL here (rtl backend only; uses the tracing build).
  std::string tracePath;
  int traceDepth = 0;  // 0 = all levels
};

// What running the simulation itself cost, for the reports' "simulator" columns.
struct BackendStats {
  double wallSeconds = 0;       // host time spent inside runUntilInterrupt and register accesses
  uint64_t cyclesSimulated = 0; // device cycles advanced in that time
};

class IDeviceBackend {
 public:
  virtual ~IDeviceBackend() = default;

  virtual BackendKind kind() const = 0;
  virtual const hw::HwConfig& config() const = 0;

  // One register access over the register bus (hw/spec/regs.json). Advances device time by
  // the bus round trip; the driver accounts RegAccessNs of modeled interaction time per call.
  virtual uint32_t readReg(uint32_t addr) = 0;
  virtual void writeReg(uint32_t addr, uint32_t value) = 0;

  // Host access to device DRAM, as through a mapping of shared memory: takes no device time.
  // Out-of-range accesses throw std::out_of_range and change nothing.
  virtual void writeDram(uint64_t addr, const void* src, size_t bytes) = 0;
  virtual void readDram(uint64_t addr, void* dst, size_t bytes) = 0;
  virtual uint64_t dramBytes() const = 0;

  // Runs the device until irq_o is high or maxCycles cycles have passed; true on interrupt.
  // Returns at once when the interrupt line is already high.
  // A device access to DRAM outside the memory (a command whose addresses the driver did not
  // check) throws std::out_of_range naming the access; the device is then in an undefined
  // state until hardReset().
  virtual bool runUntilInterrupt(uint64_t maxCycles) = 0;

  // Device clock cycles since the backend was created.
  virtual uint64_t cycle() const = 0;

  // Drives the hardware reset (after a watchdog timeout): all state but DRAM and the
  // performance counters' clock returns to reset.
  virtual void hardReset() = 0;

  virtual BackendStats stats() const = 0;

  // Per-command timelines (command_events.h): off until turned on; both backends report the
  // same events for the same program. takeCommandEvents() returns the commands decoded since
  // the previous take, in decode order (a command still running has complete == kNoCycle).
  // Backends without them (test doubles) record nothing.
  virtual void recordCommands(bool on) { (void)on; }
  virtual std::vector<CommandEvent> takeCommandEvents() { return {}; }
  // The device's DRAM requests (DramEvent) recorded with them, since the previous take.
  virtual std::vector<DramEvent> takeDramEvents() { return {}; }
  // A cycle-level DRAM's own commands (DramCommandEvent), recorded with them, since the previous
  // take; none for the simple pipe.
  virtual std::vector<DramCommandEvent> takeDramCommands() { return {}; }

  // A cycle-level DRAM (Dram other than "simple"): what it did since the backend was created
  // (statistics, energy from its commands), complete up to the latest interrupt (its posted
  // writes are written then). False, and nothing written, for the simple pipe and test doubles.
  // Both backends report the same for the same program.
  virtual bool dramActivity(DramActivity& out) { (void)out; return false; }
  // Records the transactions the cycle-level DRAM sees (CycleDram::TraceLine) until turned off;
  // takeDramTrace() hands over those recorded since the previous take.
  // A cycle-level DRAM's counters at each snapshot record written into [base, base + bytes)
  // (CycleDram::watchSnapshots); takeDramCheckpoints() hands over those since the previous take.
  // Both backends record the same. Nothing for the simple pipe and test doubles.
  virtual void watchDramSnapshots(uint64_t base, uint64_t bytes) { (void)base, (void)bytes; }
  virtual std::vector<DramCheckpoint> takeDramCheckpoints() { return {}; }
  virtual void recordDramTrace(bool on) { (void)on; }
  virtual std::vector<CycleDram::TraceLine> takeDramTrace() { return {}; }
};

// Creates the backend of `kind` for `config`. The rtl backend loads (or builds on demand) the
// verilated model of config.rtlKey(); because SystemC elaborates one design per process, a
// process can hold rtl backends of one RTL configuration only (a second key throws
// std::runtime_error). Errors (no model, bad options) throw with a message saying what to do.
// One rtl backend exists at a time in a process (creating a second while the first lives
// throws); each new one is a fresh device (new model, empty DRAM). Its calls may come from any
// thread. Both backends: hardReset() takes 2 device cycles (the reset pulse); the counters
// restart after it, cycle() does not.
std::unique_ptr<IDeviceBackend> createBackend(BackendKind kind, const hw::HwConfig& config,
                                              const BackendOptions& options = {});

}  // namespace weft::sim
