// A compiled model on one device (as NN HAL IPreparedModel).
#pragma once

#include <algorithm>
#include <array>
#include <mutex>
#include <optional>
#include <chrono>
#include <functional>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

#include "weft/hal/IDevice.h"
#include "weft/hal/SyncFence.h"

namespace weft::hal {

class IBurst;
using SharedBurst = std::shared_ptr<const IBurst>;

// Everything an execution reports beyond NNAPI's outputs and Timing: the per-operation
// breakdown weft's reports are made of. Devices fill what they know.
struct OperationProfile {
  uint32_t operationIndex = 0;     // in the prepared model's main subgraph
  nn::OperationType type = nn::OperationType::ADD;
  uint64_t cycles = 0;             // device cycles (0 on the CPU device)
  uint64_t onHardwareNs = 0;
  uint64_t inDriverNs = 0;
  uint64_t macs = 0;               // useful work: the array's MACs, the vector unit's lane operations
  std::string unit;                // where it ran: "array", "vector" (accelerator) or "" (CPU)
  uint64_t peakOpsPerCycle = 0;    // that unit's peak rate of `macs` (Rows x Cols, or Cols)
  std::string mapping;             // how the compiler mapped it onto the unit (its tiling), "" on the CPU
  uint64_t estimatedCycles = 0;    // the compiler's estimate of `cycles` (its tiling search's timeline), 0 on the CPU
  uint64_t dramReadBytes = 0;
  uint64_t dramWriteBytes = 0;
  std::vector<std::pair<std::string, uint64_t>> counters;  // every hardware counter delta, by name
};
// One command of the device program as the hardware ran it (per-command timelines: only when
// WEFT_COMMAND_TRACE=1, as `weft run|layers --trace` set it). Cycles are the device backend's,
// UINT64_MAX where the step did not happen.
struct CommandProfile {
  uint32_t index = 0;       // in the execution's program
  uint8_t unit = 0;         // hw::Unit
  uint8_t opcode = 0;       // hw::Opcode
  uint64_t decode = 0;      // entered the controller's decode register
  uint64_t dispatch = 0;    // pushed into its unit's command FIFO
  uint64_t start = 0;       // its unit took it from the FIFO (BARRIER: found the machine drained)
  uint64_t complete = 0;    // its unit retired it
  std::array<uint64_t, 4> word{};  // the command as executed (hw::CommandWord)
};
// One DRAM request of the device during the program (recorded with CommandProfile): outstanding
// from the cycle the port accepted it through its last read beat or its write acknowledgement.
struct DramRequestProfile {
  uint64_t issue = 0;
  uint64_t done = 0;
  uint32_t bytes = 0;
  bool write = false;
};
// One command of a cycle-level DRAM during the program (recorded with CommandProfile): its DRAM
// cycle, and the device cycle (a fraction: the DRAM's clock is faster) at which that DRAM cycle
// begins, on the same scale as CommandProfile's cycles.
struct DramCommandProfile {
  uint64_t dramCycle = 0;
  double cycle = 0;
  uint8_t kind = 0;  // sim::dram::CommandRecord::Kind (ACT, PRE, RD, WR, RDA, WRA, REF, REFb)
  uint32_t channel = 0, rank = 0, bankGroup = 0, bank = 0;
  int64_t row = -1;   // ACT: the row opened; a column command: the row accessed; else -1
  uint64_t addr = 0;  // a column command: the transaction's address
};
struct ExecutionProfile {
  std::string device;
  std::string backend;             // "rtl", "approx" or "" (CPU)
  std::vector<OperationProfile> operations;
  double simulatorWallSeconds = 0; // host time spent simulating
  uint64_t simulatedCycles = 0;
  // The parts of the execution's durations (0 where a device has no such part):
  // inDriverNs = driverHostNs + deviceInteractionNs + onHardwareNs, and onHardwareNs covers the
  // operations' onHardwareNs plus overheadCycles (program start and end around them).
  uint64_t onHardwareNs = 0;
  uint64_t inDriverNs = 0;
  uint64_t driverHostNs = 0;         // host time of the driver's own code, simulator excluded
  uint64_t deviceInteractionNs = 0;  // modeled register accesses and interrupt latency
  uint64_t deviceCycles = 0;         // device cycles of the execution
  uint64_t overheadCycles = 0;       // device cycles outside every operation
  uint64_t registerAccesses = 0;
  uint64_t interrupts = 0;
  uint64_t hostCopyBytes = 0;        // bytes copied between host memory and device DRAM
  std::vector<CommandProfile> commands;  // per-command timelines (see CommandProfile), else empty
  std::vector<DramRequestProfile> dramRequests;  // likewise, by issue cycle
  std::vector<DramCommandProfile> dramCommands;  // likewise (a cycle-level DRAM only), by cycle
};

struct ExecutionResult {
  std::vector<nn::OutputShape> outputShapes;
  nn::Timing timing;
  ExecutionProfile profile;
};

// What a fenced execution reports once its fence has signalled (NN HAL's ExecuteFencedInfoCallback):
// the durations counted from the executeFenced call ("launched") and from when every fence it
// waited for had signalled ("fenced"), as NNAPI's DURATION_* and FENCED_DURATION_* define them,
// and weft's profile. The execution's error when it failed.
struct FencedExecutionInfo {
  nn::Timing timingLaunched;
  nn::Timing timingFenced;
  ExecutionProfile profile;
};
using ExecuteFencedInfoCallback = std::function<Result<FencedExecutionInfo>()>;
struct FencedExecution {
  SyncFence fence;  // signalled when the execution has completed, failed when it failed
  ExecuteFencedInfoCallback info;
};

class IPreparedModel {
 public:
  virtual ~IPreparedModel() = default;

  // Runs one request synchronously. When an output buffer is too small for its actual shape,
  // the call succeeds with that output's OutputShape::isSufficient = false (and the full
  // dimensions); the runtime turns that into ANEURALNETWORKS_OUTPUT_INSUFFICIENT_SIZE.
  virtual Result<ExecutionResult> execute(const nn::Request& request, nn::MeasureTiming measure,
                                          const OptionalTimePoint& deadline,
                                          const OptionalDuration& loopTimeoutDuration) const = 0;

  virtual Result<SharedBurst> configureExecutionBurst() const = 0;

  // Starts `request` once every fence of `waitFor` has signalled and returns at once (NN HAL's
  // executeFenced). The outputs must be fully specified. `timeoutDurationAfterFence` bounds the
  // execution from when the fences signalled; a failed fence fails the execution. The caller keeps
  // this prepared model and the request's buffers alive until the returned fence has signalled.
  //
  // The default runs execute() on a thread of its own after waiting for the fences; a device with
  // a queue of its own (hardware that waits for fences itself) overrides it, with
  // makeFencedExecution below doing the rest.
  virtual Result<FencedExecution> executeFenced(const nn::Request& request, const std::vector<SyncFence>& waitFor,
                                                nn::MeasureTiming measure, const OptionalTimePoint& deadline,
                                                const OptionalDuration& loopTimeoutDuration,
                                                const OptionalDuration& timeoutDurationAfterFence) const;
};

// What every fenced execution shares, whoever waits for its fences: the fence it returns and the
// info callback, and `start`, which runs `model.execute` once the fences have been waited for
// (true: all signalled; false: one failed, and the execution fails without running), fills what
// the callback returns, and signals the fence. `start` is called once, on any thread; the timing
// it reports counts the launched durations from this call and the fenced ones from `start`.
struct PendingFencedExecution {
  FencedExecution execution;
  std::function<void(bool fencesSignalled)> start;
};
inline Result<PendingFencedExecution> makeFencedExecution(const IPreparedModel& model, const nn::Request& request,
                                                          nn::MeasureTiming measure, const OptionalTimePoint& deadline,
                                                          const OptionalDuration& loopTimeoutDuration,
                                                          const OptionalDuration& timeoutDurationAfterFence) {
  using Clock = std::chrono::steady_clock;
  auto created = FenceSignaller::create();
  if (!created.ok()) return created.error();
  const SyncFence fence = created->first;
  const FenceSignaller signaller = created->second;
  // Filled by `start` before it signals; read by the callback after the fence signalled (the
  // mutex orders the two for the memory model, which knows nothing of sockets).
  struct Outcome {
    std::mutex mutex;
    std::optional<Result<FencedExecutionInfo>> value;
    void set(Result<FencedExecutionInfo> result) {
      std::lock_guard<std::mutex> lock(mutex);
      value = std::move(result);
    }
  };
  auto outcome = std::make_shared<Outcome>();
  const Clock::time_point launched = Clock::now();
  auto start = [&model, request, measure, deadline, loopTimeoutDuration, timeoutDurationAfterFence, launched,
                signaller, outcome](bool fencesSignalled) {
    if (!fencesSignalled) {
      outcome->set(NN_ERROR(OP_FAILED) << "a fence the execution waited for failed");
      signaller.signal(nn::ErrorStatus::OP_FAILED);
      return;
    }
    const Clock::time_point fenced = Clock::now();
    OptionalTimePoint effective = deadline;
    if (timeoutDurationAfterFence.has_value()) {
      const TimePoint afterFence = fenced + *timeoutDurationAfterFence;
      effective = effective.has_value() ? std::min(*effective, afterFence) : afterFence;
    }
    Result<ExecutionResult> result = model.execute(request, measure, effective, loopTimeoutDuration);
    if (!result.ok()) {
      const nn::ErrorStatus code = result.error().code;
      outcome->set(result.error());
      signaller.signal(code);
      return;
    }
    FencedExecutionInfo info;
    info.timingFenced = result->timing;
    info.timingLaunched = result->timing;
    if (info.timingLaunched.timeInDriverNs != nn::kNoTiming) {
      // Launched in-driver time also covers the wait for the fences.
      info.timingLaunched.timeInDriverNs +=
          static_cast<uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(fenced - launched).count());
    }
    info.profile = std::move(result->profile);
    outcome->set(std::move(info));
    signaller.signal(nn::ErrorStatus::NONE);  // last: `start` touches nothing after it
  };
  FencedExecution execution{fence, [fence, outcome]() -> Result<FencedExecutionInfo> {
                              fence.wait();
                              std::lock_guard<std::mutex> lock(outcome->mutex);
                              if (!outcome->value.has_value()) {
                                return NN_ERROR(OP_FAILED) << "the fenced execution ended without a result";
                              }
                              return *outcome->value;
                            }};
  return PendingFencedExecution{std::move(execution), std::move(start)};
}

inline Result<FencedExecution> IPreparedModel::executeFenced(const nn::Request& request,
                                                             const std::vector<SyncFence>& waitFor,
                                                             nn::MeasureTiming measure,
                                                             const OptionalTimePoint& deadline,
                                                             const OptionalDuration& loopTimeoutDuration,
                                                             const OptionalDuration& timeoutDurationAfterFence) const {
  auto pending = makeFencedExecution(*this, request, measure, deadline, loopTimeoutDuration, timeoutDurationAfterFence);
  if (!pending.ok()) return pending.error();
  std::thread([waitFor, start = std::move(pending->start)] {
    for (const SyncFence& dependency : waitFor) {
      if (dependency.wait() != SyncFence::State::kSignaled) return start(false);
    }
    start(true);
  }).detach();
  return std::move(pending->execution);
}

}  // namespace weft::hal
