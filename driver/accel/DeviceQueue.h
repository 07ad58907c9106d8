// Submission: the driver's side of the command ring (hw/spec/regs.json).
//
// A program is copied into the ring in DRAM behind the tail, the tail register is written
// (the doorbell), and the driver sleeps until the interrupt. The wait is bounded by a
// watchdog derived from the program; when it expires the device gets a hardware reset, and
// when the controller halts on an error (STATUS.error) a soft reset; either way the execution
// fails with a clear code and the queue is set up again so that the next program runs.
//
// A deadline (NNAPI's execution timeout) bounds the wait in host time as the watchdog bounds it
// in device cycles: the simulation is then advanced in slices of a few milliseconds, and when
// the deadline passes before the interrupt the device gets the watchdog's hard reset and the
// execution fails with MISSED_DEADLINE_TRANSIENT; the queue is set up again, as after the watchdog.
//
// Every register access and interrupt is counted (the modeled interaction time of
// ANEURALNETWORKS_DURATION_IN_DRIVER) and the host time spent inside the backend (the
// simulator) is measured so that it can be excluded from the driver's own time.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "DramAllocator.h"
#include "FencedQueue.h"
#include "weft/nn/Result.h"
#include "weft/accel/AcceleratorDevice.h"
#include "weft/sim/backend.h"

namespace weft::accel {

// What one submission cost and measured.
struct SubmissionReport {
  uint64_t busyCycles = 0;        // BUSY counter delta: the on-hardware cycles
  uint64_t registerAccesses = 0;
  uint64_t interrupts = 0;
  std::chrono::nanoseconds backendTime{0};  // host time inside backend calls
  // Host time in the caller's progress callback (weft's progress display reading snapshot tags):
  // an observer's cost, not the driver's, so the in-driver duration leaves it out.
  std::chrono::nanoseconds observerTime{0};
  // Per-command timelines of the program, in program order, when WEFT_COMMAND_TRACE=1
  // (sim/include/weft/sim/command_events.h; `weft run|layers --trace` sets it); else empty.
  std::vector<sim::CommandEvent> commands;
  std::vector<sim::DramEvent> dram;  // its DRAM requests, likewise
  std::vector<sim::DramCommandEvent> dramCommands;  // a cycle-level DRAM's commands, likewise
};

class DeviceQueue {
 public:
  // Checks the device identity and configuration read back from its registers, reserves the
  // first DRAM bytes and sets the queue up. OP_FAILED when the device is not what the
  // configuration says.
  static nn::Result<std::unique_ptr<DeviceQueue>> create(std::unique_ptr<sim::IDeviceBackend> backend);

  sim::IDeviceBackend& backend() { return *backend_; }
  const hw::HwConfig& config() const { return backend_->config(); }
  const std::shared_ptr<DramAllocator>& allocator() const { return allocator_; }
  // One execution at a time on the device.
  std::mutex& mutex() { return mutex_; }

  // An execution's turn on the device: its place in the line released, mutex() held.
  class ExecutionTurn {
   public:
    ExecutionTurn(DeviceQueue* queue, std::unique_lock<std::mutex> device)
        : queue_(queue), device_(std::move(device)) {}
    ExecutionTurn(ExecutionTurn&& o) noexcept : queue_(o.queue_), device_(std::move(o.device_)) { o.queue_ = nullptr; }
    ExecutionTurn& operator=(ExecutionTurn&&) = delete;
    ~ExecutionTurn();

   private:
    DeviceQueue* queue_;
    std::unique_lock<std::mutex> device_;
  };
  // Executions wait for the device in NNAPI priority order (HIGH, MEDIUM, LOW), equal priorities
  // in arrival order, as on the CPU device; one whose deadline passes while it waits leaves the
  // line with MISSED_DEADLINE_TRANSIENT without running. Compilations and buffer mappings take
  // mutex() directly, between executions.
  nn::Result<ExecutionTurn> waitForTurn(nn::Priority priority, const std::optional<std::chrono::steady_clock::time_point>& deadline);

  // Runs `commands` (32 bytes each, ending with an interrupting barrier). The watchdog fires
  // after `watchdogCycles` device cycles without the interrupt. Caller holds mutex().
  // `onProgress`, when set, is called with the cycles since the doorbell every
  // kProgressIntervalCycles while the program runs (the run is then advanced in such slices,
  // which changes nothing the device does).
  // `deadline`, when set, stops the run as described above.
  using ProgressFn = std::function<void(uint64_t cyclesSinceDoorbell)>;
  using Deadline = std::optional<std::chrono::steady_clock::time_point>;
  nn::Result<SubmissionReport> run(const std::vector<uint8_t>& commands, uint64_t watchdogCycles,
                                   const ProgressFn& onProgress = {}, const Deadline& deadline = std::nullopt);

  // The executions waiting for fences (executeFenced), started by the device's own thread.
  FencedQueue& fenced() { return fenced_; }

  // After a simulator fault escaped an execution: takes mutex() and hard-resets the device.
  void resetAfterFault();

  // Backend calls, metered (register accesses counted, time inside the simulator measured).
  uint32_t readReg(uint32_t addr);
  void writeReg(uint32_t addr, uint32_t value);
  uint64_t readCounter(hw::Counter c);
  // Time spent in metered backend calls since the queue was created.
  std::chrono::nanoseconds backendTime() const { return backendTime_; }
  uint64_t registerAccesses() const { return registerAccesses_; }

 private:
  explicit DeviceQueue(std::unique_ptr<sim::IDeviceBackend> backend);
  nn::Status checkIdentity();
  nn::Status ensureRing(uint64_t commands);
  void setUpQueue();
  // How a wait for the interrupt ended.
  enum class WaitEnd { kInterrupt, kWatchdog, kDeadline };
  WaitEnd waitForInterrupt(uint64_t maxCycles, const ProgressFn& onProgress, const Deadline& deadline);
  void softReset();
  void hardReset();
  // After the controller halted with `code`: which of the n commands from ring index `start`
  // it refused, found with the field rules it enforces (hw::checkCommand, from hw/spec), as
  // " at command i of the program (a WINDOW)"; empty when no command breaks a rule (a token
  // error, say).
  std::string refusedCommand(uint32_t start, uint64_t n, hw::Error code);

  std::unique_ptr<sim::IDeviceBackend> backend_;
  bool recordingCommands_ = false;
  std::shared_ptr<DramAllocator> allocator_;
  std::mutex mutex_;
  // The line of executions waiting for the device: (-priority, arrival), first is next.
  std::mutex lineMutex_;
  std::condition_variable lineChanged_;
  std::set<std::pair<int32_t, uint64_t>> line_;
  uint64_t arrivals_ = 0;
  bool executing_ = false;
  SharedRegion ring_;
  uint32_t ringSize_ = 0;  // commands
  uint32_t tail_ = 0;      // the driver's copy of RING_TAIL (== RING_HEAD between programs)
  std::chrono::nanoseconds backendTime_{0};
  std::chrono::nanoseconds observerTime_{0};  // in progress callbacks (SubmissionReport)
  uint64_t registerAccesses_ = 0;
  uint64_t interrupts_ = 0;
  // Last: destroyed first, its thread joined while everything it may use still exists.
  FencedQueue fenced_;
};

}  // namespace weft::accel
