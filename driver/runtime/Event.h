// ANeuralNetworksEvent: signalled when an asynchronous execution completes, or when a client's
// sync fence file descriptor becomes readable. Every event has a sync fence (weft/hal/SyncFence.h)
// that signals with it, which is how computations that depend on it wait; only the events of
// startComputeWithDependencies and of createFromSyncFenceFd show theirs to the client
// (ANeuralNetworksEvent_getSyncFenceFd), as in Android.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>

#include "weft/hal/SyncFence.h"

namespace weft::runtime {

// The outcome of one asynchronous computation, shared by the execution that runs it and the
// event the client waits on (either may be freed first).
class Completion {
 public:
  // OP_FAILED when the process has no descriptor left for the fence.
  static nn::Result<std::shared_ptr<Completion>> create();

  // Records the result code and signals the fence (failed for any code but NO_ERROR). Once.
  void signal(int resultCode);
  int wait() const;
  // The result code once signalled.
  std::optional<int> poll() const;
  const hal::SyncFence& fence() const { return fence_; }

 private:
  Completion(hal::SyncFence fence, hal::FenceSignaller signaller)
      : fence_(std::move(fence)), signaller_(std::move(signaller)) {}

  mutable std::mutex mutex_;
  mutable std::condition_variable signalled_;
  std::optional<int> result_;
  hal::SyncFence fence_;
  hal::FenceSignaller signaller_;
};

class Event {
 public:
  virtual ~Event() = default;
  // Blocks until signalled; the result code of what was waited for.
  virtual int wait() const = 0;
  // The result code if already signalled.
  virtual std::optional<int> poll() const = 0;
  // A fence that signals with the event (copies stay valid after the event is freed).
  virtual hal::SyncFence fence() const = 0;
  // Whether the client may have the fence (ANeuralNetworksEvent_getSyncFenceFd).
  virtual bool showsFence() const = 0;
};

// The event of startCompute (fence hidden) or startComputeWithDependencies (fence shown).
class ExecutionEvent final : public Event {
 public:
  ExecutionEvent(std::shared_ptr<const Completion> completion, bool showsFence)
      : completion_(std::move(completion)), showsFence_(showsFence) {}
  int wait() const override { return completion_->wait(); }
  std::optional<int> poll() const override { return completion_->poll(); }
  hal::SyncFence fence() const override { return completion_->fence(); }
  bool showsFence() const override { return showsFence_; }

 private:
  std::shared_ptr<const Completion> completion_;
  bool showsFence_;
};

// The event of a client's descriptor (owns a duplicate of it): signalled (NO_ERROR) when it polls
// readable, failed (OP_FAILED) when it reports an error or hang-up without data.
class SyncFenceEvent final : public Event {
 public:
  explicit SyncFenceEvent(hal::SyncFence fence) : fence_(std::move(fence)) {}
  int wait() const override;
  std::optional<int> poll() const override;
  hal::SyncFence fence() const override { return fence_; }
  bool showsFence() const override { return true; }

 private:
  hal::SyncFence fence_;
};

}  // namespace weft::runtime
