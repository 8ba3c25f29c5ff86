#include <gtest/gtest.h>

#include "properties/checkers.h"
#include "properties/history_builder_test.h"

namespace qdt::properties {
namespace {

using namespace testing;

const std::string kName = "client-visible";

std::vector<Failure> check(const history::History& h) { return check_property(kName, h); }


// A request the broker answered without any storage event behind it.
history::RequestRecord answered(history::History& h, const std::string& step, const std::string& txn,
                                const std::string& status, const std::string& id, int64_t at_ms) {
  history::RequestRecord r;
  r.request = 900 + h.requests.size();
  r.step = step;
  r.producer = "producer";
  r.push_id = r.request;
  r.items = {{"q", "p", txn}};
  r.responses = {{status, id, txn, "q"}};
  r.received_at_ms = at_ms;
  r.answered_at_ms = at_ms;
  return r;
}

TEST(ClientVisible, SkippedWithoutFinalReads) {
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a"});
  history::History& h = b.history();
  h.final_reads.clear();
  EXPECT_FALSE(check(h).empty());
  h.recorded_final_reads = false;
  EXPECT_TRUE(check(h).empty());
}

TEST(ClientVisible, QueuedItemMissingFromTheFinalReadFails) {
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a", "b"});
  history::History& h = b.history();
  h.final_reads[0].messages.pop_back();
  const auto failures = check(h);
  ASSERT_TRUE(has_failure(failures, kName, "p1", "q/p")) << show(failures);
  EXPECT_TRUE(has_rule(failures, Rule::client_visible_queued_not_readable)) << show(failures);
  EXPECT_TRUE(detail_has(failures, "txn b")) << show(failures);
}

// A PostgreSQL backend ended before the push's COMMIT: the server rolled it
// back, and an engine that answered success anyway is caught.
TEST(ClientVisible, QueuedAnswerAfterACommitThatFoundItsBackendEndedFails) {
  HistoryBuilder b;
  b.fail_pushes(1).push("p1", "q", "p", {"a"});
  history::History& h = b.history();
  ASSERT_TRUE(check(h).empty()) << show(check(h));  // answered error: nothing to see
  history::PushEvent* failed = nullptr;
  for (history::Event& e : h.events) {
    if (auto* push = std::get_if<history::PushEvent>(&e)) failed = push;
  }
  ASSERT_NE(failed, nullptr);
  ASSERT_TRUE(failed->failed);
  failed->fault = {2, 10};  // COMMIT, the connection found closed (SQLITE_IOERR)
  ASSERT_EQ(h.requests.size(), 1u);
  ASSERT_EQ(h.requests[0].responses.size(), 1u);
  h.requests[0].responses[0].status = "queued";
  h.requests[0].responses[0].message_id = "m-wrongly-answered";
  const auto failures = check(h);
  EXPECT_TRUE(has_failure(failures, kName, "p1", "q/p")) << show(failures);
  EXPECT_TRUE(detail_has(failures, "txn a")) << show(failures);
}

TEST(ClientVisible, QueuedItemReadWithAnotherKeyFails) {
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a"});
  b.history().final_reads[0].messages[0].transaction_id = "z";
  const auto failures = check(b.history());
  EXPECT_TRUE(detail_has(failures, "with txn z")) << show(failures);
  ASSERT_TRUE(has_rule(failures, Rule::client_visible_queued_id_holds_other_key)) << show(failures);
  EXPECT_EQ(failures[0].expected, "txn a");
  EXPECT_EQ(failures[0].actual, "txn z");
}

TEST(ClientVisible, RetentionAndFaultsExcuseAMissingItemOnlyWhenTheModelSaysGone) {
  HistoryBuilder b;
  b.configure("q", 3600, 0, 100).push("p1", "q", "p", {"a"}).advance_seconds(101).retention("q");
  b.push("p2", "q", "p", {"b"}).delete_segment("q", "p", 1).advance_ms(1).push("p3", "q", "p", {"c"});
  EXPECT_TRUE(check_history(b.history()).empty()) << show(check_history(b.history()));
  // A pass at half the retention age cannot have removed c.
  b.advance_seconds(50).retention("q");
  b.history().final_reads[0].messages.clear();
  const auto failures = check(b.history());
  EXPECT_TRUE(has_failure(failures, kName, "p3", "q/p")) << show(failures);
  EXPECT_FALSE(has_failure(failures, kName, "p1", "q/p")) << show(failures);
  EXPECT_FALSE(has_failure(failures, kName, "p2", "q/p")) << show(failures);
}

TEST(ClientVisible, CompletedRetentionExcusesOnlyAckedItems) {
  HistoryBuilder b;
  b.configure("q", 3600, 10).push("p1", "q", "p", {"a"}).advance_seconds(1).push("p2", "q", "p", {"b"});
  b.ack("k1", "q", "p", "a").advance_seconds(11).retention("q");
  EXPECT_TRUE(check(b.history()).empty()) << show(check(b.history()));
  // b too, though it was never acked and was received after a was answered
  // (a larger offset: a's ack cannot have committed it).
  b.history().final_reads[0].messages.clear();
  const auto failures = check(b.history());
  EXPECT_TRUE(has_failure(failures, kName, "p2", "q/p")) << show(failures);
  EXPECT_FALSE(has_failure(failures, kName, "p1", "q/p")) << show(failures);
}

TEST(ClientVisible, AnAckOfALaterMessageCompletesTheEarlierOnes) {
  HistoryBuilder b;
  b.configure("q", 3600, 10).push("p1", "q", "p", {"a"}).advance_seconds(1).push("p2", "q", "p", {"b"});
  b.ack("k1", "q", "p", "b").advance_seconds(11).retention("q");
  b.history().final_reads[0].messages.clear();  // a went with b: acks commit cumulatively
  const auto failures = check(b.history());
  EXPECT_FALSE(has_failure(failures, kName, "p1", "q/p")) << show(failures);
  EXPECT_FALSE(has_failure(failures, kName, "p2", "q/p")) << show(failures);
}

TEST(ClientVisible, AnAckOfALaterFrameOfTheSameRequestCompletesTheEarlierOnes) {
  HistoryBuilder b;
  b.configure("q", 3600, 10).push("p1", "q", "p", {"a", "b"});
  b.ack("k1", "q", "p", "b").advance_seconds(11).retention("q");
  b.history().final_reads[0].messages.clear();
  const auto failures = check(b.history());
  EXPECT_FALSE(has_failure(failures, kName, "p1", "q/p")) << show(failures);
}

TEST(ClientVisible, LostWriteAnsweredDuplicateFails) {
  HistoryBuilder b;
  b.push("p0", "q", "p", {"x"});
  history::History& h = b.history();
  h.requests.push_back(answered(h, "p1", "a", "duplicate", history::kZeroUuid, b.now_ms()));
  h.requests.push_back(answered(h, "p2", "c", "duplicate", "m-never", b.now_ms()));
  const auto failures = check(h);
  ASSERT_TRUE(has_failure(failures, kName, "p1", "q/p")) << show(failures);
  EXPECT_TRUE(detail_has(failures, "a lost write")) << show(failures);
  EXPECT_TRUE(has_failure(failures, kName, "p2", "q/p")) << show(failures);
}

TEST(ClientVisible, DuplicateNamingAnIdNobodyWasAnsweredFails) {
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a"}).push("p2", "q", "p", {"a"});
  EXPECT_TRUE(check(b.history()).empty());
  request(b.history(), "p2").responses[0].message_id = "m-nobody";
  const auto failures = check(b.history());
  ASSERT_TRUE(has_failure(failures, kName, "p2", "q/p")) << show(failures);
  EXPECT_TRUE(has_rule(failures, Rule::client_visible_duplicate_id_unknown)) << show(failures);
  EXPECT_TRUE(detail_has(failures, "no producer was answered queued and no read shows")) << show(failures);
}

TEST(ClientVisible, DuplicateNamingAnotherKeysIdFails) {
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a", "b"}).push("p2", "q", "p", {"a"});
  request(b.history(), "p2").responses[0].message_id = request(b.history(), "p1").responses[1].message_id;
  EXPECT_TRUE(has_failure(check(b.history()), kName, "p2", "q/p"));
  EXPECT_TRUE(has_rule(check(b.history()), Rule::client_visible_duplicate_names_no_original));
}

TEST(ClientVisible, DuplicateNamingAnOriginalOutsideEveryWindowFails) {
  HistoryBuilder b;
  b.configure("q", 60).push("p1", "q", "p", {"a"}).advance_seconds(61).push("p2", "q", "p", {"a"});
  b.push("p3", "q", "p", {"a"});
  ASSERT_EQ(request(b.history(), "p2").responses[0].status, "queued");
  request(b.history(), "p3").responses[0].message_id = request(b.history(), "p1").responses[0].message_id;
  EXPECT_TRUE(has_failure(check(b.history()), kName, "p3", "q/p")) << show(check(b.history()));
}

TEST(ClientVisible, ZeroIdNeedsAnUnreadableOriginal) {
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a"}).delete_segment("q", "p", 0).push("p2", "q", "p", {"a"});  // zero: gone
  b.push("p3", "q", "p", {"b"}).fail(Txn::fetch).push("p4", "q", "p", {"b"});             // zero: fetch failed
  EXPECT_EQ(request(b.history(), "p2").responses[0].message_id, history::kZeroUuid);
  EXPECT_TRUE(check(b.history()).empty()) << show(check(b.history()));
  b.push("p5", "q", "p", {"c"}).push("p6", "q", "p", {"c"});
  request(b.history(), "p6").responses[0].message_id = history::kZeroUuid;
  b.history().events.erase(  // without the fetch fault on the partition, c's original is readable
      std::remove_if(b.history().events.begin(), b.history().events.end(),
                     [](const history::Event& e) {
                       const auto* f = std::get_if<history::FetchEvent>(&e);
                       return f != nullptr && f->failed;
                     }),
      b.history().events.end());
  const auto failures = check(b.history());
  EXPECT_TRUE(has_failure(failures, kName, "p6", "q/p")) << show(failures);
  EXPECT_TRUE(has_rule(failures, Rule::client_visible_zero_id_unexplained)) << show(failures);
  EXPECT_TRUE(detail_has(failures, "still readable")) << show(failures);
}

TEST(ClientVisible, KeyReadableTwiceInsideTheWindowFails) {
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a"}).advance_seconds(10).push_unprobed("p2", "q", "p", {"a"});
  const auto failures = check(b.history());
  ASSERT_TRUE(has_failure(failures, kName, "p2", "q/p")) << show(failures);
  EXPECT_TRUE(has_rule(failures, Rule::client_visible_readable_twice)) << show(failures);
  EXPECT_TRUE(detail_has(failures, "readable twice: offset 0")) << show(failures);
  EXPECT_TRUE(detail_has(failures, "10000 ms apart")) << show(failures);
}

TEST(ClientVisible, KeyReadableTwiceAfterTheWindowOrWithItOffPasses) {
  HistoryBuilder b;
  b.configure("q", 60).push("p1", "q", "p", {"a"}).advance_seconds(61).push("p2", "q", "p", {"a"});
  b.configure("q", 0).push("p3", "q", "p", {"a"}).configure("q", 3600);
  // Purged at window 60 (floor 900), then widened: storage rightly writes it again.
  b.configure("r", 60).push("p4", "r", "p", {"a"}).advance_seconds(901).purge("r", "p");
  b.configure("r", 3600).push("p5", "r", "p", {"a"});
  EXPECT_EQ(request(b.history(), "p5").responses[0].status, "queued");
  EXPECT_TRUE(check_history(b.history()).empty()) << show(check_history(b.history()));
}

TEST(ClientVisible, CopiesNoClientSawCommitAreNotJudged) {
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a"}).advance_seconds(10).push_unprobed("p2", "q", "p", {"a"});
  request(b.history(), "p2").lost_in_crash = true;  // its commit was never answered
  request(b.history(), "p2").responses.clear();
  EXPECT_TRUE(check(b.history()).empty()) << show(check(b.history()));
}

TEST(ClientVisible, FollowerRecordNamingNoRecordedDeliveryFails) {
  HistoryBuilder b;
  b.fuse({{"p1", {{"q", "p", "a"}}}, {"p2", {{"q", "p", "a"}}}});
  EXPECT_TRUE(check(b.history()).empty()) << show(check(b.history()));
  nth<history::PushEvent>(b.history()).followers[0].request = 77;
  const auto failures = check(b.history());
  ASSERT_TRUE(has_failure(failures, kName, "", "q/p")) << show(failures);
  EXPECT_TRUE(has_rule(failures, Rule::client_visible_follower_record)) << show(failures);
  EXPECT_TRUE(detail_has(failures, "names no recorded delivery")) << show(failures);
  nth<history::PushEvent>(b.history()).followers[0] = {2, "a", 3};
  EXPECT_TRUE(detail_has(check(b.history()), "which no recorded delivery of that key produced"));
}

}  // namespace
}  // namespace qdt::properties
