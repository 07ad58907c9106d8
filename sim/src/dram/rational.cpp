#include "weft/sim/dram/rational.h"

#include <fmt/format.h>

#include <numeric>
#include <stdexcept>

namespace weft::sim::dram {

Rational Rational::of(uint64_t num, uint64_t den) {
  if (den == 0) throw std::invalid_argument("a rational number with denominator 0");
  const uint64_t g = std::gcd(num, den);
  return g == 0 ? Rational{0, 1} : Rational{num / g, den / g};
}

Rational Rational::parseDecimal(std::string_view text) {
  uint64_t num = 0, den = 1;
  int digits = 0;
  bool point = false, any = false;
  for (const char c : text) {
    if (c == '.' && !point) {
      point = true;
      continue;
    }
    if (c < '0' || c > '9' || ++digits > 18) {
      throw std::invalid_argument(fmt::format("'{}' is not a plain decimal number (digits and one point)", text));
    }
    any = true;
    num = num * 10 + static_cast<uint64_t>(c - '0');
    if (point) den *= 10;
  }
  if (!any) throw std::invalid_argument(fmt::format("'{}' is not a number", text));
  return of(num, den);
}

std::string Rational::toString() const {
  return den == 1 ? fmt::format("{}", num) : fmt::format("{}/{}", num, den);
}

}  // namespace weft::sim::dram
