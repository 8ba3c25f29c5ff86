#include "reports/virtual_time.h"

#include <gtest/gtest.h>

namespace qdt::reports {
namespace {

TEST(VirtualTime, ReadsAtTheScaleOfTheNumber) {
  EXPECT_EQ(virtual_time_text(0), "0 ms");
  EXPECT_EQ(virtual_time_text(64), "64 ms");
  EXPECT_EQ(virtual_time_text(1000), "1 s");
  EXPECT_EQ(virtual_time_text(16064), "16.064 s");
  EXPECT_EQ(virtual_time_text(1500), "1.5 s");
  EXPECT_EQ(virtual_time_text(123500), "2 min 03.5 s");
  EXPECT_EQ(virtual_time_text(3600000), "1 h 00 min 00 s");
  EXPECT_EQ(virtual_time_text(3616001), "1 h 00 min 16.001 s");
  EXPECT_EQ(virtual_time_text(-2500), "-2.5 s");
}

TEST(VirtualTime, AnAxisKeepsItsNumbersShort) {
  EXPECT_EQ(time_scale_for(64).unit, "ms");
  EXPECT_EQ(time_scale_for(10'000).unit, "ms");
  EXPECT_EQ(time_scale_for(10'001).unit, "s");
  EXPECT_EQ(time_scale_for(3'600'000).unit, "min");
  EXPECT_EQ(time_scale_for(3'600'000).ms_per_unit, 60'000);
  EXPECT_EQ(time_scale_for(86'400'000).unit, "h");
}

}  // namespace
}  // namespace qdt::reports
