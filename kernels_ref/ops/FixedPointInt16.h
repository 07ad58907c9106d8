// 16-bit fixed-point arithmetic with gemmlowp's exact rounding (FixedPoint<int16_t, I>), which the
// quantized LSTMs (QUANTIZED_16BIT_LSTM, QUANTIZED_LSTM) use for their gates: logistic and tanh
// of Q3.12 values, products of Q0.15 gates and cell states. weft/kernels/FixedPoint.h is the
// 32-bit counterpart; the algorithms are the same, but every step rounds and saturates at 16 bits
// and gemmlowp's int32 constants are rounded to 16 bits, so the results differ and both are needed.
//
// A value Fixed16<I> holds raw / 2^(15 - I): I integer bits, 15 - I fractional bits.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>

namespace weft::nn::fixed16 {

// (a * b * 2) >> 16 rounded to nearest, saturating -1 * -1.
inline int16_t saturatingRoundingDoublingHighMul(int16_t a, int16_t b) {
  if (a == b && a == std::numeric_limits<int16_t>::min()) return std::numeric_limits<int16_t>::max();
  const int32_t ab = int32_t{a} * int32_t{b};
  const int32_t nudge = ab >= 0 ? (1 << 14) : (1 - (1 << 14));
  return static_cast<int16_t>((ab + nudge) / (1 << 15));
}

// x / 2^exponent rounded to nearest, ties away from zero.
inline int16_t roundingDivideByPOT(int16_t x, int exponent) {
  const int32_t mask = (1 << exponent) - 1;
  const int32_t remainder = x & mask;
  const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return static_cast<int16_t>((x >> exponent) + (remainder > threshold ? 1 : 0));
}

// x * 2^exponent, saturating for exponent > 0, rounding for exponent < 0.
template <int exponent>
int16_t saturatingRoundingMultiplyByPOT(int16_t x) {
  if constexpr (exponent == 0) {
    return x;
  } else if constexpr (exponent > 0) {
    constexpr int32_t threshold = (1 << (15 - exponent)) - 1;
    if (x > threshold) return std::numeric_limits<int16_t>::max();
    if (x < -threshold) return std::numeric_limits<int16_t>::min();
    return static_cast<int16_t>(x * (1 << exponent));
  } else {
    return roundingDivideByPOT(x, -exponent);
  }
}

inline int16_t saturatingAdd(int16_t a, int16_t b) {
  return static_cast<int16_t>(std::clamp<int32_t>(int32_t{a} + b, -32768, 32767));
}

inline int16_t roundingHalfSum(int16_t a, int16_t b) {
  const int32_t sum = int32_t{a} + int32_t{b};
  return static_cast<int16_t>((sum + (sum >= 0 ? 1 : -1)) / 2);
}

// gemmlowp writes its constants as 32-bit raw values and rounds them to 16 bits.
constexpr int16_t constant16(int32_t raw32) {
  const int32_t mask = (1 << 16) - 1;
  const int32_t remainder = raw32 & mask;
  const int32_t threshold = (mask >> 1) + (raw32 < 0 ? 1 : 0);
  return static_cast<int16_t>((raw32 >> 16) + (remainder > threshold ? 1 : 0));
}

template <int kIntegerBits>
struct Fixed16 {
  static_assert(kIntegerBits >= 0 && kIntegerBits < 16);
  static constexpr int kFractionalBits = 15 - kIntegerBits;
  int16_t raw = 0;

  static Fixed16 fromRaw(int16_t r) { return Fixed16{r}; }
  static Fixed16 zero() { return Fixed16{0}; }
  static Fixed16 one() {
    return Fixed16{kIntegerBits == 0 ? std::numeric_limits<int16_t>::max()
                                     : static_cast<int16_t>(1 << (kIntegerBits == 0 ? 0 : kFractionalBits))};
  }
  template <int exponent>
  static Fixed16 constantPOT() {
    static_assert(kFractionalBits + exponent >= 0 && kFractionalBits + exponent < 15);
    return Fixed16{static_cast<int16_t>(1 << (kFractionalBits + exponent))};
  }
};

// Addition and subtraction wrap, as gemmlowp's do.
template <int I>
Fixed16<I> operator+(Fixed16<I> a, Fixed16<I> b) {
  return Fixed16<I>{static_cast<int16_t>(a.raw + b.raw)};
}
template <int I>
Fixed16<I> operator-(Fixed16<I> a, Fixed16<I> b) {
  return Fixed16<I>{static_cast<int16_t>(a.raw - b.raw)};
}
template <int I>
Fixed16<I> operator-(Fixed16<I> a) {
  return Fixed16<I>{static_cast<int16_t>(-a.raw)};
}
template <int I>
Fixed16<I> operator&(Fixed16<I> a, Fixed16<I> b) {
  return Fixed16<I>{static_cast<int16_t>(a.raw & b.raw)};
}
template <int Ia, int Ib>
Fixed16<Ia + Ib> operator*(Fixed16<Ia> a, Fixed16<Ib> b) {
  return Fixed16<Ia + Ib>{saturatingRoundingDoublingHighMul(a.raw, b.raw)};
}
template <int I>
Fixed16<I> saturatingAdd(Fixed16<I> a, Fixed16<I> b) {
  return Fixed16<I>{saturatingAdd(a.raw, b.raw)};
}
template <int exponent, int I>
Fixed16<I + exponent> exactMulByPOT(Fixed16<I> a) {
  return Fixed16<I + exponent>{a.raw};
}
template <int Idst, int Isrc>
Fixed16<Idst> rescale(Fixed16<Isrc> x) {
  return Fixed16<Idst>{saturatingRoundingMultiplyByPOT<Isrc - Idst>(x.raw)};
}

// exp(a) for a in [-1/4, 0): Taylor expansion around -1/8.
inline Fixed16<0> expOnIntervalBetweenNegativeOneQuarterAnd0Excl(Fixed16<0> a) {
  using F = Fixed16<0>;
  const F constantTerm = F::fromRaw(constant16(1895147668));  // exp(-1/8)
  const F constantOneThird = F::fromRaw(constant16(715827883));
  const F x = a + F::constantPOT<-3>();
  const F x2 = x * x;
  const F x3 = x2 * x;
  const F x4 = x2 * x2;
  const F x4Over4 = F::fromRaw(saturatingRoundingMultiplyByPOT<-2>(x4.raw));
  const F poly = F::fromRaw(saturatingRoundingMultiplyByPOT<-1>((((x4Over4 + x3) * constantOneThird) + x2).raw));
  return saturatingAdd(constantTerm, constantTerm * (x + poly));
}

// exp(a) for a <= 0.
template <int I>
Fixed16<0> expOnNegativeValues(Fixed16<I> a) {
  using InputF = Fixed16<I>;
  using ResultF = Fixed16<0>;
  constexpr int kFractionalBits = InputF::kFractionalBits;
  const InputF kOneQuarter = InputF::template constantPOT<-2>();
  const InputF mask = kOneQuarter - InputF::fromRaw(1);
  const InputF aModQuarterMinusOneQuarter = (a & mask) - kOneQuarter;
  ResultF result = expOnIntervalBetweenNegativeOneQuarterAnd0Excl(rescale<0>(aModQuarterMinusOneQuarter));
  const int16_t remainder = (aModQuarterMinusOneQuarter - a).raw;
  // Multiply by exp(-2^k) for every bit k of the remainder.
  struct Step {
    int exponent;
    int32_t multiplier32;  // exp(-2^exponent) in Q0.31
  };
  constexpr Step kSteps[] = {{-2, 1672461947}, {-1, 1302514674}, {0, 790015084}, {1, 290630308},
                             {2, 39332535},    {3, 720401},      {4, 242}};
  for (const Step& step : kSteps) {
    if (I > step.exponent) {
      const int shift = kFractionalBits + step.exponent;
      if (remainder & (1 << shift)) result = result * ResultF::fromRaw(constant16(step.multiplier32));
    }
  }
  if constexpr (I > 5) {
    const InputF clamp = InputF::fromRaw(constant16(-(1 << (36 - I))));  // -32.0
    if (a.raw < clamp.raw) result = ResultF::zero();
  }
  if (a.raw == 0) result = ResultF::one();
  return result;
}

namespace detail {

// Newton-Raphson reciprocal of (1 + a) / 2 for a in [0, 1), in Q2.13.
inline Fixed16<2> reciprocalOfHalfDenominator(Fixed16<0> halfDenominator) {
  using F2 = Fixed16<2>;
  const F2 constant48Over17 = F2::fromRaw(constant16(1515870810));
  const F2 constantNeg32Over17 = F2::fromRaw(constant16(-1010580540));
  F2 x = constant48Over17 + halfDenominator * constantNeg32Over17;
  for (int i = 0; i < 3; ++i) {
    const F2 halfDenominatorTimesX = halfDenominator * x;
    const F2 oneMinusHalfDenominatorTimesX = F2::one() - halfDenominatorTimesX;
    x = x + rescale<2>(x * oneMinusHalfDenominatorTimesX);
  }
  return x;
}

inline Fixed16<0> halfDenominatorOf(Fixed16<0> a) {
  return Fixed16<0>::fromRaw(roundingHalfSum(a.raw, Fixed16<0>::one().raw));
}

}  // namespace detail

// 1 / (1 + a) for a in [0, 1).
inline Fixed16<0> oneOverOnePlusXForXIn01(Fixed16<0> a) {
  return rescale<0>(exactMulByPOT<-1>(detail::reciprocalOfHalfDenominator(detail::halfDenominatorOf(a))));
}

// (1 - a) / (1 + a) for a in [0, 1).
inline Fixed16<0> oneMinusXOverOnePlusXForXIn01(Fixed16<0> a) {
  return rescale<0>(detail::reciprocalOfHalfDenominator(detail::halfDenominatorOf(a)) - Fixed16<2>::one());
}

template <int I>
Fixed16<0> logistic(Fixed16<I> a) {
  using ResultF = Fixed16<0>;
  if (a.raw == 0) return ResultF::fromRaw(constant16(1 << 30));  // 0.5
  const bool positive = a.raw > 0;
  const Fixed16<I> absInput = positive ? a : -a;
  const ResultF ifPositive = oneOverOnePlusXForXIn01(expOnNegativeValues(-absInput));
  return positive ? ifPositive : ResultF::one() - ifPositive;
}

template <int I>
Fixed16<0> tanh(Fixed16<I> a) {
  using ResultF = Fixed16<0>;
  if (a.raw == 0) return ResultF::zero();
  const bool negative = a.raw < 0;
  const Fixed16<I> n = negative ? a : -a;  // n <= 0
  const ResultF t = oneMinusXOverOnePlusXForXIn01(expOnNegativeValues(exactMulByPOT<1>(n)));
  return negative ? -t : t;
}

}  // namespace weft::nn::fixed16
