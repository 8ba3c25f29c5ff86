#include <gtest/gtest.h>

#include "properties/checkers.h"
#include "properties/history_builder_test.h"

namespace qdt::properties {
namespace {

using namespace testing;

const std::string kName = "no-false-duplicate";

std::vector<Failure> check(const history::History& h) { return check_property(kName, h); }

// Turns the n-th push (a queued one) into a duplicate of `offset` for frame 0.
void make_duplicate(history::History& h, size_t n, int64_t offset) {
  history::PushEvent& ev = nth<history::PushEvent>(h, n);
  ev.queued = false;
  ev.base_offset = -1;
  ev.duplicates = {{0, offset}};
}

TEST(NoFalseDuplicate, DuplicatesWithAnInWindowOriginalPass) {
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a", "b"});
  b.advance_ms(3600 * 1000).push("p2", "q", "p", {"c", "b"});  // exactly on the window edge
  b.delete_segment("q", "p", 0).push("p3", "q", "p", {"a"});   // a deleted segment still counts
  ASSERT_EQ(nth_duplicate_push(b.history(), 0).duplicates.size(), 1u);
  ASSERT_EQ(nth_duplicate_push(b.history(), 1).duplicates.size(), 1u);
  EXPECT_TRUE(check_history(b.history()).empty()) << show(check_history(b.history()));
}

TEST(NoFalseDuplicate, DuplicateOfAnotherKeyFails) {
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a", "b"}).push("p2", "q", "p", {"b"});
  nth_duplicate_push(b.history()).duplicates[0].second = 0;  // offset 0 holds "a"
  const auto failures = check(b.history());
  EXPECT_TRUE(has_failure(failures, kName, "p2", "q/p")) << show(failures);
  EXPECT_TRUE(has_rule(failures, Rule::no_false_duplicate_original_other_key)) << show(failures);
}

TEST(NoFalseDuplicate, DuplicateOfAnOriginalOutsideTheWindowFails) {
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a"}).advance_seconds(10).push("p2", "q", "p", {"a"});
  nth_duplicate_push(b.history()).now_ms += 3600 * 1000 - 10 * 1000 + 1;  // 1 ms past the edge
  EXPECT_TRUE(has_failure(check(b.history()), kName, "p2", "q/p"));
  EXPECT_TRUE(has_rule(check(b.history()), Rule::no_false_duplicate_original_expired)) << show(check(b.history()));
}

TEST(NoFalseDuplicate, DuplicateOfAPurgedOriginalFails) {
  HistoryBuilder b;
  b.configure("q", 60).push("p1", "q", "p", {"a"}).advance_seconds(1000).purge("q", "p");
  b.configure("q", 3600).push("p2", "q", "p", {"a"});
  make_duplicate(b.history(), 1, 0);
  EXPECT_TRUE(has_failure(check(b.history()), kName, "p2", "q/p"));
  EXPECT_TRUE(has_rule(check(b.history()), Rule::no_false_duplicate_original_purged)) << show(check(b.history()));
}

TEST(NoFalseDuplicate, DuplicateWithTheWindowOffFails) {
  HistoryBuilder b;
  b.configure("q", 0).push("p1", "q", "p", {"a"}).push("p2", "q", "p", {"a"});
  make_duplicate(b.history(), 1, 0);
  EXPECT_TRUE(has_failure(check(b.history()), kName, "p2", "q/p"));
  EXPECT_TRUE(has_rule(check(b.history()), Rule::no_false_duplicate_dedup_off)) << show(check(b.history()));
}

TEST(NoFalseDuplicate, DuplicateOfAnOffsetNotYetWrittenFails) {
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a"});
  make_duplicate(b.history(), 0, 0);  // its own offset: not committed before the probe
  EXPECT_TRUE(has_failure(check(b.history()), kName, "p1", "q/p"));
  EXPECT_TRUE(has_rule(check(b.history()), Rule::no_false_duplicate_original_missing)) << show(check(b.history()));
}

TEST(NoFalseDuplicate, DuplicateOfAnotherPartitionsOffsetFails) {
  HistoryBuilder b;
  b.push("p1", "q", "p1", {"a"}).push("p2", "q", "p2", {"a"});
  make_duplicate(b.history(), 1, 0);
  EXPECT_TRUE(has_failure(check(b.history()), kName, "p2", "q/p2"));
}

TEST(NoFalseDuplicate, DuplicateOfAFrameThePushDidNotSendFails) {
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a"}).push("p2", "q", "p", {"a"});
  nth_duplicate_push(b.history()).duplicates[0].first = 3;
  const auto failures = check(b.history());
  ASSERT_TRUE(has_rule(failures, Rule::no_false_duplicate_frame_out_of_range)) << show(failures);
  EXPECT_EQ(failures[0].expected, "a frame below 1");
  EXPECT_EQ(failures[0].actual, "frame 3");
}

TEST(NoFalseDuplicate, DuplicateNamingNoOriginalFails) {
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a"}).push("p2", "q", "p", {"b"});
  make_duplicate(b.history(), 1, 0);
  nth<history::PushEvent>(b.history(), 1).duplicates.clear();
  EXPECT_TRUE(has_failure(check(b.history()), kName, "p2", "q/p"));
  EXPECT_TRUE(has_rule(check(b.history()), Rule::no_false_duplicate_no_original_named)) << show(check(b.history()));
}

}  // namespace
}  // namespace qdt::properties
