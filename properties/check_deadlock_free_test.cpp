#include <gtest/gtest.h>

#include "properties/checkers.h"
#include "properties/history_builder_test.h"

namespace qdt::properties {
namespace {

using namespace testing;

const std::string kName = "deadlock-free";

std::vector<Failure> check(const history::History& h) { return check_property(kName, h); }

// A push of step p2 that failed whole, as a deadlock victim's or an injected
// fault's would be recorded; returns its event index.
int64_t failed_push(HistoryBuilder& b) {
  b.push("p1", "q", "p", {"a"}).fail_pushes(1).push("p2", "q", "p", {"b"});
  const auto& events = b.history().events;
  for (size_t i = 0; i < events.size(); ++i) {
    const auto* p = std::get_if<history::PushEvent>(&events[i]);
    if (p != nullptr && p->failed) return static_cast<int64_t>(i);
  }
  return -1;
}

TEST(DeadlockFree, CleanHistoryPasses) {
  HistoryBuilder b;
  failed_push(b);
  EXPECT_TRUE(check(b.history()).empty()) << show(check(b.history()));
}

// A statement the fault plan cancelled (PostgreSQL `cancel`, SQLSTATE 57014)
// is a fault, not a deadlock: its push fails with a fault record only.
TEST(DeadlockFree, InjectedCancelPasses) {
  HistoryBuilder b;
  const int64_t event = failed_push(b);
  ASSERT_GE(event, 0);
  auto& push = std::get<history::PushEvent>(b.history().events[static_cast<size_t>(event)]);
  push.fault = {1, 5 /* SQLITE_BUSY, as the gate records a cancel */};
  EXPECT_TRUE(check(b.history()).empty());
}

TEST(DeadlockFree, DeadlockVictimFails) {
  HistoryBuilder b;
  const int64_t event = failed_push(b);
  ASSERT_GE(event, 0);
  b.history().lock_failures.push_back({"broker 1", "push", "", "q", "p", 1000, event, true});
  const auto failures = check(b.history());
  ASSERT_TRUE(has_failure(failures, kName, "p2", "q/p")) << show(failures);
  EXPECT_TRUE(has_rule(failures, Rule::deadlock_free_deadlock)) << show(failures);
  EXPECT_NE(failures[0].detail.find("40P01"), std::string::npos);
  EXPECT_NE(failures[0].detail.find("'broker 1'"), std::string::npos);
  EXPECT_FALSE(check_history(b.history()).empty());
}

TEST(DeadlockFree, LockWaitThatNeverEndedFails) {
  HistoryBuilder b;
  failed_push(b);
  b.history().lock_failures.push_back({"retention", "purge", "", "q", "p", 5000, -1, false});
  const auto failures = check(b.history());
  ASSERT_TRUE(has_failure(failures, kName, "", "q/p")) << show(failures);
  EXPECT_TRUE(has_rule(failures, Rule::deadlock_free_abandoned_wait)) << show(failures);
  EXPECT_NE(failures[0].detail.find("did not end"), std::string::npos);
}

// A call that records no event (a configure) is still named by its queue.
TEST(DeadlockFree, VictimWithoutAnEventFails) {
  HistoryBuilder b;
  b.history().lock_failures.push_back({"admin", "configure", "", "q", "", 0, -1, true});
  EXPECT_TRUE(has_failure(check(b.history()), kName, "", "q"));
}

}  // namespace
}  // namespace qdt::properties
