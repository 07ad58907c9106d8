// Exact, deterministic crossing between two clocks that start together at time 0: cycle k of
// clock A begins at k * periodA, cycle k of clock B at k * periodB. The accelerator runs at
// ClockMHz (hw/spec/params.json), the DRAM at its tCK; both periods are rationals, so the
// mapping is integer arithmetic (128-bit intermediates), never floating point, and a cycle
// count means the same instant in every backend and on every machine.
//
// Typical use (part 2, the integration): a request the accelerator issues in its cycle k enters
// the DRAM model at DRAM cycle toDram.atOrAfter(k); a completion at DRAM cycle d is seen by the
// accelerator at toDram.reverse().atOrAfter(d).
#pragma once

#include <cstdint>

#include "weft/sim/dram/rational.h"

namespace weft::sim::dram {

class ClockCrossing {
 public:
  // Periods in any common unit (ns here); both must be positive (std::invalid_argument).
  ClockCrossing(Rational periodA, Rational periodB);

  // The accelerator's clock (period 1000 / clockMHz ns) to a DRAM clock of period tCK ns.
  static ClockCrossing acceleratorToDram(uint64_t clockMHz, Rational tCKns);

  // The first B cycle that begins at or after A's cycle `cycleA` begins.
  uint64_t atOrAfter(uint64_t cycleA) const;
  // The first B cycle that begins strictly after A's cycle `cycleA` begins.
  uint64_t after(uint64_t cycleA) const;
  // The last B cycle that begins at or before A's cycle `cycleA` begins.
  uint64_t atOrBefore(uint64_t cycleA) const;

  // B to A.
  ClockCrossing reverse() const { return ClockCrossing(q_, p_, 0); }
  // B cycles per A cycle (periodA / periodB), reduced.
  Rational ratio() const { return Rational{p_, q_}; }

 private:
  ClockCrossing(uint64_t p, uint64_t q, int) : p_(p), q_(q), narrowUpTo_(narrowLimit(p, q)) {}
  // Cycles up to which k * p_ + q_ fits 64 bits: the same results from 64-bit arithmetic, which
  // is several times cheaper than 128-bit division (both backends cross every DRAM request).
  static uint64_t narrowLimit(uint64_t p, uint64_t q) { return (UINT64_MAX - q) / p; }
  // A's cycle k begins at k * p_ / q_ B cycles.
  uint64_t p_;
  uint64_t q_;
  uint64_t narrowUpTo_;
};

}  // namespace weft::sim::dram
