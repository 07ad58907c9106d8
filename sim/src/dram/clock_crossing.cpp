#include "weft/sim/dram/clock_crossing.h"

#include <numeric>
#include <stdexcept>

namespace weft::sim::dram {

namespace {
using u128 = unsigned __int128;

uint64_t narrow(u128 v) {
  if (v > UINT64_MAX) throw std::overflow_error("clock crossing: cycle count beyond 64 bits");
  return static_cast<uint64_t>(v);
}
}  // namespace

ClockCrossing::ClockCrossing(Rational periodA, Rational periodB) {
  if (periodA.isZero() || periodB.isZero()) throw std::invalid_argument("clock crossing: a period of 0");
  // periodA / periodB = (a.num * b.den) / (a.den * b.num), reduced in 128 bits first.
  u128 p = static_cast<u128>(periodA.num) * periodB.den;
  u128 q = static_cast<u128>(periodA.den) * periodB.num;
  u128 a = p, b = q;
  while (b != 0) {
    const u128 t = a % b;
    a = b;
    b = t;
  }
  p_ = narrow(p / a);
  q_ = narrow(q / a);
  narrowUpTo_ = narrowLimit(p_, q_);
}

ClockCrossing ClockCrossing::acceleratorToDram(uint64_t clockMHz, Rational tCKns) {
  return ClockCrossing(Rational::of(1000, clockMHz), tCKns);
}

uint64_t ClockCrossing::atOrAfter(uint64_t cycleA) const {
  if (cycleA <= narrowUpTo_) return (cycleA * p_ + q_ - 1) / q_;
  const u128 t = static_cast<u128>(cycleA) * p_;
  return narrow((t + q_ - 1) / q_);
}

uint64_t ClockCrossing::after(uint64_t cycleA) const {
  if (cycleA <= narrowUpTo_) return cycleA * p_ / q_ + 1;
  return narrow(static_cast<u128>(cycleA) * p_ / q_ + 1);
}

uint64_t ClockCrossing::atOrBefore(uint64_t cycleA) const {
  if (cycleA <= narrowUpTo_) return cycleA * p_ / q_;
  return narrow(static_cast<u128>(cycleA) * p_ / q_);
}

}  // namespace weft::sim::dram
