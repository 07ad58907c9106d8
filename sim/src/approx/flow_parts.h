// Building blocks of the approx engine (engine.h): a fixed ring, the dependency-token queue in
// dataflow form, and counters that accept contributions ahead of the model's clock.
//
// The engine computes an event as soon as everything it depends on is known, which may be ahead
// of the DRAM channel's frontier, so these structures record times rather than "the current
// state": a counter read at cycle t counts what happened before t, whatever was recorded later.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "approx/queues.h"  // kNever

namespace weft::sim::approx {

// A FIFO over a power-of-two ring; callers keep size() within the capacity they asked for.
template <typename T>
class Ring {
 public:
  explicit Ring(size_t capacity = 1) { reset(capacity); }
  void reset(size_t capacity) {
    size_t c = 1;
    while (c < capacity) c <<= 1;
    buf_.assign(c, T{});
    mask_ = c - 1;
    head_ = tail_ = 0;
  }
  bool empty() const { return head_ == tail_; }
  size_t size() const { return tail_ - head_; }
  size_t capacity() const { return buf_.size(); }
  T& front() { return buf_[head_ & mask_]; }
  const T& front() const { return buf_[head_ & mask_]; }
  T& back() { return buf_[(tail_ - 1) & mask_]; }
  const T& back() const { return buf_[(tail_ - 1) & mask_]; }
  T& at(size_t i) { return buf_[(head_ + i) & mask_]; }  // i-th from the front
  const T& at(size_t i) const { return buf_[(head_ + i) & mask_]; }
  T& push() { return buf_[tail_++ & mask_]; }
  void pop() { ++head_; }
  void popBack() { --tail_; }
  void clear() { head_ = tail_ = 0; }

 private:
  std::vector<T> buf_;
  size_t mask_ = 0, head_ = 0, tail_ = 0;
};

// One token queue of weft_tokens between a producer and a consumer unit. The producer's k-th
// reservation (at the start of a command that signals) becomes a token when that command
// completes; the consumer's j-th pop (at the start of a command that waits) takes token j.
// Registered semantics, as rtl/README.md: a token pushed at completion c can be popped from
// c + 1; a slot popped at p can be reserved from p + 1.
class TokenLine {
 public:
  void init(unsigned depth, bool producerFirst) {
    depth_ = depth;
    producerFirst_ = producerFirst;
    size_t c = 1;
    while (c < depth) c <<= 1;
    readyAt_.assign(c, kNever);
    popTime_.assign(c, 0);
    mask_ = c - 1;
    clear();
  }
  void clear() {
    reserved_ = popped_ = 0;
    spaceSince_ = 0;
    lastReservation_ = 0;
  }

  // Consumer: the next token exists (is reserved) and when it can be popped (kNever until its
  // producer's completion is known).
  bool hasToken() const { return popped_ < reserved_; }
  uint64_t nextReadyAt() const { return hasToken() ? readyAt_[popped_ & mask_] : kNever; }
  void pop(uint64_t t) { popTime_[popped_++ & mask_] = t; }

  // Producer: the cycle from which the next reservation has a slot (kNever while the pop that
  // frees it is not known).
  uint64_t roomFrom() const {
    if (reserved_ < depth_) return 0;
    const uint64_t j = reserved_ - depth_;
    return j < popped_ ? popTime_[j & mask_] + 1 : kNever;
  }
  // The cycle the queue last went from full to not full, as the producer's next reservation
  // sees it (weft_tokens' view, for the token-stall counter). Pop k - depth is the only one that
  // can end a full spell between reservations k - 1 and k: the queue was full at it when
  // reservation k - 1 came before it.
  uint64_t spaceSince() const {
    if (reserved_ >= depth_ && reserved_ - depth_ < popped_) {
      const uint64_t p = popTime_[(reserved_ - depth_) & mask_];
      if (lastReservation_ < p || (lastReservation_ == p && producerFirst_)) return p + 1;
    }
    return spaceSince_;
  }
  uint64_t reserve(uint64_t t) {
    spaceSince_ = spaceSince();
    readyAt_[reserved_ & mask_] = kNever;
    lastReservation_ = t;
    return reserved_++;
  }
  void fill(uint64_t reservation, uint64_t readyAt) { readyAt_[reservation & mask_] = readyAt; }

 private:
  unsigned depth_ = 1;
  bool producerFirst_ = true;  // the producer acts before the consumer within a cycle
  std::vector<uint64_t> readyAt_, popTime_;
  size_t mask_ = 0;
  uint64_t reserved_ = 0, popped_ = 0;
  uint64_t spaceSince_ = 0, lastReservation_ = 0;
};

// Cycles in a union of intervals [a, b) added in nondecreasing a (a unit's activity, the
// array's rows, stall spells): value(t) counts those before t.
class IntervalSum {
 public:
  // `safe`: no later read or cut comes before it (the engine's DRAM frontier); what ends there
  // is folded into the total first, which keeps the pending intervals few.
  void add(uint64_t a, uint64_t b, uint64_t safe) {
    if (!open_.empty() && open_.front().b <= safe) fold(safe);
    a = std::max(a, foldedEnd_);  // what is folded is counted already
    if (b <= a) return;
    maxEnd_ = std::max(maxEnd_, b);
    if (!open_.empty() && a <= open_.back().b) {
      open_.back().b = std::max(open_.back().b, b);
      return;
    }
    if (open_.size() == open_.capacity()) grow();
    open_.push() = {a, b};
  }
  // Everything before t is final: moves finished intervals into the total.
  void fold(uint64_t t) {
    while (!open_.empty() && open_.front().b <= t) {
      total_ += open_.front().b - open_.front().a;
      foldedEnd_ = open_.front().b;
      open_.pop();
    }
  }
  // The end of the latest interval (0 if none).
  uint64_t maxEnd() const { return maxEnd_; }
  uint64_t value(uint64_t t) const {
    uint64_t v = total_;
    for (size_t i = 0; i < open_.size(); ++i) {
      const Span& s = open_.at(i);
      if (t > s.a) v += std::min(t, s.b) - s.a;
    }
    return v;
  }
  // Forgets what lies at or after t (a soft reset cut it short).
  void cut(uint64_t t) {
    while (!open_.empty() && open_.back().a >= t) open_.popBack();
    if (!open_.empty()) open_.back().b = std::min(open_.back().b, t);
    maxEnd_ = std::min(maxEnd_, t);
  }
  void reset() {
    total_ = 0;
    foldedEnd_ = maxEnd_ = 0;
    open_.clear();
  }

 private:
  struct Span {
    uint64_t a, b;
  };
  void grow() {
    Ring<Span> bigger(open_.capacity() * 2);
    for (size_t i = 0; i < open_.size(); ++i) bigger.push() = open_.at(i);
    open_ = std::move(bigger);
  }
  uint64_t total_ = 0, foldedEnd_ = 0, maxEnd_ = 0;
  Ring<Span> open_{16};
};

// Events counted at cycles given in nondecreasing order per instance (a unit's completions):
// value(t) counts those before t.
class EventTimes {
 public:
  // `safe` as for IntervalSum::add.
  void add(uint64_t cycle, uint64_t n, uint64_t safe) {
    if (!pending_.empty() && pending_.front().cycle < safe) fold(safe);
    if (!pending_.empty() && pending_.back().cycle == cycle) {
      pending_.back().n += n;
      return;
    }
    if (pending_.size() == pending_.capacity()) grow();
    pending_.push() = {cycle, n};
  }
  void fold(uint64_t t) {
    while (!pending_.empty() && pending_.front().cycle < t) {
      total_ += pending_.front().n;
      pending_.pop();
    }
  }
  uint64_t value(uint64_t t) const {
    uint64_t v = total_;
    for (size_t i = 0; i < pending_.size() && pending_.at(i).cycle < t; ++i) v += pending_.at(i).n;
    return v;
  }
  void cut(uint64_t t) {
    while (!pending_.empty() && pending_.back().cycle >= t) pending_.popBack();
  }
  void reset() {
    total_ = 0;
    pending_.clear();
  }

 private:
  struct Event {
    uint64_t cycle, n;
  };
  void grow() {
    Ring<Event> bigger(pending_.capacity() * 2);
    for (size_t i = 0; i < pending_.size(); ++i) bigger.push() = pending_.at(i);
    pending_ = std::move(bigger);
  }
  uint64_t total_ = 0;
  Ring<Event> pending_{16};
};

}  // namespace weft::sim::approx
