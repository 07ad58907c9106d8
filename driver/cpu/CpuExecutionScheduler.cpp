#include "CpuExecutionScheduler.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>

namespace weft::cpu {
namespace {

nn::Error missedWhileWaiting() {
  return NN_ERROR(MISSED_DEADLINE_TRANSIENT) << "weft-cpu: the deadline passed while the execution waited for the "
                                             << "device";
}

// Waits on `changed` until `ready()` or the deadline; false when the deadline came first.
template <typename Ready>
bool waitUntil(std::condition_variable& changed, std::unique_lock<std::mutex>& lock,
               const hal::OptionalTimePoint& deadline, Ready ready) {
  if (!deadline.has_value()) {
    changed.wait(lock, ready);
    return true;
  }
  return changed.wait_until(lock, *deadline, ready);
}

}  // namespace

CpuExecutionScheduler::CpuExecutionScheduler(size_t slots) : freeSlots_(std::max<size_t>(slots, 1)) {}

CpuExecutionScheduler::~CpuExecutionScheduler() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  changed_.notify_all();
  if (lowPowerWorker_.joinable()) lowPowerWorker_.join();
}

bool CpuExecutionScheduler::isFirst(const std::list<Waiter>& queue, const Waiter& waiter) {
  return std::none_of(queue.begin(), queue.end(), [&](const Waiter& other) {
    return other.priority > waiter.priority || (other.priority == waiter.priority && other.arrival < waiter.arrival);
  });
}

nn::Result<hal::ExecutionResult> CpuExecutionScheduler::run(nn::Priority priority, bool lowPower,
                                                            const hal::OptionalTimePoint& deadline, const Work& work) {
  return lowPower ? runLowPower(priority, deadline, work) : runInSlot(priority, deadline, work);
}

nn::Result<hal::ExecutionResult> CpuExecutionScheduler::runInSlot(nn::Priority priority,
                                                                  const hal::OptionalTimePoint& deadline,
                                                                  const Work& work) {
  {
    std::unique_lock<std::mutex> lock(mutex_);
    auto self = slotQueue_.insert(slotQueue_.end(), Waiter{static_cast<int>(priority), arrivals_++, nullptr, std::nullopt});
    const bool admitted =
        waitUntil(changed_, lock, deadline, [&] { return freeSlots_ > 0 && isFirst(slotQueue_, *self); });
    slotQueue_.erase(self);
    if (!admitted) {
      changed_.notify_all();  // the next in line may be first now
      return missedWhileWaiting();
    }
    --freeSlots_;
  }
  nn::Result<hal::ExecutionResult> result = work();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    ++freeSlots_;
  }
  changed_.notify_all();
  return result;
}

nn::Result<hal::ExecutionResult> CpuExecutionScheduler::runLowPower(nn::Priority priority,
                                                                    const hal::OptionalTimePoint& deadline,
                                                                    const Work& work) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (!lowPowerWorker_.joinable()) lowPowerWorker_ = std::thread([this] { lowPowerLoop(); });
  auto self = lowPowerQueue_.insert(lowPowerQueue_.end(), Waiter{static_cast<int>(priority), arrivals_++, &work, std::nullopt});
  changed_.notify_all();
  // Until the worker has finished the job; a job still queued at the deadline is dropped (one
  // already running finishes: the work checks the deadline itself).
  const bool done = waitUntil(changed_, lock, deadline, [&] { return self->result.has_value(); });
  if (!done && self->work != nullptr) {
    lowPowerQueue_.erase(self);
    return missedWhileWaiting();
  }
  changed_.wait(lock, [&] { return self->result.has_value(); });
  nn::Result<hal::ExecutionResult> result = std::move(*self->result);
  lowPowerQueue_.erase(self);
  return result;
}

void CpuExecutionScheduler::lowPowerLoop() {
  // Only this thread: Linux applies setpriority to a thread id alone.
  setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), kLowPowerNiceness);
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    auto next = lowPowerQueue_.end();
    changed_.wait(lock, [&] {
      next = std::find_if(lowPowerQueue_.begin(), lowPowerQueue_.end(), [&](const Waiter& w) {
        return w.work != nullptr && std::none_of(lowPowerQueue_.begin(), lowPowerQueue_.end(), [&](const Waiter& o) {
                 return o.work != nullptr &&
                        (o.priority > w.priority || (o.priority == w.priority && o.arrival < w.arrival));
               });
      });
      return stopping_ || next != lowPowerQueue_.end();
    });
    if (stopping_) return;
    const Work* work = next->work;
    next->work = nullptr;  // taken: its caller now waits for the result
    lock.unlock();
    nn::Result<hal::ExecutionResult> result = (*work)();
    lock.lock();
    next->result = std::move(result);
    changed_.notify_all();
  }
}

size_t CpuExecutionScheduler::waitingForSlot() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return slotQueue_.size();
}

size_t CpuExecutionScheduler::waitingForLowPower() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return static_cast<size_t>(
      std::count_if(lowPowerQueue_.begin(), lowPowerQueue_.end(), [](const Waiter& w) { return w.work != nullptr; }));
}

}  // namespace weft::cpu
