#include <gtest/gtest.h>

#include "properties/checkers.h"
#include "properties/history_builder_test.h"

namespace qdt::properties {
namespace {

using namespace testing;

const std::string kName = "offsets";

std::vector<Failure> check(const history::History& h) { return check_property(kName, h); }

// Two partitions, interleaved; p3 is a duplicate, p4 fails.
HistoryBuilder interleaved() {
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a", "b"});
  b.advance_ms(1).push("p2", "q", "p2", {"a"});
  b.advance_ms(1).push("p3", "q", "p", {"a"});
  b.fail_pushes(1).push("p4", "q", "p", {"c"});
  b.push("p5", "q", "p", {"c", "d", "e"});
  b.push("p6", "q", "p2", {"b"});
  return b;
}

TEST(Offsets, ContiguousFromZeroPerPartition) {
  HistoryBuilder b = interleaved();
  EXPECT_EQ(nth<history::PushEvent>(b.history(), 4).base_offset, 2);
  EXPECT_EQ(nth<history::PushEvent>(b.history(), 5).base_offset, 1);
  EXPECT_TRUE(check_history(b.history()).empty()) << show(check_history(b.history()));
}

TEST(Offsets, QueuedPushThatSkippedAnOffsetFails) {
  HistoryBuilder b = interleaved();
  history::PushEvent& ev = nth<history::PushEvent>(b.history(), 4);
  ev.base_offset += 1;
  ev.last_offset_after += 1;
  const auto failures = check(b.history());
  ASSERT_EQ(failures.size(), 1u) << show(failures);  // reported once, numbering resynchronised
  EXPECT_TRUE(has_failure(failures, kName, "p5", "q/p"));
  EXPECT_TRUE(has_rule(failures, Rule::offsets_gap)) << show(failures);
}

TEST(Offsets, OverlappingPushFails) {
  HistoryBuilder b = interleaved();
  history::PushEvent& ev = nth<history::PushEvent>(b.history(), 5);
  ev.base_offset = 0;
  ev.last_offset_after = 0;
  EXPECT_TRUE(has_failure(check(b.history()), kName, "p6", "q/p2"));
  EXPECT_TRUE(has_rule(check(b.history()), Rule::offsets_overlap)) << show(check(b.history()));
}

TEST(Offsets, CreatedAtGoingBackwardsFails) {
  HistoryBuilder b = interleaved();
  nth<history::PushEvent>(b.history(), 4).now_ms = nth<history::PushEvent>(b.history(), 0).now_ms - 1;
  EXPECT_TRUE(has_failure(check(b.history()), kName, "p5", "q/p"));
  EXPECT_TRUE(has_rule(check(b.history()), Rule::offsets_created_at_decreased)) << show(check(b.history()));
}

TEST(Offsets, LastOffsetThatDisagreesWithTheSegmentFails) {
  HistoryBuilder b = interleaved();
  nth<history::PushEvent>(b.history(), 0).last_offset_after = 0;
  EXPECT_TRUE(has_failure(check(b.history()), kName, "p1", "q/p"));
  EXPECT_TRUE(has_rule(check(b.history()), Rule::offsets_last_offset)) << show(check(b.history()));
}

TEST(Offsets, UnrecordedWriteShowsInTheNextLastOffsetBefore) {
  HistoryBuilder b = interleaved();
  nth<history::PushEvent>(b.history(), 2).last_offset_before = 7;
  EXPECT_TRUE(has_failure(check(b.history()), kName, "p3", "q/p"));
}

TEST(Offsets, AfterInspectionLostToPowerIsNotJudgedButTheNextPushStillIs) {
  // Power lost between the commit and the read after it: the recorder has no
  // last_offset_after, so only the pushes after it can judge the numbering.
  HistoryBuilder b = interleaved();
  history::PushEvent& first = nth<history::PushEvent>(b.history(), 0);
  first.rows_after_read = false;
  first.last_offset_after = first.last_offset_before;
  EXPECT_TRUE(check(b.history()).empty()) << show(check(b.history()));
  nth<history::PushEvent>(b.history(), 2).last_offset_before = 7;  // as if the commit had been lost
  EXPECT_TRUE(has_failure(check(b.history()), kName, "p3", "q/p"));
}

}  // namespace
}  // namespace qdt::properties
