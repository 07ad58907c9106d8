// The exact crossing between the accelerator's clock and the DRAM's (weft/sim/dram/clock_crossing.h).
#include <gtest/gtest.h>

#include <stdexcept>

#include "weft/sim/dram/clock_crossing.h"
#include "weft/sim/dram/rational.h"

namespace weft::sim::dram {
namespace {

TEST(Rational, DecimalsAreKeptExactly) {
  EXPECT_EQ(Rational::parseDecimal("0.625"), Rational::of(5, 8));
  EXPECT_EQ(Rational::parseDecimal("0.63"), Rational::of(63, 100));
  EXPECT_EQ(Rational::parseDecimal("1"), Rational::of(1, 1));
  EXPECT_EQ(Rational::parseDecimal("1.250"), Rational::of(5, 4));
  EXPECT_EQ(Rational::parseDecimal(".5"), Rational::of(1, 2));
  EXPECT_EQ(Rational::of(6, 4).toString(), "3/2");
  EXPECT_EQ(Rational::of(4, 2).toString(), "2");
}

TEST(Rational, RejectsWhatIsNotAPlainDecimal) {
  for (const char* bad : {"", ".", "1e-3", "-1", "1.2.3", "0x10", "1 ", "1234567890123456789"}) {
    EXPECT_THROW(Rational::parseDecimal(bad), std::invalid_argument) << bad;
  }
  EXPECT_THROW(Rational::of(1, 0), std::invalid_argument);
}

TEST(ClockCrossing, AcceleratorAt1GHzToDdr4At1600MHz) {
  // 1 ns against 0.625 ns: 8 DRAM cycles every 5 accelerator cycles.
  const ClockCrossing x = ClockCrossing::acceleratorToDram(1000, Rational::parseDecimal("0.625"));
  EXPECT_EQ(x.ratio(), Rational::of(8, 5));
  EXPECT_EQ(x.atOrAfter(0), 0u);
  EXPECT_EQ(x.atOrAfter(1), 2u);   // 1 ns = 1.6 DRAM cycles
  EXPECT_EQ(x.atOrBefore(1), 1u);
  EXPECT_EQ(x.after(1), 2u);
  EXPECT_EQ(x.atOrAfter(5), 8u);   // both clocks have an edge at 5 ns
  EXPECT_EQ(x.after(5), 9u);
  EXPECT_EQ(x.atOrBefore(5), 8u);
  const ClockCrossing back = x.reverse();
  EXPECT_EQ(back.atOrAfter(8), 5u);
  EXPECT_EQ(back.atOrAfter(9), 6u);  // 5.625 ns -> the accelerator's edge at 6 ns
  EXPECT_EQ(back.atOrBefore(9), 5u);
}

TEST(ClockCrossing, EveryCycleMapsToTheFirstEdgeNotBeforeIt) {
  // 1333 MHz against DRAMsim3's rounded 0.63 ns: an awkward ratio, still exact.
  const Rational accel = Rational::of(1000, 1333), dram = Rational::parseDecimal("0.63");
  const ClockCrossing x(accel, dram);
  for (uint64_t a = 0; a < 20000; ++a) {
    const uint64_t d = x.atOrAfter(a);
    // d * 0.63 >= a * 1000/1333 and (d - 1) * 0.63 < a * 1000/1333, in integers.
    const auto dramTime = [&](uint64_t k) { return static_cast<unsigned __int128>(k) * dram.num * accel.den; };
    const auto accelTime = static_cast<unsigned __int128>(a) * accel.num * dram.den;
    ASSERT_GE(dramTime(d), accelTime) << a;
    if (d > 0) {
      ASSERT_LT(dramTime(d - 1), accelTime) << a;
    }
    ASSERT_GE(x.reverse().atOrAfter(d), a);  // and back never before where it started
  }
}

TEST(ClockCrossing, EqualClocksAreTheIdentity) {
  const ClockCrossing x(Rational::of(1, 1), Rational::of(1, 1));
  for (uint64_t c : {0ull, 1ull, 77ull, 1ull << 40}) {
    EXPECT_EQ(x.atOrAfter(c), c);
    EXPECT_EQ(x.atOrBefore(c), c);
    EXPECT_EQ(x.after(c), c + 1);
  }
}

TEST(ClockCrossing, LargeCycleCountsDoNotOverflow) {
  const ClockCrossing x = ClockCrossing::acceleratorToDram(1000, Rational::parseDecimal("0.469"));
  const uint64_t a = uint64_t{1} << 52;  // months of simulated time
  // a * 1000 / 469, rounded up: computed in 128 bits.
  const unsigned __int128 exact = static_cast<unsigned __int128>(a) * 1000;
  EXPECT_EQ(x.atOrAfter(a), static_cast<uint64_t>((exact + 468) / 469));
  EXPECT_THROW(ClockCrossing(Rational::of(1, 1), Rational::of(0, 1)), std::invalid_argument);
}

}  // namespace
}  // namespace weft::sim::dram
