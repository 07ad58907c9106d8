// A performance counter that counts cycles of intervals, evaluated lazily: the model records
// when a condition starts and ends (or a whole interval known in advance, possibly ending in
// the future) instead of ticking every cycle, and a register read at cycle t asks for the
// cycles of [0, t).
#pragma once

#include <algorithm>
#include <cstdint>

namespace weft::sim::approx {

class CycleCounter {
 public:
  // An interval whose end is not known yet.
  void open(uint64_t t) {
    if (!isOpen_) {
      isOpen_ = true;
      since_ = t;
    }
  }
  void close(uint64_t t) {
    if (isOpen_) {
      total_ += t - since_;
      isOpen_ = false;
    }
  }
  bool isOpen() const { return isOpen_; }

  // Adds [a, b), which may end in the future. Intervals come in order: a is not before the
  // end of the previous one.
  void addInterval(uint64_t a, uint64_t b) {
    if (b <= a) return;
    total_ += pendingEnd_ - pendingStart_;
    pendingStart_ = a;
    pendingEnd_ = b;
  }

  // Ends whatever is counting at cycle t (an aborted command).
  void stopAt(uint64_t t) {
    close(t);
    pendingEnd_ = std::max(pendingStart_, std::min(pendingEnd_, t));
  }

  uint64_t value(uint64_t t) const {
    uint64_t v = total_;
    if (isOpen_ && t > since_) v += t - since_;
    if (t > pendingStart_) v += std::min(t, pendingEnd_) - pendingStart_;
    return v;
  }

  void reset() { *this = CycleCounter{}; }

 private:
  uint64_t total_ = 0;
  bool isOpen_ = false;
  uint64_t since_ = 0;
  uint64_t pendingStart_ = 0, pendingEnd_ = 0;
};

}  // namespace weft::sim::approx
