#include "sim/campaign/progress_line.h"

#include <gtest/gtest.h>

namespace qdt::sim {
namespace {

TEST(ProgressLine, DurationsReadAsAPersonSaysThem) {
  EXPECT_EQ(duration_text(0.2), "under 1 s");
  EXPECT_EQ(duration_text(45), "45 s");
  EXPECT_EQ(duration_text(200), "3 min 20 s");
  EXPECT_EQ(duration_text(7500), "2 h 5 min");
}

TEST(ProgressLine, TheTimeLeftFollowsTheRecentRateNotTheAverage) {
  ProgressLine line(false, 2000, 0);
  uint64_t done = 0;
  double now = 0;
  // A slow first minute (1 seed/s), then half a minute at 10 seeds/s.
  for (; now < 60; now += 1) line.update(++done, 0, now);
  for (int i = 0; i < 60; ++i) {
    now += 0.5;
    done += 5;
    line.update(done, 0, now);
  }
  // The whole run's average would say 3.6 seeds/s and about 7 minutes.
  EXPECT_EQ(line.text(done, 0, now), "[360/2000] failures 0, 9.7 seeds/s, ~2 min 49 s left");
}

TEST(ProgressLine, JournaledSeedsCountAsDoneButNotInTheRate) {
  ProgressLine line(false, 100, 60);
  EXPECT_EQ(line.text(0, 0, 0.5), "[60/100] failures 0, 0 seeds/s");
  EXPECT_EQ(line.text(40, 3, 0.5), "[100/100] failures 3, 80 seeds/s");
}

}  // namespace
}  // namespace qdt::sim
