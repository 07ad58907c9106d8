#include "FencedQueue.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <utility>

namespace weft::accel {

FencedQueue::FencedQueue() : wakeFd_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {}

FencedQueue::~FencedQueue() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    closing_ = true;
  }
  wake();
  if (thread_.joinable()) thread_.join();
  // Whatever still waits fails: its fence must signal (as failed) rather than never.
  for (Job& job : jobs_) job.start(false);
  if (wakeFd_ >= 0) close(wakeFd_);
}

nn::Status FencedQueue::submit(std::vector<hal::SyncFence> waitFor, nn::Priority priority, Start start) {
  if (wakeFd_ < 0) return NN_ERROR(OP_FAILED) << "the fenced queue has no wake-up descriptor (eventfd failed)";
  {
    std::lock_guard<std::mutex> lock(mutex_);
    jobs_.push_back(Job{std::move(waitFor), static_cast<int32_t>(priority), submitted_++, std::move(start)});
    if (!thread_.joinable()) thread_ = std::thread([this] { loop(); });
  }
  wake();
  return {};
}

size_t FencedQueue::waiting() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return jobs_.size();
}

void FencedQueue::wake() const {
  const uint64_t one = 1;
  ssize_t written;
  do {
    written = write(wakeFd_, &one, sizeof one);
  } while (written < 0 && errno == EINTR);
}

void FencedQueue::loop() {
  using State = hal::SyncFence::State;
  for (;;) {
    std::vector<pollfd> watched{{wakeFd_, POLLIN, 0}};
    Start next;
    bool signalled = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (closing_) return;
      // Each job's first fence that has not signalled yet (dropping those that have), or a failure.
      auto best = jobs_.end();
      for (auto job = jobs_.begin(); job != jobs_.end(); ++job) {
        State state = State::kSignaled;
        while (!job->waitFor.empty()) {
          state = job->waitFor.front().poll(0);
          if (state != State::kSignaled) break;
          job->waitFor.erase(job->waitFor.begin());
        }
        if (state == State::kError) {  // fails at once, whatever its priority
          best = job;
          break;
        }
        if (state == State::kActive) {
          watched.push_back({job->waitFor.front().fd(), POLLIN, 0});
          continue;
        }
        if (best == jobs_.end() || job->priority > best->priority ||
            (job->priority == best->priority && job->order < best->order)) {
          best = job;
        }
      }
      if (best != jobs_.end()) {
        signalled = best->waitFor.empty();
        next = std::move(best->start);
        jobs_.erase(best);
      }
    }
    if (next) {
      next(signalled);
      continue;
    }
    int ready;
    do {
      ready = ::poll(watched.data(), watched.size(), -1);
    } while (ready < 0 && errno == EINTR);
    if (watched[0].revents & POLLIN) {
      uint64_t count;
      while (read(wakeFd_, &count, sizeof count) > 0) {
      }
    }
  }
}

}  // namespace weft::accel
