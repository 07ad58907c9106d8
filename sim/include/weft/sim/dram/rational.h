// An exact non-negative rational number. Clock periods are kept as their decimal text gave them
// (tCK = 0.625 ns is 5/8 ns, not the double nearest to it), so that crossing between the
// accelerator's clock and the DRAM's is exact and the same on every machine.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace weft::sim::dram {

struct Rational {
  uint64_t num = 0;
  uint64_t den = 1;

  // num / den reduced; den must not be 0 (std::invalid_argument).
  static Rational of(uint64_t num, uint64_t den);
  // A plain decimal such as "1", "0.63" or "1.250": digits with at most one point, no sign or
  // exponent, at most 18 significant digits (std::invalid_argument otherwise).
  static Rational parseDecimal(std::string_view text);

  double toDouble() const { return static_cast<double>(num) / static_cast<double>(den); }
  std::string toString() const;  // "5/8", or "2" when whole
  bool isZero() const { return num == 0; }
  friend bool operator==(const Rational& a, const Rational& b) { return a.num == b.num && a.den == b.den; }
  friend bool operator!=(const Rational& a, const Rational& b) { return !(a == b); }
};

}  // namespace weft::sim::dram
