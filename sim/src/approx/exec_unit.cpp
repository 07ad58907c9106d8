#include "approx/exec_unit.h"

#include <algorithm>

namespace weft::sim::approx {

ExecUnit::ExecUnit(Machine& m, hw::Unit unit) : m_(m), unit_(unit) {}

void ExecUnit::reset() {
  phase_ = Phase::kIdle;
  freeAt_ = 0;
  active_.reset();
  tokenStallTotal_ = 0;
}

void ExecUnit::abort(uint64_t now) {
  tokenStallTotal_ = tokenStallCycles(now);  // before the FIFO it refers to is cleared
  active_.stopAt(now);
  phase_ = Phase::kIdle;
  freeAt_ = now;
}

// The queue tables of hw/spec/isa.json's header: "prev" and "next" are relative to the unit.
std::array<int, 2> ExecUnit::waitQueues(const hw::CommandWord& cmd) const {
  const bool prev = cmd.get(hw::field::kWaitPrev) != 0;
  const bool next = cmd.get(hw::field::kWaitNext) != 0;
  switch (unit_) {
    case hw::Unit::kLoad: return {next ? kComputeToLoad : -1, -1};
    case hw::Unit::kCompute: return {prev ? kLoadToCompute : -1, next ? kStoreToCompute : -1};
    case hw::Unit::kStore: return {prev ? kComputeToStore : -1, -1};
    case hw::Unit::kControl: break;
  }
  return {-1, -1};
}

std::array<int, 2> ExecUnit::signalQueues(const hw::CommandWord& cmd) const {
  const bool prev = cmd.get(hw::field::kSignalPrev) != 0;
  const bool next = cmd.get(hw::field::kSignalNext) != 0;
  switch (unit_) {
    case hw::Unit::kLoad: return {next ? kLoadToCompute : -1, -1};
    case hw::Unit::kCompute: return {prev ? kComputeToLoad : -1, next ? kComputeToStore : -1};
    case hw::Unit::kStore: return {prev ? kStoreToCompute : -1, -1};
    case hw::Unit::kControl: break;
  }
  return {-1, -1};
}

uint64_t ExecUnit::waitingSince() const {
  return std::max(m_.fifo(unit_).front().readyAt, freeAt_);
}

bool ExecUnit::canRetire() const {
  for (int q : signalQueues(current_)) {
    if (q >= 0 && m_.tokens[q].full()) return false;
  }
  return true;
}

uint64_t ExecUnit::nextCycle() const {
  switch (phase_) {
    case Phase::kIdle: {
      const auto& fifo = m_.fifo(unit_);
      if (fifo.empty()) return kNever;
      uint64_t t = waitingSince();
      for (int q : waitQueues(fifo.front().word)) {
        if (q < 0) continue;
        if (m_.tokens[q].readyAt.empty()) return kNever;
        t = std::max(t, m_.tokens[q].readyAt.front());
      }
      return t;
    }
    case Phase::kRunning:
      return nextStep();
    case Phase::kRetiring:
      return canRetire() ? freeAt_ : kNever;
  }
  return kNever;
}

void ExecUnit::act(uint64_t now) {
  switch (phase_) {
    case Phase::kIdle: {
      auto& fifo = m_.fifo(unit_);
      tokenStallTotal_ += now - waitingSince();
      current_ = fifo.front().word;
      fifo.pop_front();
      for (int q : waitQueues(current_)) {
        if (q >= 0) m_.tokens[q].readyAt.pop_front();
      }
      active_.open(now);
      phase_ = Phase::kRunning;
      begin(current_, now);
      return;
    }
    case Phase::kRunning:
      if (step(now)) {
        active_.close(now);
        freeAt_ = now;
        if (canRetire()) {
          retire(now);
        } else {
          phase_ = Phase::kRetiring;  // a full token queue holds the unit
        }
      }
      return;
    case Phase::kRetiring:
      freeAt_ = now;
      retire(now);
      return;
  }
}

void ExecUnit::retire(uint64_t t) {
  for (int q : signalQueues(current_)) {
    if (q >= 0) m_.tokens[q].readyAt.push_back(t + m_.timing.tokenCycles);
  }
  count(m_.events, hw::Counter::kCmdsRetired);
  phase_ = Phase::kIdle;
}

uint64_t ExecUnit::tokenStallCycles(uint64_t t) const {
  uint64_t v = tokenStallTotal_;
  if (phase_ == Phase::kIdle && !m_.fifo(unit_).empty()) {
    const uint64_t since = waitingSince();
    if (t > since) v += t - since;
  }
  return v;
}

}  // namespace weft::sim::approx
