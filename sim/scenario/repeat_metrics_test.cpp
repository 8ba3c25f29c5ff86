#include "sim/scenario/repeat_metrics.h"

#include <gtest/gtest.h>

namespace qdt::sim {
namespace {

history::PushEvent stored(const std::string& partition, std::vector<std::string> keys, int64_t now_ms,
                          int64_t window_seconds) {
  history::PushEvent p;
  p.queue = "q";
  p.partition = partition;
  for (auto& k : keys) p.frames.push_back({"id-" + k, k, 0});
  p.now_ms = now_ms;
  p.window_seconds = window_seconds;
  p.queued = true;
  return p;
}

TEST(RepeatMetrics, CountsRepeatsAndDoubleWritesByTheWindowInForce) {
  history::History h;
  h.events.push_back(stored("P0", {"a", "b"}, 0, 60));
  h.events.push_back(stored("P0", {"a"}, 60'000, 60));   // exactly at the edge: inside
  h.events.push_back(stored("P0", {"a"}, 120'001, 60));  // 60.001 s after the last copy: a legitimate repeat
  h.events.push_back(stored("P1", {"a"}, 120'002, 60));  // another partition: not a repeat
  h.events.push_back(stored("P0", {"b"}, 120'003, 0));   // window 0: no dedup, not a double write
  history::PushEvent failed = stored("P0", {"a"}, 120'004, 60);
  failed.failed = true;  // nothing committed
  h.events.push_back(failed);
  history::PushEvent duplicate = stored("P0", {"a"}, 120'005, 60);
  duplicate.queued = false;  // answered duplicate: nothing stored
  h.events.push_back(duplicate);
  const RepeatCounts c = count_repeats(h);
  EXPECT_EQ(c.frames_stored, 6);
  EXPECT_EQ(c.repeats_stored, 3);
  EXPECT_EQ(c.double_writes, 1);
}

TEST(RepeatMetrics, EmptyHistoryCountsNothing) {
  const RepeatCounts c = count_repeats({});
  EXPECT_EQ(c.frames_stored + c.repeats_stored + c.double_writes, 0);
}

}  // namespace
}  // namespace qdt::sim
