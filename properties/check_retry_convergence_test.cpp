#include <gtest/gtest.h>

#include "properties/checkers.h"
#include "properties/history_builder_test.h"

namespace qdt::properties {
namespace {

using namespace testing;

const std::string kName = "retry-convergence";

std::vector<Failure> check(const history::History& h) { return check_property(kName, h); }

TEST(RetryConvergence, RetriesAnswerTheFirstAttemptsId) {
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a", "b"}).lose_response().advance_seconds(5).retry("p1");  // attempt 1: duplicate
  b.push_lost("p2", {{"q", "p", "c"}}).advance_seconds(5).retry("p2");                // attempt 0 never arrived
  b.push("p3", "q", "p", {"d"}).advance_seconds(1).retry("p3");                       // both answers received
  history::History& h = b.history();
  ASSERT_EQ(h.requests.size(), 6u);
  EXPECT_FALSE(h.requests[0].response_received);
  EXPECT_EQ(h.requests[1].push_id, h.requests[0].push_id);
  EXPECT_EQ(h.requests[1].attempt, 1u);
  EXPECT_EQ(h.requests[1].responses[0].status, "duplicate");
  EXPECT_EQ(h.requests[1].responses[0].message_id, h.requests[0].responses[0].message_id);
  EXPECT_EQ(h.requests[3].responses[0].status, "queued");
  EXPECT_EQ(h.requests[5].responses[0].message_id, h.requests[4].responses[0].message_id);
  EXPECT_TRUE(check_history(h).empty()) << show(check_history(h));
}

TEST(RetryConvergence, ZeroIdsAndErrorsAreIgnored) {
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a"}).delete_segment("q", "p", 0).retry("p1");  // duplicate with the zero id
  b.push("p2", "q", "p", {"b"}).fail_pushes(1).retry("p2");               // error
  history::History& h = b.history();
  EXPECT_EQ(h.requests[1].responses[0].message_id, history::kZeroUuid);
  EXPECT_EQ(h.requests[3].responses[0].status, "error");
  EXPECT_TRUE(check_history(h).empty()) << show(check_history(h));
}

TEST(RetryConvergence, NewIdsAreFineWhereStorageMayWriteAgain) {
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a"}).advance_ms(3600 * 1000 + 1).retry("p1");  // after the window
  b.configure("r", 0).push("p2", "r", "p", {"a"}).retry("p2");            // window 0
  b.configure("s", 60).push("p3", "s", "p", {"a"}).advance_seconds(1000).purge("s", "p");
  b.configure("s", 3600).retry("p3");  // purged, though inside the widened window
  history::History& h = b.history();
  EXPECT_NE(h.requests[1].responses[0].message_id, h.requests[0].responses[0].message_id);
  EXPECT_EQ(h.requests[1].responses[0].status, "queued");
  EXPECT_EQ(h.requests[5].responses[0].status, "queued");
  EXPECT_TRUE(check_history(h).empty()) << show(check_history(h));
}

TEST(RetryConvergence, RetryAnsweringAnotherIdFails) {
  HistoryBuilder b;
  b.push("p1", "q", "p", {"x", "a"}).advance_seconds(1).retry("p1");
  b.history().requests[1].responses[1].message_id = "m-fresh";
  const auto failures = check(b.history());
  ASSERT_EQ(failures.size(), 1u) << show(failures);
  EXPECT_TRUE(has_failure(failures, kName, "p1", "q/p"));
  EXPECT_TRUE(has_rule(failures, Rule::retry_convergence_ids_diverged)) << show(failures);
  EXPECT_NE(failures[0].detail.find("m-fresh"), std::string::npos) << failures[0].detail;
}

TEST(RetryConvergence, RetryAnsweringTheIdOfAnotherKeyFails) {
  HistoryBuilder b;
  b.push("p1", "q", "p", {"x", "a"}).advance_seconds(1).retry("p1");
  history::History& h = b.history();
  h.requests[1].responses[1].message_id = h.requests[0].responses[0].message_id;  // x's id for a
  EXPECT_TRUE(has_failure(check(h), kName, "p1", "q/p")) << show(check(h));
}

TEST(RetryConvergence, OnlyResponsesTheProducerReceivedCount) {
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a"}).advance_seconds(1).retry("p1").lose_response();
  b.history().requests[1].responses[0].message_id = "m-fresh";
  EXPECT_TRUE(check(b.history()).empty()) << show(check(b.history()));
  b.history().requests[1].response_received = true;
  EXPECT_TRUE(has_failure(check(b.history()), kName, "p1", "q/p"));
}

TEST(RetryConvergence, TwoStoredCopiesOfOnePushInsideTheWindowFail) {
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a"}).advance_seconds(30).push_unprobed("p1", "q", "p", {"b", "a"});
  history::History& h = b.history();
  h.requests[1].push_id = h.requests[0].push_id;  // the unprobed write was p1's retry
  h.requests[1].attempt = 1;
  h.requests[1].items.erase(h.requests[1].items.begin());  // the retry resends only "a"
  h.requests[1].responses.erase(h.requests[1].responses.begin());
  const auto failures = check(h);
  EXPECT_TRUE(has_failure(failures, kName, "p1", "q/p")) << show(failures);
  EXPECT_TRUE(has_rule(failures, Rule::retry_convergence_stored_again)) << show(failures);
  bool storage_level = false;
  for (const Failure& f : failures) storage_level |= f.detail.find("stored at offset 2") != std::string::npos;
  EXPECT_TRUE(storage_level) << show(failures);
}

TEST(RetryConvergence, StoredCopiesOfOtherPushesOrAfterTheWindowDoNotCount) {
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a"}).advance_seconds(30).push_unprobed("p2", "q", "p", {"a"});  // another push
  EXPECT_TRUE(check(b.history()).empty());
  HistoryBuilder later;
  later.push("p1", "q", "p", {"a"}).advance_ms(3600 * 1000 + 1).push_unprobed("p1", "q", "p", {"a"});
  history::History& h = later.history();
  h.requests[1].push_id = h.requests[0].push_id;
  h.requests[1].attempt = 1;
  EXPECT_TRUE(check(h).empty()) << show(check(h));
}

TEST(RetryConvergence, TwoCopiesOfOnePushInOneSegmentFail) {
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a"}).redeliver("p1").advance_seconds(1).push_unprobed("p2", "q", "p", {"b"});
  history::History& h = b.history();
  // As if the broker had fused both deliveries' frames of "a" into p2's segment.
  history::PushEvent& ev = nth<history::PushEvent>(h, 2);
  ev.frames = {{"m-x", "z", h.requests[0].request}, {"m-y", "z", h.requests[1].request}};
  const auto failures = check(h);
  ASSERT_EQ(failures.size(), 1u) << show(failures);
  EXPECT_TRUE(has_failure(failures, kName, "p1", "q/p"));
  EXPECT_TRUE(has_rule(failures, Rule::retry_convergence_key_twice_in_segment)) << show(failures);
  EXPECT_NE(failures[0].detail.find("in one segment"), std::string::npos) << failures[0].detail;
}

}  // namespace
}  // namespace qdt::properties
