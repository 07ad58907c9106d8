// The bounded queues between agents, with the RTL's registered semantics: an entry pushed in
// cycle t is visible to the consumer from its readyAt (t + 1), and a slot popped in cycle t is
// free for the producer from t + 1. Each queue has one producer and one consumer, each acting
// at most once a cycle on it, which is what makes the one-cycle bookkeeping below exact.
#pragma once

#include <cstdint>
#include <deque>
#include <limits>

namespace weft::sim::approx {

inline constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();

template <typename T>  // T has a uint64_t readyAt
class TimedQueue {
 public:
  explicit TimedQueue(unsigned depth = 1) : depth_(depth) {}

  bool empty() const { return q_.empty(); }
  size_t size() const { return q_.size(); }
  T& front() { return q_.front(); }
  const T& front() const { return q_.front(); }
  T& back() { return q_.back(); }
  T& at(size_t i) { return q_[i]; }
  const T& at(size_t i) const { return q_[i]; }
  void push(const T& v) { q_.push_back(v); }
  void pop(uint64_t t) {
    q_.pop_front();
    lastPop_ = t;
  }
  void clear() { q_.clear(); }

  // The front's visibility to the consumer: its readyAt, and after the previous pop.
  uint64_t frontVisibleAt() const {
    return q_.empty() ? kNever : std::max(q_.front().readyAt, lastPop_ == kNever ? 0 : lastPop_ + 1);
  }
  // Slots taken as the producer sees them in cycle t (a pop in cycle t frees its slot later).
  size_t occupancy(uint64_t t) const { return q_.size() + (lastPop_ == t ? 1 : 0); }
  // The first cycle >= t the producer finds a free slot, with no further pops: when the
  // last pop made the room, from the cycle after it.
  uint64_t spaceFrom(uint64_t t) const {
    if (q_.size() >= depth_) return kNever;
    if (q_.size() + 1 >= depth_ && lastPop_ != kNever && lastPop_ >= t) return lastPop_ + 1;
    return t;
  }
  // The first cycle >= t the queue is empty as the consumer's side registers it.
  uint64_t emptyFrom(uint64_t t) const {
    if (!q_.empty()) return kNever;
    return lastPop_ != kNever && lastPop_ >= t ? lastPop_ + 1 : t;
  }
  unsigned depth() const { return depth_; }

 private:
  unsigned depth_;
  std::deque<T> q_;
  uint64_t lastPop_ = kNever;
};

// A dependency-token queue (weft_tokens): a producer reserves a slot when a command that will
// push starts and fills it when the command completes; the consumer pops when a command that
// waits starts. Entries are the cycles from which the tokens can be popped (kNever while
// reserved).
class TokenQueue {
 public:
  struct Token {
    uint64_t readyAt;
  };
  explicit TokenQueue(unsigned depth = 16) : q_(depth) {}

  void reserve() { q_.push({kNever}); }
  // The oldest reservation completes at cycle t: its token can be popped from t + 1.
  void fill(uint64_t t) {
    for (size_t i = 0; i < q_.size(); ++i) {
      if (q_.at(i).readyAt == kNever) {
        q_.at(i).readyAt = t + 1;
        return;
      }
    }
  }
  // The cycle from which the consumer can pop (kNever: no token pushed or announced yet).
  uint64_t availableFrom() const { return q_.empty() ? kNever : q_.front().readyAt; }
  void pop(uint64_t t) {
    if (q_.occupancy(t) >= q_.depth()) spaceSince_ = t + 1;
    q_.pop(t);
  }
  // The first cycle >= t a producer may reserve.
  uint64_t spaceFrom(uint64_t t) const { return q_.spaceFrom(t); }
  // When the queue last went from full to not full (for the token-stall count).
  uint64_t spaceSince() const { return spaceSince_; }
  void clear() {
    q_.clear();
    spaceSince_ = 0;
  }
  size_t size() const { return q_.size(); }

 private:
  TimedQueue<Token> q_;
  uint64_t spaceSince_ = 0;
};

}  // namespace weft::sim::approx
