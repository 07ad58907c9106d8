#include "weft/kernels/FixedPoint.h"

namespace weft::nn::fixed {

FixedPoint<0> expOnIntervalBetweenNegativeOneQuarterAnd0Excl(FixedPoint<0> a) {
  using F = FixedPoint<0>;
  const F constantTerm = F::fromRaw(1895147668);  // exp(-1/8)
  const F constantOneThird = F::fromRaw(715827883);
  const F x = a + F::constantPOT<-3>();  // expand around -1/8
  const F x2 = x * x;
  const F x3 = x2 * x;
  const F x4 = x2 * x2;
  const F x4Over4 = F::fromRaw(saturatingRoundingMultiplyByPOT<-2>(x4.raw));
  const F poly = F::fromRaw(saturatingRoundingMultiplyByPOT<-1>((((x4Over4 + x3) * constantOneThird) + x2).raw));
  return constantTerm + constantTerm * (x + poly);
}

namespace {

// Newton-Raphson reciprocal of (1 + a) / 2 for a in [0, 1), in Q2.29 (48/17 - 32/17 d start).
FixedPoint<2> reciprocalOfHalfDenominator(FixedPoint<0> halfDenominator) {
  using F2 = FixedPoint<2>;
  const F2 constant48Over17 = F2::fromRaw(1515870810);
  const F2 constantNeg32Over17 = F2::fromRaw(-1010580540);
  F2 x = constant48Over17 + halfDenominator * constantNeg32Over17;
  for (int i = 0; i < 3; ++i) {
    const F2 halfDenominatorTimesX = halfDenominator * x;
    const F2 oneMinusHalfDenominatorTimesX = F2::one() - halfDenominatorTimesX;
    x = x + rescale<2>(x * oneMinusHalfDenominatorTimesX);
  }
  return x;
}

}  // namespace

FixedPoint<0> oneOverOnePlusXForXIn01(FixedPoint<0> a) {
  const FixedPoint<0> halfDenominator = FixedPoint<0>::fromRaw(roundingHalfSum(a.raw, FixedPoint<0>::one().raw));
  return rescale<0>(exactMulByPOT<-1>(reciprocalOfHalfDenominator(halfDenominator)));
}

FixedPoint<0> oneMinusXOverOnePlusXForXIn01(FixedPoint<0> a) {
  const FixedPoint<0> halfDenominator = FixedPoint<0>::fromRaw(roundingHalfSum(a.raw, FixedPoint<0>::one().raw));
  return rescale<0>(reciprocalOfHalfDenominator(halfDenominator) - FixedPoint<2>::one());
}

}  // namespace weft::nn::fixed
