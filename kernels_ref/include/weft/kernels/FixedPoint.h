// Scalar 32-bit fixed-point arithmetic with gemmlowp's exact rounding, which NNAPI's reference
// kernels (TFLite) use for quantized requantization, softmax, logistic and tanh. Bit-exactness
// with those kernels is the point: every rounding step below is the one gemmlowp performs.
//
// A value FixedPoint<I> holds raw / 2^(31 - I): I integer bits, 31 - I fractional bits.
#pragma once

#include <cstdint>
#include <limits>

namespace weft::nn::fixed {

// (a * b * 2) >> 32 rounded to nearest (ties away from zero), saturating INT32_MIN * INT32_MIN.
inline int32_t saturatingRoundingDoublingHighMul(int32_t a, int32_t b) {
  if (a == b && a == std::numeric_limits<int32_t>::min()) return std::numeric_limits<int32_t>::max();
  const int64_t ab = static_cast<int64_t>(a) * static_cast<int64_t>(b);
  const int64_t nudge = ab >= 0 ? (1 << 30) : (1 - (1 << 30));
  return static_cast<int32_t>((ab + nudge) / (int64_t{1} << 31));
}

// x / 2^exponent rounded to nearest, ties away from zero. Computed in 64 bits so that exponents
// past 31 (quantized SOFTMAX over long rows reaches 32 and more) stay defined: the result is then 0.
inline int32_t roundingDivideByPOT(int32_t x, int exponent) {
  const int64_t xs = x;
  const int64_t mask = static_cast<int64_t>((uint64_t{1} << exponent) - 1);
  const int64_t remainder = xs & mask;
  const int64_t threshold = (mask >> 1) + (xs < 0 ? 1 : 0);
  return static_cast<int32_t>((xs >> exponent) + (remainder > threshold ? 1 : 0));
}

// x * 2^exponent, saturating when exponent > 0 and rounding when exponent < 0.
template <int exponent>
int32_t saturatingRoundingMultiplyByPOT(int32_t x) {
  if constexpr (exponent == 0) {
    return x;
  } else if constexpr (exponent > 0) {
    constexpr int32_t threshold = static_cast<int32_t>((int64_t{1} << (31 - exponent)) - 1);
    if (x > threshold) return std::numeric_limits<int32_t>::max();
    if (x < -threshold) return std::numeric_limits<int32_t>::min();
    return static_cast<int32_t>(static_cast<uint32_t>(x) << exponent);
  } else {
    return roundingDivideByPOT(x, -exponent);
  }
}

// (a + b) / 2 rounded to nearest, ties away from zero.
inline int32_t roundingHalfSum(int32_t a, int32_t b) {
  const int64_t sum = int64_t{a} + int64_t{b};
  return static_cast<int32_t>((sum + (sum >= 0 ? 1 : -1)) / 2);
}

template <int kIntegerBits>
struct FixedPoint {
  static_assert(kIntegerBits >= 0 && kIntegerBits < 32);
  static constexpr int kFractionalBits = 31 - kIntegerBits;
  int32_t raw = 0;

  static FixedPoint fromRaw(int32_t r) { return FixedPoint{r}; }
  static FixedPoint zero() { return FixedPoint{0}; }
  // With 0 integer bits 1.0 is not representable: gemmlowp uses the largest value instead.
  static FixedPoint one() {
    return FixedPoint{kIntegerBits == 0 ? std::numeric_limits<int32_t>::max() : (int32_t{1} << kFractionalBits)};
  }
  template <int exponent>
  static FixedPoint constantPOT() {
    static_assert(kFractionalBits + exponent < 31 && kFractionalBits + exponent >= 0);
    return FixedPoint{int32_t{1} << (kFractionalBits + exponent)};
  }
};

template <int I>
FixedPoint<I> operator+(FixedPoint<I> a, FixedPoint<I> b) {
  return FixedPoint<I>{static_cast<int32_t>(static_cast<uint32_t>(a.raw) + static_cast<uint32_t>(b.raw))};
}
template <int I>
FixedPoint<I> operator-(FixedPoint<I> a, FixedPoint<I> b) {
  return FixedPoint<I>{static_cast<int32_t>(static_cast<uint32_t>(a.raw) - static_cast<uint32_t>(b.raw))};
}
template <int I>
FixedPoint<I> operator-(FixedPoint<I> a) {
  return FixedPoint<I>{static_cast<int32_t>(0u - static_cast<uint32_t>(a.raw))};
}
template <int I>
FixedPoint<I> operator&(FixedPoint<I> a, FixedPoint<I> b) {
  return FixedPoint<I>{a.raw & b.raw};
}
// Products add their integer bits, as in gemmlowp.
template <int Ia, int Ib>
FixedPoint<Ia + Ib> operator*(FixedPoint<Ia> a, FixedPoint<Ib> b) {
  return FixedPoint<Ia + Ib>{saturatingRoundingDoublingHighMul(a.raw, b.raw)};
}
// Exact multiplication by 2^exponent by reinterpreting the integer bits.
template <int exponent, int I>
FixedPoint<I + exponent> exactMulByPOT(FixedPoint<I> a) {
  return FixedPoint<I + exponent>{a.raw};
}
// Changes the number of integer bits, rounding or saturating the raw value accordingly.
template <int Idst, int Isrc>
FixedPoint<Idst> rescale(FixedPoint<Isrc> x) {
  return FixedPoint<Idst>{saturatingRoundingMultiplyByPOT<Isrc - Idst>(x.raw)};
}

// exp(a) for a in [-1/4, 0): Taylor expansion around -1/8.
FixedPoint<0> expOnIntervalBetweenNegativeOneQuarterAnd0Excl(FixedPoint<0> a);

// exp(a) for a <= 0.
template <int I>
FixedPoint<0> expOnNegativeValues(FixedPoint<I> a) {
  using InputF = FixedPoint<I>;
  using ResultF = FixedPoint<0>;
  constexpr int kFractionalBits = InputF::kFractionalBits;
  const InputF kOneQuarter = InputF::template constantPOT<-2>();
  const InputF mask = kOneQuarter - InputF::fromRaw(1);
  const InputF aModQuarterMinusOneQuarter = (a & mask) - kOneQuarter;
  ResultF result = expOnIntervalBetweenNegativeOneQuarterAnd0Excl(rescale<0>(aModQuarterMinusOneQuarter));
  const int32_t remainder = (aModQuarterMinusOneQuarter - a).raw;
  // Multiply by exp(-2^k) for every bit k of the remainder (a barrel shifter over exponents).
  struct Step {
    int exponent;
    int32_t multiplier;  // exp(-2^exponent) in Q0.31
  };
  constexpr Step kSteps[] = {{-2, 1672461947}, {-1, 1302514674}, {0, 790015084}, {1, 290630308},
                             {2, 39332535},    {3, 720401},      {4, 242}};
  for (const Step& step : kSteps) {
    if (I > step.exponent) {
      const int shift = kFractionalBits + step.exponent;
      if (remainder & (int32_t{1} << shift)) result = result * ResultF::fromRaw(step.multiplier);
    }
  }
  if constexpr (I > 5) {
    const int32_t clamp = -(int32_t{1} << (36 - I));  // -32.0
    if (a.raw < clamp) result = ResultF::zero();
  }
  if (a.raw == 0) result = ResultF::one();
  return result;
}

// 1 / (1 + a) for a in [0, 1), by Newton-Raphson division.
FixedPoint<0> oneOverOnePlusXForXIn01(FixedPoint<0> a);
// (1 - a) / (1 + a) for a in [0, 1).
FixedPoint<0> oneMinusXOverOnePlusXForXIn01(FixedPoint<0> a);

template <int I>
FixedPoint<0> logistic(FixedPoint<I> a) {
  using ResultF = FixedPoint<0>;
  if (a.raw == 0) return ResultF::fromRaw(1 << 30);  // 0.5
  const bool positive = a.raw > 0;
  const FixedPoint<I> absInput = positive ? a : -a;
  const ResultF ifPositive = oneOverOnePlusXForXIn01(expOnNegativeValues(-absInput));
  return positive ? ifPositive : ResultF::one() - ifPositive;
}

template <int I>
FixedPoint<0> tanh(FixedPoint<I> a) {
  using ResultF = FixedPoint<0>;
  if (a.raw == 0) return ResultF::zero();
  const bool negative = a.raw < 0;
  const FixedPoint<I> n = negative ? a : -a;  // n <= 0
  const ResultF t = oneMinusXOverOnePlusXForXIn01(expOnNegativeValues(exactMulByPOT<1>(n)));
  return negative ? -t : t;
}

}  // namespace weft::nn::fixed
