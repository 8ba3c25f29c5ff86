#include <gtest/gtest.h>

#include "properties/checkers.h"
#include "properties/history_builder_test.h"

namespace qdt::properties {
namespace {

using namespace testing;

const std::string kName = "no-double-write";

std::vector<Failure> check(const history::History& h) { return check_property(kName, h); }

TEST(NoDoubleWrite, RepeatAfterTheWindowOrWithWindowZeroIsAllowed) {
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a"}).advance_ms(3600 * 1000 + 1).push("p2", "q", "p", {"a"});
  b.configure("r", 0).push("p3", "r", "p", {"a"}).push("p4", "r", "p", {"a"});
  EXPECT_EQ(nth<history::PushEvent>(b.history(), 1).base_offset, 1);
  EXPECT_TRUE(check_history(b.history()).empty()) << show(check_history(b.history()));
}

TEST(NoDoubleWrite, RepeatAfterThePurgeIsAllowedEvenIfTheWindowWidened) {
  HistoryBuilder b;
  b.configure("q", 60).push("p1", "q", "p", {"a"}).advance_seconds(1000).purge("q", "p");
  b.configure("q", 3600).push("p2", "q", "p", {"a"});
  ASSERT_TRUE(nth<history::PushEvent>(b.history(), 1).queued);
  EXPECT_TRUE(check_history(b.history()).empty()) << show(check_history(b.history()));
}

TEST(NoDoubleWrite, SecondWriteInsideTheWindowFails) {
  HistoryBuilder b;
  b.push("p1", "q", "p", {"x", "a"}).advance_seconds(30).push_unprobed("p2", "q", "p", {"b", "a"});
  const auto failures = check(b.history());
  ASSERT_EQ(failures.size(), 1u) << show(failures);
  EXPECT_TRUE(has_failure(failures, kName, "p2", "q/p"));
  EXPECT_TRUE(has_rule(failures, Rule::no_double_write_stored_inside_window)) << show(failures);
  EXPECT_NE(failures[0].detail.find("offset 1"), std::string::npos) << failures[0].detail;
}

TEST(NoDoubleWrite, WindowEdgeIsInclusive) {
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a"}).advance_ms(3600 * 1000).push_unprobed("p2", "q", "p", {"a"});
  EXPECT_TRUE(has_failure(check(b.history()), kName, "p2", "q/p"));
  HistoryBuilder later;
  later.push("p1", "q", "p", {"a"}).advance_ms(3600 * 1000 + 1).push_unprobed("p2", "q", "p", {"a"});
  EXPECT_TRUE(check(later.history()).empty());
}

TEST(NoDoubleWrite, OtherPartitionDoesNotCount) {
  HistoryBuilder b;
  b.push("p1", "q", "p1", {"a"}).push_unprobed("p2", "q", "p2", {"a"});
  EXPECT_TRUE(check(b.history()).empty());
}

TEST(NoDoubleWrite, OneKeyTwiceInOneSegmentFails) {
  HistoryBuilder b;
  b.push_unprobed("p1", "q", "p", {"a", "a"});
  EXPECT_TRUE(has_failure(check(b.history()), kName, "p1", "q/p"));
  EXPECT_TRUE(has_rule(check(b.history()), Rule::no_double_write_key_twice_in_segment)) << show(check(b.history()));
}

}  // namespace
}  // namespace qdt::properties
