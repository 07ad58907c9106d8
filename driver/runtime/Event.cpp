#include "Event.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>

#include "android/NeuralNetworksTypes.h"

namespace weft::runtime {

void Completion::signal(int resultCode) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    result_ = resultCode;
  }
  signalled_.notify_all();
}

int Completion::wait() const {
  std::unique_lock<std::mutex> lock(mutex_);
  signalled_.wait(lock, [this] { return result_.has_value(); });
  return *result_;
}

std::optional<int> Completion::poll() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return result_;
}

SyncFenceEvent::~SyncFenceEvent() { close(fd_); }

std::optional<int> SyncFenceEvent::pollFor(int timeoutMs) const {
  pollfd request{fd_, POLLIN, 0};
  while (true) {
    const int n = ::poll(&request, 1, timeoutMs);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return ANEURALNETWORKS_OP_FAILED;
    if (n == 0) return std::nullopt;
    if ((request.revents & POLLIN) != 0) return ANEURALNETWORKS_NO_ERROR;
    return ANEURALNETWORKS_OP_FAILED;  // POLLERR, POLLHUP or POLLNVAL without data
  }
}

int SyncFenceEvent::wait() const { return *pollFor(-1); }

std::optional<int> SyncFenceEvent::poll() const { return pollFor(0); }

int SyncFenceEvent::duplicateSyncFenceFd() const { return dup(fd_); }

std::function<int()> SyncFenceEvent::makeWaiter() const {
  // The waiter owns its own event on a duplicate of the descriptor.
  const int duplicate = dup(fd_);
  if (duplicate < 0) return [] { return static_cast<int>(ANEURALNETWORKS_OP_FAILED); };
  auto owned = std::make_shared<SyncFenceEvent>(duplicate);
  return [owned] { return owned->wait(); };
}

}  // namespace weft::runtime
