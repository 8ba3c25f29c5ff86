#include "sim/base/rate_text.h"

#include <gtest/gtest.h>

#include <limits>

namespace qdt::sim {
namespace {

TEST(RateText, WholeFromTenUpTwoSignificantDigitsBelow) {
  EXPECT_EQ(rate_text(1234.6), "1235");
  EXPECT_EQ(rate_text(12.34), "12");
  EXPECT_EQ(rate_text(6.57), "6.6");
  EXPECT_EQ(rate_text(1.0), "1.0");
  EXPECT_EQ(rate_text(0.4123), "0.41");
  EXPECT_EQ(rate_text(0.0031), "0.0031");
}

TEST(RateText, NothingMeasuredIsZero) {
  EXPECT_EQ(rate_text(0), "0");
  EXPECT_EQ(rate_text(-1), "0");
  EXPECT_EQ(rate_text(std::numeric_limits<double>::infinity()), "0");
  EXPECT_EQ(rate_text(std::numeric_limits<double>::quiet_NaN()), "0");
}

}  // namespace
}  // namespace qdt::sim
