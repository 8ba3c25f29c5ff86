#include <gtest/gtest.h>

#include <optional>

#include "properties/checkers.h"
#include "properties/history_builder_test.h"

namespace qdt::properties {
namespace {

using namespace testing;

const std::string kName = "model-agreement";

std::vector<Failure> check(const history::History& h) { return check_property(kName, h); }

// The failure of `rule` at `step` in partition q/p; nullopt, and the test
// fails, when there is none.
std::optional<Failure> failure_of(const history::History& h, const std::string& step, Rule rule) {
  const std::vector<Failure> failures = check(h);
  EXPECT_TRUE(has_failure(failures, kName, step, "q/p")) << show(failures);
  EXPECT_TRUE(has_rule(failures, rule)) << show(failures);
  for (const Failure& f : failures) {
    if (f.rule == rule && f.step == step) return f;
  }
  return std::nullopt;
}

// The failure of `rule` at `step` says the rule required `expected` and storage gave `actual`.
void expect_answers(const history::History& h, const std::string& step, Rule rule, const std::string& expected,
                    const std::string& actual) {
  const std::optional<Failure> f = failure_of(h, step, rule);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->expected, expected);
  EXPECT_EQ(f->actual, actual);
}

// p1 queues a, p2 repeats it (duplicate of offset 0) alongside a follower.
HistoryBuilder duplicate_history() {
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a", "b"});
  b.advance_seconds(5).push("p2", "q", "p", {"a", "c", "a"});
  b.ack("a1", "q", "p", "b").read("r1", "q", "p");
  return b;
}

TEST(ModelAgreement, CleanHistoryAgrees) {
  HistoryBuilder b = duplicate_history();
  b.delete_segment("q", "p", 0).push("p3", "q", "p", {"b"});  // zero id
  b.fail_pushes(1).push("p4", "q", "p", {"x", "x"});           // error and its follower
  b.configure("q", 60).advance_seconds(1000).purge("q", "p").ack("a2", "q", "p", "a");
  EXPECT_TRUE(check(b.history()).empty()) << show(check(b.history()));
  EXPECT_EQ(request(b.history(), "p3").responses[0].message_id, history::kZeroUuid);
}

TEST(ModelAgreement, ResponseIdThatDiffersFromTheModelFails) {
  HistoryBuilder b = duplicate_history();
  request(b.history(), "p2").responses[0].message_id = "m-fresh";
  const auto failures = check(b.history());
  EXPECT_TRUE(has_failure(failures, kName, "p2", "q/p")) << show(failures);
}

TEST(ModelAgreement, FollowerThatAnswersQueuedFails) {
  HistoryBuilder b = duplicate_history();
  request(b.history(), "p2").responses[2].status = "queued";
  const auto failures = check(b.history());
  EXPECT_TRUE(has_failure(failures, kName, "p2", "q/p"));
  EXPECT_TRUE(has_rule(failures, Rule::model_agreement_item_answer)) << show(failures);
}

TEST(ModelAgreement, StorageQueuingAnInWindowRepeatFails) {
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a"});
  b.advance_seconds(1).push_unprobed("p2", "q", "p", {"a"});
  const auto failures = check(b.history());
  EXPECT_TRUE(has_failure(failures, kName, "p2", "q/p")) << show(failures);
  // The rule, the event and both answers are fields, not only words.
  ASSERT_TRUE(has_rule(failures, Rule::model_agreement_duplicate_answered_queued)) << show(failures);
  EXPECT_EQ(failures[0].event, 1u);
  EXPECT_EQ(failures[0].expected, "duplicate [frame 0 repeats offset 0]");
  EXPECT_EQ(failures[0].actual, "queued from offset 1");
  // Reported once: the model follows storage afterwards.
  b.push("p3", "q", "p", {"z"});
  EXPECT_EQ(check(b.history()).size(), 1u) << show(check(b.history()));
}

TEST(ModelAgreement, DuplicateOfTheWrongOffsetFails) {
  HistoryBuilder b;
  b.configure("q", 0).push("p1", "q", "p", {"a"}).push("p2", "q", "p", {"a"});
  b.configure("q", 3600).push("p3", "q", "p", {"a"});
  nth_duplicate_push(b.history()).duplicates[0].second = 1;
  const auto failures = check(b.history());
  EXPECT_TRUE(has_failure(failures, kName, "p3", "q/p"));
  EXPECT_TRUE(has_rule(failures, Rule::model_agreement_duplicate_of_wrong_offset)) << show(failures);
}

TEST(ModelAgreement, DuplicateOfAnotherKeysOffsetFails) {
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a", "b"}).push("p2", "q", "p", {"c"});
  history::PushEvent& push = nth<history::PushEvent>(b.history(), 1);
  push.queued = false;  // storage answers c a repeat of a's offset
  push.base_offset = -1;
  push.duplicates = {{0, 0}};
  expect_answers(b.history(), "p2", Rule::model_agreement_queued_answered_duplicate, "queued from offset 2",
                 "duplicate [frame 0 repeats offset 0]");
}

TEST(ModelAgreement, QueuedPastTheNextOffsetFails) {
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a"}).push("p2", "q", "p", {"b"});
  nth<history::PushEvent>(b.history(), 1).base_offset += 1;
  expect_answers(b.history(), "p2", Rule::model_agreement_queued_at_wrong_offset, "queued from offset 1",
                 "queued from offset 2");
}

TEST(ModelAgreement, FrameAnsweredAsARepeatWithoutAnOriginalFails) {
  HistoryBuilder b = duplicate_history();
  // p2 repeats a (frame 0) and sends c fresh (frame 1); storage calls c a repeat too.
  nth_duplicate_push(b.history()).duplicates.push_back({1, 0});
  EXPECT_TRUE(failure_of(b.history(), "p2", Rule::model_agreement_duplicate_without_original));
}

TEST(ModelAgreement, NegativeQueueOptionFails) {
  HistoryBuilder b;
  b.configure("q", 60).push("p1", "q", "p", {"a"});
  nth<history::ConfigureEvent>(b.history()).window_seconds = -1;
  const auto failures = check(b.history());
  ASSERT_TRUE(has_rule(failures, Rule::model_agreement_negative_option)) << show(failures);
  EXPECT_EQ(failures[0].event, 0u);
  EXPECT_EQ(failures[0].expected, "0 s or more");
}

TEST(ModelAgreement, FailedFetchThatFoundTheFrameFails) {
  HistoryBuilder b = duplicate_history();
  history::FetchEvent& fetch = nth<history::FetchEvent>(b.history());
  fetch.failed = true;
  fetch.message_id = history::kZeroUuid;  // what a failed fetch reads
  EXPECT_TRUE(failure_of(b.history(), "p2", Rule::model_agreement_fetch_failed_but_found));
}

TEST(ModelAgreement, FetchOfAnotherKeyFails) {
  HistoryBuilder b = duplicate_history();
  nth<history::FetchEvent>(b.history()).transaction_id = "other";
  expect_answers(b.history(), "p2", Rule::model_agreement_fetch_wrong_key, "txn a", "txn other");
}

TEST(ModelAgreement, StaleWindowInThePushFails) {
  HistoryBuilder b;
  b.configure("q", 60).push("p1", "q", "p", {"a"});
  nth<history::PushEvent>(b.history()).window_seconds = 3600;
  expect_answers(b.history(), "p1", Rule::model_agreement_probe_window, "60 s window", "3600 s window");
}

TEST(ModelAgreement, FetchOfAWrongIdFailsOnTheDuplicatesStep) {
  HistoryBuilder b = duplicate_history();
  nth<history::FetchEvent>(b.history()).message_id = "m-other";
  const auto failures = check(b.history());
  EXPECT_TRUE(has_failure(failures, kName, "p2", "q/p"));
  EXPECT_TRUE(has_rule(failures, Rule::model_agreement_fetch_wrong_id)) << show(failures);
}

TEST(ModelAgreement, AckAndReadThatDisagreeFail) {
  HistoryBuilder b = duplicate_history();
  nth<history::AckEvent>(b.history()).offset = 0;
  nth<history::ReadEvent>(b.history()).messages.pop_back();
  const auto failures = check(b.history());
  EXPECT_TRUE(has_failure(failures, kName, "a1", "q/p")) << show(failures);
  EXPECT_TRUE(has_failure(failures, kName, "r1", "q/p")) << show(failures);
  EXPECT_TRUE(has_rule(failures, Rule::model_agreement_ack_answer)) << show(failures);
  EXPECT_TRUE(has_rule(failures, Rule::model_agreement_read_answer)) << show(failures);
}

TEST(ModelAgreement, PurgeOfARowYoungerThanTheFloorFails) {
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a"}).advance_seconds(3601).purge("q", "p");
  ASSERT_EQ(nth<history::PurgeEvent>(b.history()).rows.size(), 1u);
  nth<history::PurgeEvent>(b.history()).now_ms -= 2000;  // the row is now 1 s inside the floor
  EXPECT_TRUE(has_failure(check(b.history()), kName, "", "q/p"));
  EXPECT_TRUE(has_rule(check(b.history()), Rule::model_agreement_purge_rows));
  nth<history::PurgeEvent>(b.history()).now_ms += 2000;
  nth<history::PurgeEvent>(b.history()).floor_seconds = 900;
  EXPECT_TRUE(has_failure(check(b.history()), kName, "", "q/p"));
  EXPECT_TRUE(has_rule(check(b.history()), Rule::model_agreement_purge_floor));
}

TEST(ModelAgreement, ErroredFrameAnsweredQueuedFails) {
  HistoryBuilder b;
  b.fail_pushes(1).push("p1", "q", "p", {"a"});
  request(b.history(), "p1").responses[0] = {"queued", "m1", "a", "q"};
  EXPECT_TRUE(has_failure(check(b.history()), kName, "p1", "q/p"));
}

TEST(ModelAgreement, ResponseOfTheWrongShapeFails) {
  HistoryBuilder b = duplicate_history();
  request(b.history(), "p1").responses.pop_back();
  request(b.history(), "p2").responses[1].transaction_id = "other";
  const auto failures = check(b.history());
  EXPECT_TRUE(has_failure(failures, kName, "p1", "")) << show(failures);
  EXPECT_TRUE(has_failure(failures, kName, "p2", "q/p")) << show(failures);
  EXPECT_TRUE(has_rule(failures, Rule::model_agreement_response_shape)) << show(failures);
  EXPECT_TRUE(has_rule(failures, Rule::model_agreement_answer_wrong_key)) << show(failures);
}

TEST(ModelAgreement, FailedAckReadPurgeAndRetentionAreNotCompared) {
  HistoryBuilder b = duplicate_history();
  b.configure("q", 3600, 0, 1).advance_seconds(3601);
  b.fail(Txn::ack).ack("a9", "q", "p", "a").fail(Txn::read).read("r9", "q", "p");
  b.fail(Txn::purge).purge("q", "p").fail(Txn::retention).retention("q");
  // The ack and the read answered nothing; the purge and the pass deleted nothing.
  EXPECT_TRUE(nth<history::AckEvent>(b.history(), 1).failed);
  EXPECT_TRUE(nth<history::ReadEvent>(b.history(), 1).messages.empty());
  EXPECT_TRUE(nth<history::RetentionEvent>(b.history()).deleted.empty());
  b.ack("a10", "q", "p", "a").read("r10", "q", "p").purge("q", "p").retention("q");  // now they happen
  EXPECT_FALSE(nth<history::ReadEvent>(b.history(), 2).messages.empty());
  EXPECT_FALSE(nth<history::RetentionEvent>(b.history(), 1).deleted.empty());
  const auto failures = check_history(b.history());
  EXPECT_TRUE(failures.empty()) << show(failures);
}

TEST(ModelAgreement, FailedPurgeThatRemovedRowsFails) {
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a"}).advance_seconds(3601).purge("q", "p");
  history::PurgeEvent& purge = nth<history::PurgeEvent>(b.history());
  ASSERT_EQ(purge.rows.size(), 1u);
  purge.failed = true;  // recorded as failed, yet rows are gone
  const auto failures = check(b.history());
  EXPECT_TRUE(has_failure(failures, kName, "", "q/p")) << show(failures);
}

TEST(ModelAgreement, RetentionIsDecidedByTheModelNotAdoptedFromStorage) {
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a"}).advance_ms(1).retention("q");  // retention off: nothing due
  history::RetentionEvent& pass = nth<history::RetentionEvent>(b.history());
  ASSERT_TRUE(pass.deleted.empty());
  pass.deleted.push_back({0, 0, 1'000'000});
  const auto failures = check(b.history());
  ASSERT_TRUE(has_failure(failures, kName, "", "q/p")) << show(failures);
  EXPECT_NE(failures[0].detail.find("retention event 1"), std::string::npos) << show(failures);
  EXPECT_TRUE(has_rule(failures, Rule::model_agreement_retention_deleted)) << show(failures);
  EXPECT_EQ(failures[0].event, 1u);
}

TEST(ModelAgreement, FirstPushOfAKeyAnsweringZeroDuplicateWithNothingStoredFails) {
  // A lost write: no frame, no follower record, nothing stored, yet "duplicate".
  HistoryBuilder b;
  b.push("p0", "q", "p", {"x"});
  history::History& h = b.history();
  history::RequestRecord lost = h.requests[0];
  lost.request = 99;
  lost.step = "p1";
  lost.push_id = 99;
  lost.items = {{"q", "p", "a"}};
  lost.responses = {{"duplicate", history::kZeroUuid, "a", "q"}};
  h.requests.push_back(lost);
  const auto failures = check(h);
  ASSERT_TRUE(has_failure(failures, kName, "p1", "q/p")) << show(failures);
  EXPECT_NE(failures[0].detail.find("no push event records it as a layer-2 follower"), std::string::npos)
      << show(failures);
}

TEST(ModelAgreement, LayerTwoFollowerAnsweringErrorWhileItsLeaderQueuedFails) {
  HistoryBuilder b;
  b.fuse({{"p1", {{"q", "p", "a"}}}, {"p2", {{"q", "p", "a"}}}});
  EXPECT_TRUE(check_history(b.history()).empty()) << show(check_history(b.history()));
  request(b.history(), "p2").responses[0] = {"error", history::kZeroUuid, "a", "q"};
  const auto failures = check(b.history());
  EXPECT_TRUE(has_failure(failures, kName, "p2", "q/p")) << show(failures);
  const auto first_wins = check_property("first-wins", b.history());
  EXPECT_TRUE(has_failure(first_wins, "first-wins", "p2", "q/p"));
  ASSERT_TRUE(has_rule(first_wins, Rule::first_wins_follower_answer)) << show(first_wins);
  EXPECT_EQ(first_wins[0].expected, "duplicate " + request(b.history(), "p1").responses[0].message_id);
  EXPECT_EQ(first_wins[0].actual, "error " + std::string(history::kZeroUuid));
}

TEST(ModelAgreement, LayerTwoFollowerNamingAnotherIdOfItsKeyFails) {
  HistoryBuilder b;
  b.push("p0", "q", "p", {"a"}).advance_seconds(3601);
  b.fuse({{"p1", {{"q", "p", "a"}}}, {"p2", {{"q", "p", "a"}}}});
  request(b.history(), "p2").responses[0].message_id = request(b.history(), "p0").responses[0].message_id;
  const auto failures = check(b.history());
  EXPECT_TRUE(has_failure(failures, kName, "p2", "q/p")) << show(failures);
  EXPECT_TRUE(has_failure(check_property("first-wins", b.history()), "first-wins", "p2", "q/p"));
}

}  // namespace
}  // namespace qdt::properties
