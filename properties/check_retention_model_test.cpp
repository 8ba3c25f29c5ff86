#include <gtest/gtest.h>

#include "properties/checkers.h"
#include "properties/history_builder_test.h"

namespace qdt::properties {
namespace {

using namespace testing;

const std::string kName = "retention-model";

std::vector<Failure> check(const history::History& h) { return check_property(kName, h); }


TEST(RetentionModel, PassesAndBatchedPurgesThatFollowTheModelPass) {
  HistoryBuilder b;
  b.configure("q", 60, 0, 100);
  b.push("p1", "q", "p", {"a"}).advance_seconds(10).push("p2", "q", "p", {"b"}).push("p3", "q", "p", {"c"});
  b.advance_seconds(95).retention("q");  // p1 is 105 s old, p2 and p3 95 s: only p1 goes
  b.advance_seconds(10).retention("q");  // now p2 and p3
  b.advance_seconds(1000).purge("q", "p", 2).purge("q", "p", 2);
  history::History& h = b.history();
  EXPECT_EQ(nth<history::RetentionEvent>(h, 0).deleted.size(), 1u);
  EXPECT_EQ(nth<history::RetentionEvent>(h, 1).deleted.size(), 2u);
  EXPECT_TRUE(nth<history::PurgeEvent>(h, 0).more);
  EXPECT_EQ(nth<history::PurgeEvent>(h, 1).rows.size(), 1u);
  EXPECT_FALSE(nth<history::PurgeEvent>(h, 1).more);
  EXPECT_EQ(nth<history::PurgeEvent>(h, 1).txns_start_after, 3);
  EXPECT_TRUE(check_history(h).empty()) << show(check_history(h));
}

TEST(RetentionModel, DeletingAOneMillisecondOldSegmentWithRetentionOffFails) {
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a"}).advance_ms(1).retention("q");
  history::RetentionEvent& pass = nth<history::RetentionEvent>(b.history());
  ASSERT_TRUE(pass.deleted.empty());
  pass.deleted.push_back({0, 0, 1'000'000});
  const auto failures = check(b.history());
  EXPECT_TRUE(has_failure(failures, kName, "", "q/p")) << show(failures);
  EXPECT_TRUE(detail_has(failures, "retention event 1 (at 1000001 ms) deleted segment [0, 0] early")) << show(failures);
  EXPECT_TRUE(detail_has(failures, "retentionSeconds 0")) << show(failures);
}

TEST(RetentionModel, DeletingAtHalfTheRetentionAgeFails) {
  HistoryBuilder b;
  b.configure("q", 3600, 0, 100).push("p1", "q", "p", {"a"}).advance_seconds(50).retention("q");
  nth<history::RetentionEvent>(b.history()).deleted.push_back({0, 0, 1'000'000});
  const auto failures = check(b.history());
  EXPECT_TRUE(has_failure(failures, kName, "", "q/p")) << show(failures);
  EXPECT_TRUE(has_rule(failures, Rule::retention_model_deleted_early)) << show(failures);
  EXPECT_TRUE(detail_has(failures, "50000 ms old")) << show(failures);
}

TEST(RetentionModel, CompletedRetentionDeletesOnlyCommittedSegments) {
  HistoryBuilder b;
  b.configure("q", 3600, 10).push("p1", "q", "p", {"a"}).push("p2", "q", "p", {"b"});
  b.ack("k1", "q", "p", "a").advance_seconds(11).retention("q");
  history::RetentionEvent& pass = nth<history::RetentionEvent>(b.history());
  ASSERT_EQ(pass.deleted.size(), 1u);
  EXPECT_EQ(pass.deleted[0].base_offset, 0);
  EXPECT_TRUE(check_history(b.history()).empty()) << show(check_history(b.history()));
  pass.deleted.push_back({1, 1, 1'000'000});  // b was never acknowledged
  const auto failures = check(b.history());
  EXPECT_TRUE(has_failure(failures, kName, "", "q/p")) << show(failures);
  EXPECT_TRUE(detail_has(failures, "not at or below every consumer group's committed offset")) << show(failures);
}

TEST(RetentionModel, AnAckOfALaterOffsetCompletesTheEarlierOnes) {
  HistoryBuilder b;
  b.configure("q", 3600, 10).push("p1", "q", "p", {"a"}).push("p2", "q", "p", {"b"}).push("p3", "q", "p", {"c"});
  b.ack("k1", "q", "p", "b").advance_seconds(11).retention("q");
  history::RetentionEvent& pass = nth<history::RetentionEvent>(b.history());
  ASSERT_EQ(pass.deleted.size(), 2u);  // a was never acked: b's ack committed it
  EXPECT_TRUE(check_history(b.history()).empty()) << show(check_history(b.history()));
  pass.deleted.pop_back();  // storage that keeps b although its group committed it
  const auto failures = check(b.history());
  EXPECT_TRUE(detail_has(failures, "left segment [1, 1]")) << show(failures);
}

TEST(RetentionModel, LeavingADueSegmentBehindFails) {
  HistoryBuilder b;
  b.configure("q", 3600, 0, 10).push("p1", "q", "p", {"a"}).advance_seconds(11).retention("q");
  nth<history::RetentionEvent>(b.history()).deleted.clear();
  const auto failures = check(b.history());
  EXPECT_TRUE(has_failure(failures, kName, "", "q/p")) << show(failures);
  EXPECT_TRUE(has_rule(failures, Rule::retention_model_left_behind)) << show(failures);
  EXPECT_TRUE(detail_has(failures, "left segment [0, 0] created at 1000000 ms behind")) << show(failures);
}

TEST(RetentionModel, FailedPassThatDeletedFails) {
  HistoryBuilder b;
  b.configure("q", 3600, 0, 10).push("p1", "q", "p", {"a"}).advance_seconds(11).fail(Txn::retention).retention("q");
  history::RetentionEvent& pass = nth<history::RetentionEvent>(b.history());
  EXPECT_TRUE(check(b.history()).empty());  // a failed pass leaves the due segment: not a finding
  pass.deleted.push_back({0, 0, 1'000'000});
  EXPECT_TRUE(detail_has(check(b.history()), "failed but deleted")) << show(check(b.history()));
}

TEST(RetentionModel, PurgePastTheFloorThatRemovesNothingFails) {
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a"}).advance_seconds(3601).purge("q", "p");
  history::PurgeEvent& purge = nth<history::PurgeEvent>(b.history());
  ASSERT_EQ(purge.rows.size(), 1u);
  purge.rows.clear();
  purge.txns_start_after = 0;
  const auto failures = check(b.history());
  EXPECT_TRUE(has_failure(failures, kName, "", "q/p")) << show(failures);
  EXPECT_TRUE(has_rule(failures, Rule::retention_model_purge_left_rows)) << show(failures);
  EXPECT_TRUE(detail_has(failures, "left rows the model removes in this step: [0, 0]")) << show(failures);
}

TEST(RetentionModel, PurgeOfMoreThanItsBatchFails) {
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a"}).push("p2", "q", "p", {"b"}).push("p3", "q", "p", {"c"});
  b.advance_seconds(3601).purge("q", "p", 2);
  history::PurgeEvent& purge = nth<history::PurgeEvent>(b.history());
  ASSERT_EQ(purge.rows.size(), 2u);
  purge.rows.push_back({2, 2, 1'000'000});
  purge.txns_start_after = 3;
  const auto failures = check(b.history());
  EXPECT_TRUE(detail_has(failures, "removed 3 rows, more than its batch")) << show(failures);
  EXPECT_TRUE(detail_has(failures, "removed rows the model keeps in this step: [2, 2]")) << show(failures);
  EXPECT_TRUE(has_rule(failures, Rule::retention_model_purge_over_batch)) << show(failures);
  EXPECT_TRUE(has_rule(failures, Rule::retention_model_purge_removed_kept_rows)) << show(failures);
}

TEST(RetentionModel, PurgeOfARowYoungerThanTheFloorFails) {
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a"}).advance_seconds(100).push("p2", "q", "p", {"b"}).advance_seconds(3550);
  b.purge("q", "p");  // a is 3650 s old, b 3550 s: only a is past the 3600 s floor
  history::PurgeEvent& purge = nth<history::PurgeEvent>(b.history());
  ASSERT_EQ(purge.rows.size(), 1u);
  purge.rows.push_back({1, 1, 1'100'000});
  purge.txns_start_after = 2;
  const auto failures = check(b.history());
  EXPECT_TRUE(has_failure(failures, kName, "", "q/p")) << show(failures);
  EXPECT_TRUE(has_failure(check_property("sidecar-floor", b.history()), "sidecar-floor", "", "q/p"));
}

TEST(RetentionModel, WrongMoreFlagAndTxnsStartFail) {
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a"}).push("p2", "q", "p", {"b"}).advance_seconds(3601).purge("q", "p", 2);
  history::PurgeEvent& purge = nth<history::PurgeEvent>(b.history());
  ASSERT_TRUE(purge.more);
  purge.more = false;
  purge.txns_start_after = 1;
  const auto failures = check(b.history());
  EXPECT_TRUE(detail_has(failures, "reported more=false")) << show(failures);
  EXPECT_TRUE(detail_has(failures, "left txns_start at 1, the first offset still in the sidecar is 2")) << show(failures);
  EXPECT_TRUE(has_rule(failures, Rule::retention_model_purge_more_flag)) << show(failures);
  EXPECT_TRUE(has_rule(failures, Rule::retention_model_txns_start)) << show(failures);
}

}  // namespace
}  // namespace qdt::properties
