// ANeuralNetworksEvent: signalled when an asynchronous execution completes, or when a client's
// sync fence file descriptor becomes readable.
#pragma once

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>

namespace weft::runtime {

// The outcome of one asynchronous computation, shared by the execution that runs it and the
// event the client waits on (either may be freed first).
class Completion {
 public:
  void signal(int resultCode);
  int wait() const;
  // The result code once signalled.
  std::optional<int> poll() const;

 private:
  mutable std::mutex mutex_;
  mutable std::condition_variable signalled_;
  std::optional<int> result_;
};

class Event {
 public:
  virtual ~Event() = default;
  // Blocks until signalled; the result code of what was waited for.
  virtual int wait() const = 0;
  // The result code if already signalled.
  virtual std::optional<int> poll() const = 0;
  // A new descriptor of the event's sync fence, or -1 when it has none.
  virtual int duplicateSyncFenceFd() const { return -1; }
  // A function that waits like wait() and stays valid after this event is freed (an execution
  // that depends on the event may outlive it).
  virtual std::function<int()> makeWaiter() const = 0;
};

class ExecutionEvent final : public Event {
 public:
  explicit ExecutionEvent(std::shared_ptr<const Completion> completion) : completion_(std::move(completion)) {}
  int wait() const override { return completion_->wait(); }
  std::optional<int> poll() const override { return completion_->poll(); }
  std::function<int()> makeWaiter() const override {
    return [completion = completion_] { return completion->wait(); };
  }

 private:
  std::shared_ptr<const Completion> completion_;
};

// Owns a duplicate of the client's descriptor. Signalled (NO_ERROR) when it polls readable,
// failed (OP_FAILED) when it reports an error or hang-up without data.
class SyncFenceEvent final : public Event {
 public:
  explicit SyncFenceEvent(int ownedFd) : fd_(ownedFd) {}
  ~SyncFenceEvent() override;
  int wait() const override;
  std::optional<int> poll() const override;
  int duplicateSyncFenceFd() const override;
  std::function<int()> makeWaiter() const override;

 private:
  std::optional<int> pollFor(int timeoutMs) const;
  int fd_;
};

}  // namespace weft::runtime
