// The accelerator's fenced executions (IPreparedModel::executeFenced, NNAPI's
// startComputeWithDependencies). Hardware with a queue of its own takes a job together with the
// fences it must wait for and starts it itself once they have signalled; the driver does not park
// a thread per job. This queue does the same for the simulated device: one thread per device
// watches the fences of every pending job at once (poll() on their descriptors) and starts the
// jobs whose fences have all signalled, in NNAPI priority order (HIGH first), then in order of
// submission. A job whose fence fails is failed without running. No job waits behind another's
// fences: a job whose fences signal late never holds back one that is ready.
//
// A started job runs on the queue's thread (its execution still takes its turn on the device
// like any other, DeviceQueue::waitForTurn), so the queue starts one job at a time. Destroying
// the queue fails the jobs still waiting and joins the thread; the thread is started by the
// first submission.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "weft/hal/SyncFence.h"
#include "weft/nn/Types.h"

namespace weft::accel {

class FencedQueue {
 public:
  // Starts (or fails) a job: called once, on the queue's thread, with whether every fence signalled.
  using Start = std::function<void(bool fencesSignalled)>;

  FencedQueue();
  ~FencedQueue();
  FencedQueue(const FencedQueue&) = delete;
  FencedQueue& operator=(const FencedQueue&) = delete;

  // OP_FAILED when the queue cannot wake its thread (no descriptor left); nothing is queued then.
  nn::Status submit(std::vector<hal::SyncFence> waitFor, nn::Priority priority, Start start);

  // Jobs submitted and not yet started or failed.
  size_t waiting() const;

 private:
  struct Job {
    std::vector<hal::SyncFence> waitFor;
    int32_t priority = 0;
    uint64_t order = 0;
    Start start;
  };
  void loop();
  void wake() const;

  int wakeFd_ = -1;  // an eventfd: a new job, or the queue closing
  mutable std::mutex mutex_;
  std::vector<Job> jobs_;
  uint64_t submitted_ = 0;
  bool closing_ = false;
  std::thread thread_;
};

}  // namespace weft::accel
