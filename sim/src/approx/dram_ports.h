// The device's two DRAM ports as the RTL and RtlStepper use them, over the shared DramModel.
//
// Read port (weft_rd_arb + the stepper): fetch and load share it, fetch first; one request is
// accepted a cycle while fewer than MaxOutstanding are in flight (a request's slot frees the
// cycle after its last beat); the data of a request accepted in cycle t starts at
// max(DRAM's first beat, t + 1, the previous request's last beat + 1), one beat a cycle.
//
// Write port (weft_wr_fifo / weft_wr_mux + the stepper): one request accepted a cycle, its
// beats from the cycle after its acceptance and after the previous write's beats, one a cycle;
// DRAM sees the write when its last beat is accepted (cycle L) and it is acknowledged at
// max(DRAM's answer, L + 1, the previous acknowledgement + 1).
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>

#include "approx/counters.h"
#include "approx/queues.h"
#include "weft/sim/dram_model.h"

namespace weft::sim::approx {

class ReadPort {
 public:
  ReadPort(DramModel& dram, unsigned busBytes, unsigned maxOutstanding)
      : dram_(dram), busBytes_(busBytes), maxOutstanding_(maxOutstanding) {}

  // The first cycle >= t a request can be accepted.
  uint64_t acceptableFrom(uint64_t t) const {
    t = std::max(t, lastAccept_ == kNever ? 0 : lastAccept_ + 1);
    // In flight in cycle c: requests whose last beat is at or after c.
    size_t live = lastBeats_.size();
    for (uint64_t l : lastBeats_) {
      if (l >= t) break;
      --live;
    }
    if (live < maxOutstanding_) return t;
    return lastBeats_[lastBeats_.size() - maxOutstanding_] + 1;
  }

  // Accepts a request in cycle t; returns the cycle of its last beat.
  uint64_t accept(uint64_t addr, uint32_t bytes, uint64_t t) {
    while (!lastBeats_.empty() && lastBeats_.front() < t) lastBeats_.pop_front();
    const uint64_t beats = (bytes + busBytes_ - 1) / busBytes_;
    const uint64_t first = std::max({dram_.timeRead(addr, bytes, t), t + 1, lastBeat_ + 1});
    lastBeat_ = first + beats - 1;
    lastBeats_.push_back(lastBeat_);
    lastAccept_ = t;
    return lastBeat_;
  }

  // Hardware reset at cycle t: the stepper abandons what is in flight.
  void reset(uint64_t t) {
    lastBeats_.clear();
    lastBeat_ = t;
    lastAccept_ = kNever;
  }
  unsigned busBytes() const { return busBytes_; }

 private:
  DramModel& dram_;
  unsigned busBytes_;
  unsigned maxOutstanding_;
  std::deque<uint64_t> lastBeats_;  // of requests in flight, in order
  uint64_t lastBeat_ = 0;
  uint64_t lastAccept_ = kNever;
};

class WritePort {
 public:
  WritePort(DramModel& dram, unsigned busBytes) : dram_(dram), busBytes_(busBytes) {}

  struct Slot {
    uint64_t request;   // cycle the request is accepted
    uint64_t lastBeat;  // cycle the last beat is accepted
  };
  // Plans a write of `bytes` whose request is valid from cycle v.
  Slot plan(uint64_t v, uint32_t bytes) {
    Slot s;
    s.request = std::max(v, lastRequest_ == kNever ? 0 : lastRequest_ + 1);
    const uint64_t first = std::max(s.request + 1, lastBeat_ == kNever ? 0 : lastBeat_ + 1);
    s.lastBeat = first + (bytes + busBytes_ - 1) / busBytes_ - 1;
    lastRequest_ = s.request;
    lastBeat_ = s.lastBeat;
    return s;
  }
  // The planned write reaches DRAM in cycle lastBeat; returns its acknowledgement cycle.
  uint64_t finish(uint64_t addr, uint32_t bytes, uint64_t lastBeat) {
    const uint64_t done = dram_.timeWrite(addr, bytes, lastBeat);
    lastAck_ = std::max({done, lastBeat + 1, lastAck_ == kNever ? 0 : lastAck_ + 1});
    return lastAck_;
  }
  // Forgets planned writes after the one accepted at `request` with its last beat at
  // `lastBeat` (kNever: none left): a soft reset dropped the rows not yet requested.
  void rewind(uint64_t request, uint64_t lastBeat) {
    lastRequest_ = request;
    lastBeat_ = lastBeat;
  }
  // Hardware reset at cycle t: the stepper abandons what is in flight.
  void reset(uint64_t t) {
    lastRequest_ = kNever;
    lastBeat_ = t;
    lastAck_ = t;
  }
  unsigned busBytes() const { return busBytes_; }

 private:
  DramModel& dram_;
  unsigned busBytes_;
  uint64_t lastRequest_ = kNever;
  uint64_t lastBeat_ = kNever;
  uint64_t lastAck_ = kNever;
};

}  // namespace weft::sim::approx
