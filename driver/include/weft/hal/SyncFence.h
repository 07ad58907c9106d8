// Sync fences (as NN HAL's SyncFence): file descriptors that poll readable once signalled, the way
// Android's sync_file does, so that clients can poll(), select() or epoll them and hand them on.
//
// weft makes its own fences from a socket pair: signalling sends one byte, the result code (0 for
// success), from the signaller's end; the fence is the other end. Nobody reads the byte: the state
// is peeked (recv MSG_PEEK), so every duplicate stays readable, like a signalled sync_file. A
// signaller destroyed before signalling closes its end, and the fence reads as failed. A fence
// from a client (ANeuralNetworksEvent_createFromSyncFenceFd) may be any pollable descriptor: it is
// signalled when it polls readable, and failed when it reports an error or hang-up without data.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <memory>
#include <utility>

#include "weft/nn/Result.h"

namespace weft::hal {

class SyncFence {
 public:
  enum class State { kActive, kSignaled, kError };

  // A fence that is always signalled (NN HAL's SyncFence::createAsSignaled).
  SyncFence() = default;
  // Owns `fd` (a descriptor the caller gives up).
  static SyncFence fromOwnedFd(int fd) { return SyncFence(std::make_shared<const Fd>(fd)); }

  bool hasFd() const { return fd_ != nullptr; }
  // The descriptor, or -1 for an always-signalled fence; owned by the fence.
  int fd() const { return fd_ != nullptr ? fd_->value : -1; }
  // A new descriptor of the fence for the caller to own, or -1.
  int duplicate() const { return fd_ != nullptr ? fcntl(fd_->value, F_DUPFD_CLOEXEC, 0) : -1; }

  // The state after waiting at most `timeoutMs` (-1: until signalled).
  State poll(int timeoutMs) const {
    if (fd_ == nullptr) return State::kSignaled;
    pollfd request{fd_->value, POLLIN, 0};
    int ready;
    do {
      ready = ::poll(&request, 1, timeoutMs);
    } while (ready < 0 && errno == EINTR);
    if (ready < 0) return State::kError;
    if (ready == 0) return State::kActive;
    if ((request.revents & POLLIN) == 0) return State::kError;  // error or hang-up without data
    // A fence weft made in this process: what its signaller wrote before signalling is visible
    // from here on (the memory model, and ThreadSanitizer, know nothing of the socket).
    if (signalled_ != nullptr) (void)signalled_->load(std::memory_order_acquire);
    char code = 0;
    const ssize_t peeked = recv(fd_->value, &code, 1, MSG_PEEK | MSG_DONTWAIT);
    if (peeked < 0 && errno == ENOTSOCK) return State::kSignaled;  // a client's eventfd, pipe, sync_file
    if (peeked != 1) return State::kError;                         // weft's signaller went away without signalling
    return code == 0 ? State::kSignaled : State::kError;
  }
  State wait() const { return poll(-1); }

 private:
  struct Fd {
    explicit Fd(int fd) : value(fd) {}
    ~Fd() { close(value); }
    int value;
  };
  friend class FenceSignaller;
  explicit SyncFence(std::shared_ptr<const Fd> fd, std::shared_ptr<const std::atomic<bool>> signalled = nullptr)
      : fd_(std::move(fd)), signalled_(std::move(signalled)) {}
  std::shared_ptr<const Fd> fd_;  // shared: copies of a fence are the same fence
  std::shared_ptr<const std::atomic<bool>> signalled_;  // weft's own fences: set before signalling
};

// The signalling end of a fence weft makes (create()). Copies share the end; signal() once.
class FenceSignaller {
 public:
  // A new active fence and its signaller; OP_FAILED when no descriptor is left.
  static nn::Result<std::pair<SyncFence, FenceSignaller>> create() {
    int ends[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ends) != 0) {
      return NN_ERROR(OP_FAILED) << "cannot create a sync fence (socketpair: errno " << errno << ")";
    }
    shutdown(ends[0], SHUT_WR);  // the fence end only ever reads
    auto signalled = std::make_shared<std::atomic<bool>>(false);
    return std::make_pair(SyncFence(std::make_shared<const SyncFence::Fd>(ends[0]), signalled),
                          FenceSignaller(std::make_shared<const End>(ends[1]), signalled));
  }

  // Makes the fence signalled (NONE) or failed (any other status), for good.
  void signal(nn::ErrorStatus status) const {
    if (end_ == nullptr) return;
    // Codes 1..14 fit a byte; anything else still reads as a failure.
    const char code = status == nn::ErrorStatus::NONE ? 0 : static_cast<char>(status);
    signalled_->store(true, std::memory_order_release);
    ssize_t sent;
    do {
      sent = send(end_->value, &code, 1, MSG_NOSIGNAL);
    } while (sent < 0 && errno == EINTR);
  }

 private:
  struct End {
    explicit End(int fd) : value(fd) {}
    ~End() { close(value); }
    int value;
  };
  FenceSignaller(std::shared_ptr<const End> end, std::shared_ptr<std::atomic<bool>> signalled)
      : end_(std::move(end)), signalled_(std::move(signalled)) {}
  std::shared_ptr<const End> end_;
  std::shared_ptr<std::atomic<bool>> signalled_;
};

}  // namespace weft::hal
