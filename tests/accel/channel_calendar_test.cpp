// ChannelCalendar (driver/accel/ChannelCalendar.h): the simple pipe's channel in a program's
// estimated timeline, taken from in program order, not in time.
#include <gtest/gtest.h>

#include <random>

#include "ChannelCalendar.h"

namespace weft::accel {
namespace {

TEST(ChannelCalendar, TakesTheFirstFreeCyclesFromTheStart) {
  ChannelCalendar c;
  EXPECT_DOUBLE_EQ(c.take(0, 10), 10);  // [0, 10)
  EXPECT_DOUBLE_EQ(c.take(20, 5), 25);  // [20, 25)
  // From inside [0, 10): the gap [10, 20) whole, then two cycles after [20, 25).
  EXPECT_DOUBLE_EQ(c.take(5, 12), 27);
  ASSERT_EQ(c.intervals().size(), 1u);
  EXPECT_DOUBLE_EQ(c.intervals().begin()->first, 0);
  EXPECT_DOUBLE_EQ(c.intervals().begin()->second, 27);
}

TEST(ChannelCalendar, ALaterCommandMayTakeCyclesBeforeEarlierOnes) {
  ChannelCalendar c;
  EXPECT_DOUBLE_EQ(c.take(100, 10), 110);
  EXPECT_DOUBLE_EQ(c.take(0, 50), 50);  // before what was taken: in time, it comes first
  EXPECT_EQ(c.intervals().size(), 2u);
  EXPECT_DOUBLE_EQ(c.take(40, 70), 130);  // [50, 100) whole, then 20 after 110
  ASSERT_EQ(c.intervals().size(), 1u);
  EXPECT_DOUBLE_EQ(c.intervals().begin()->second, 130);
}

TEST(ChannelCalendar, FreeFromTakesNothing) {
  ChannelCalendar c;
  EXPECT_DOUBLE_EQ(c.freeFrom(3), 3);
  c.take(10, 10);  // [10, 20)
  EXPECT_DOUBLE_EQ(c.freeFrom(5), 5);
  EXPECT_DOUBLE_EQ(c.freeFrom(10), 20);
  EXPECT_DOUBLE_EQ(c.freeFrom(15), 20);
  EXPECT_DOUBLE_EQ(c.freeFrom(20), 20);
  EXPECT_EQ(c.intervals().size(), 1u);
}

TEST(ChannelCalendar, ForgetsOnlyWhatEndsBeforeTheTime) {
  ChannelCalendar c;
  c.take(0, 10);
  c.take(20, 10);
  c.take(40, 10);
  c.forgetBefore(25);
  ASSERT_EQ(c.intervals().size(), 2u);
  EXPECT_DOUBLE_EQ(c.intervals().begin()->first, 20);
  c.forgetBefore(1000);
  EXPECT_TRUE(c.intervals().empty());
}

// Fractional cycles (a request's mean bursts, 2.97 x 2) once made a gap used whole end a hair
// past the next interval's start: intervals overlapped and a later take never finished.
TEST(ChannelCalendar, FractionalTakesStayDisjointAndAddUp) {
  ChannelCalendar c;
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> start(0, 2000), amount(0.01, 40);
  double taken = 0;
  for (int i = 0; i < 20000; ++i) {
    const double from = start(rng) / 3, a = amount(rng) / 7;
    const double end = c.take(from, a);
    taken += a;
    ASSERT_GE(end, from + a - 1e-9);
    double total = 0, lastEnd = -1;
    for (const auto& [b, e] : c.intervals()) {
      ASSERT_LT(b, e);
      ASSERT_LT(lastEnd, b) << "intervals overlap or touch at take " << i;
      lastEnd = e;
      total += e - b;
    }
    ASSERT_NEAR(total, taken, 1e-6 * taken);
  }
}

}  // namespace
}  // namespace weft::accel
