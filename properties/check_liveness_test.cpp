#include <gtest/gtest.h>

#include "properties/checkers.h"
#include "properties/history_builder_test.h"

namespace qdt::properties {
namespace {

using namespace testing;

const std::string kName = "liveness";

std::vector<Failure> check(const history::History& h) { return check_property(kName, h); }

HistoryBuilder retried() {
  HistoryBuilder b;
  b.push_lost("p1", {{"q", "p", "a"}, {"q", "p", "b"}}).retry("p1").lose_response().retry("p1");
  b.push("p2", "q", "p", {"c"}).lose_response();  // the producer timed out
  return b;
}

TEST(Liveness, FinishedPushesAndTimeoutsPass) {
  HistoryBuilder b = retried();
  const history::History& h = b.history();
  ASSERT_EQ(h.outcomes.size(), 2u);
  EXPECT_EQ(h.outcomes[0].attempts, 3u);
  EXPECT_EQ(h.outcomes[1].statuses, (std::vector<std::string>{"timeout"}));
  EXPECT_TRUE(check_history(h).empty()) << show(check_history(h));
}

TEST(Liveness, PushStillWaitingAtTheEndFails) {
  HistoryBuilder b = retried();
  b.history().outcomes[1].finished = false;
  const auto failures = check(b.history());
  ASSERT_TRUE(has_failure(failures, kName, "p2", "q/p")) << show(failures);
  EXPECT_TRUE(has_rule(failures, Rule::liveness_still_waiting)) << show(failures);
  EXPECT_NE(failures[0].detail.find("still waiting"), std::string::npos);
}

// A lane nobody wakes (a broker that forgot its waiters in a crash): the
// world breaks the stall and records it, and liveness fails the run.
TEST(Liveness, AStalledRunFails) {
  HistoryBuilder b = retried();
  b.history().stalls.push_back({120989, 0, 3});
  const auto failures = check(b.history());
  ASSERT_EQ(failures.size(), 1u) << show(failures);
  EXPECT_EQ(failures[0].detail,
            "the run stalled at 120989 ms: 3 requests waited in broker 0's fusion lanes (where requests wait to share "
            "one flush) for a wake nobody would send (every fiber waited, no timer was pending); they were ended as "
            "lost to finish the run");
  EXPECT_TRUE(has_rule(failures, Rule::liveness_stalled)) << show(failures);
}

TEST(Liveness, TwoOutcomesOfOnePushFail) {
  HistoryBuilder b = retried();
  b.history().outcomes.push_back(b.history().outcomes[1]);
  const auto failures = check(b.history());
  ASSERT_TRUE(has_failure(failures, kName, "p2", "")) << show(failures);
  EXPECT_TRUE(has_rule(failures, Rule::liveness_two_outcomes)) << show(failures);
}

TEST(Liveness, PushWithoutAnOutcomeFails) {
  HistoryBuilder b = retried();
  b.history().outcomes.erase(b.history().outcomes.begin());
  EXPECT_TRUE(has_failure(check(b.history()), kName, "p1", "q/p"));  // named by its first delivered attempt
  EXPECT_TRUE(has_rule(check(b.history()), Rule::liveness_no_outcome)) << show(check(b.history()));
}

TEST(Liveness, OutcomeMissingAnItemsStatusFails) {
  HistoryBuilder b = retried();
  b.history().outcomes[0].statuses.pop_back();
  EXPECT_TRUE(has_failure(check(b.history()), kName, "p1", "q/p"));
}

TEST(Liveness, OutcomeThatIsNotFinalFails) {
  HistoryBuilder b = retried();
  b.history().outcomes[0].statuses[0] = "pending";
  EXPECT_TRUE(has_failure(check(b.history()), kName, "p1", "q/p"));
  EXPECT_TRUE(has_rule(check(b.history()), Rule::liveness_item_not_final)) << show(check(b.history()));
}

TEST(Liveness, OutcomesAreSkippedWhenNotRecorded) {
  HistoryBuilder b = retried();
  b.history().outcomes.clear();
  b.history().recorded_outcomes = false;
  EXPECT_TRUE(check(b.history()).empty());
}

TEST(Liveness, DeliveredRequestWithoutResponsesFails) {
  HistoryBuilder b = retried();
  history::RequestRecord& r = request(b.history(), "p2");
  r.responses.clear();  // the broker never answered, yet did not crash
  const auto failures = check(b.history());
  ASSERT_TRUE(has_failure(failures, kName, "p2", "q/p")) << show(failures);
  EXPECT_TRUE(has_rule(failures, Rule::liveness_response_missing_items)) << show(failures);
  r.lost_in_crash = true;  // a crash excuses it
  EXPECT_TRUE(check(b.history()).empty()) << show(check(b.history()));
}

// A first attempt lost in a broker crash carries no items; the retry that was
// answered says how many the push has (found by replaying crash-after-commit).
TEST(Liveness, AttemptLostInACrashDoesNotDecideTheItemCount) {
  HistoryBuilder b = retried();
  history::RequestRecord lost = request(b.history(), "p2");
  lost.request = 9999;
  lost.items.clear();
  lost.responses.clear();
  lost.lost_in_crash = true;
  b.history().requests.insert(b.history().requests.begin(), lost);
  EXPECT_TRUE(check(b.history()).empty()) << show(check(b.history()));
  b.history().outcomes[1].statuses.clear();  // still caught when the outcome really lacks the item
  EXPECT_TRUE(has_failure(check(b.history()), kName, "p2", "q/p"));
}

TEST(Liveness, TransactionOpenAtTheEndFails) {
  HistoryBuilder b = retried();
  b.history().open_transactions_at_end = {"retention"};
  const auto failures = check(b.history());
  ASSERT_TRUE(has_failure(failures, kName, "", "")) << show(failures);
  EXPECT_TRUE(has_rule(failures, Rule::liveness_lock_held_at_end)) << show(failures);
  EXPECT_NE(failures[0].detail.find("'retention'"), std::string::npos);
}

}  // namespace
}  // namespace qdt::properties
