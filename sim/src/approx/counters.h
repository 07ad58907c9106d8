// Performance counters evaluated lazily. The RTL adds each cycle's events at the clock edge,
// so a counter read in cycle t holds what happened in cycles [0, t). The model records events
// and intervals with the cycles they belong to (which may be ahead of the model's clock when a
// unit plans its timeline) and answers value(t) for that half-open range.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <utility>

namespace weft::sim::approx {

// Events of a cycle (bytes, requests, retired commands).
class EventCounter {
 public:
  // Adds n at cycle `cycle`; `now` is the model's clock (later reads are at or after it).
  void add(uint64_t cycle, uint64_t n, uint64_t now) {
    while (!recent_.empty() && recent_.front().first < now) {
      folded_ += recent_.front().second;
      recent_.pop_front();
    }
    if (cycle < now) {
      folded_ += n;
    } else {
      recent_.emplace_back(cycle, n);
    }
  }
  uint64_t value(uint64_t t) const {
    uint64_t v = folded_;
    for (const auto& [c, n] : recent_) {
      if (c < t) v += n;
    }
    return v;
  }

 private:
  uint64_t folded_ = 0;
  std::deque<std::pair<uint64_t, uint64_t>> recent_;  // adds at cycles >= the last fold point
};

// Cycles inside intervals [a, b) that come in order and do not overlap (array streaming,
// stalls); an interval may end in the future.
class IntervalCounter {
 public:
  void add(uint64_t a, uint64_t b, uint64_t now) {
    while (!pending_.empty() && pending_.front().second <= now) {
      folded_ += pending_.front().second - pending_.front().first;
      pending_.pop_front();
    }
    if (b > a) pending_.emplace_back(a, b);
  }
  uint64_t value(uint64_t t) const {
    uint64_t v = folded_;
    for (const auto& [a, b] : pending_) {
      if (t > a) v += std::min(t, b) - a;
    }
    return v;
  }
  // Drops what would be counted from cycle t on (a soft reset cut the interval short).
  void cut(uint64_t t) {
    while (!pending_.empty() && pending_.back().first >= t) pending_.pop_back();
    if (!pending_.empty()) pending_.back().second = std::min(pending_.back().second, t);
  }

 private:
  uint64_t folded_ = 0;
  std::deque<std::pair<uint64_t, uint64_t>> pending_;
};

// Cycles with at least one of a unit's commands in flight (or the device busy): each
// begin(a) counts from cycle a, each end(b) stops one of them before cycle b.
class ActivityCounter {
 public:
  void begin(uint64_t a) {
    if (inFlight_++ == 0) since_ = a;
  }
  void end(uint64_t b) {
    if (inFlight_ > 0 && --inFlight_ == 0) total_ += b > since_ ? b - since_ : 0;
  }
  // Ends every command at cycle b (soft reset).
  void endAll(uint64_t b) {
    if (inFlight_ > 0) {
      inFlight_ = 1;
      end(b);
    }
  }
  bool active() const { return inFlight_ > 0; }
  uint64_t value(uint64_t t) const {
    return total_ + (inFlight_ > 0 && t > since_ ? t - since_ : 0);
  }

 private:
  uint64_t total_ = 0;
  uint64_t since_ = 0;
  unsigned inFlight_ = 0;
};

}  // namespace weft::sim::approx
