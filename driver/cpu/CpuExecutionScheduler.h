// The order in which the CPU device runs the executions that wait for it, and what each
// execution preference means there:
//  - At most `slots` executions run at once, each on its caller's thread (the device makes one
//    slot per core). A waiting execution of higher NNAPI priority takes the next free slot before
//    any of lower priority; equal priorities go in arrival order.
//  - LOW_POWER executions do not take slots: they run one at a time on a worker thread of the
//    device at a lower OS scheduling priority (nice +10), so they use one core and yield it.
//  - An execution whose deadline passes while it waits is not run: MISSED_DEADLINE_TRANSIENT.
// (SUSTAINED_SPEED and FAST_SINGLE_ANSWER differ in preparation, CpuPreparedModel.h.)
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>

#include "weft/hal/IPreparedModel.h"

namespace weft::cpu {

class CpuExecutionScheduler {
 public:
  using Work = std::function<nn::Result<hal::ExecutionResult>()>;
  inline static constexpr int kLowPowerNiceness = 10;

  explicit CpuExecutionScheduler(size_t slots);
  ~CpuExecutionScheduler();
  CpuExecutionScheduler(const CpuExecutionScheduler&) = delete;
  CpuExecutionScheduler& operator=(const CpuExecutionScheduler&) = delete;

  // Runs `work` when its turn comes (see above) and returns its result.
  nn::Result<hal::ExecutionResult> run(nn::Priority priority, bool lowPower, const hal::OptionalTimePoint& deadline,
                                       const Work& work);

  // For tests: executions waiting for a slot, and waiting for the low-power worker.
  size_t waitingForSlot() const;
  size_t waitingForLowPower() const;

 private:
  struct Waiter {
    int priority;
    uint64_t arrival;
    const Work* work = nullptr;  // low-power jobs
    std::optional<nn::Result<hal::ExecutionResult>> result;
  };
  // Whether `waiter` goes before every other entry of `queue`.
  static bool isFirst(const std::list<Waiter>& queue, const Waiter& waiter);
  nn::Result<hal::ExecutionResult> runInSlot(nn::Priority priority, const hal::OptionalTimePoint& deadline,
                                             const Work& work);
  nn::Result<hal::ExecutionResult> runLowPower(nn::Priority priority, const hal::OptionalTimePoint& deadline,
                                               const Work& work);
  void lowPowerLoop();

  mutable std::mutex mutex_;
  std::condition_variable changed_;
  size_t freeSlots_;
  uint64_t arrivals_ = 0;
  std::list<Waiter> slotQueue_;
  std::list<Waiter> lowPowerQueue_;
  bool stopping_ = false;
  std::thread lowPowerWorker_;  // started with the first low-power execution
};

}  // namespace weft::cpu
