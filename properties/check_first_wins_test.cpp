#include <gtest/gtest.h>

#include "properties/checkers.h"
#include "properties/history_builder_test.h"

namespace qdt::properties {
namespace {

using namespace testing;

const std::string kName = "first-wins";

std::vector<Failure> check(const history::History& h) { return check_property(kName, h); }

TEST(FirstWins, FollowersEchoTheLeadersFinalId) {
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a", "b", "a", "a"});  // leader queued
  b.push("p2", "q", "p", {"c", "a", "a"});       // leader a duplicate: the original's id
  b.fail_pushes(1).push("p3", "q", "p", {"d", "d"});  // leader errored
  history::History& h = b.history();
  EXPECT_EQ(request(h, "p1").responses[3].status, "duplicate");
  EXPECT_EQ(request(h, "p1").responses[3].message_id, request(h, "p1").responses[0].message_id);
  EXPECT_EQ(request(h, "p2").responses[2].message_id, request(h, "p1").responses[0].message_id);
  EXPECT_EQ(request(h, "p3").responses[1].status, "error");
  // p2 pushed "c" again after the duplicate round removed "a": one frame, twice.
  EXPECT_EQ(nth<history::PushEvent>(h, 2).frames.size(), 1u);
  EXPECT_TRUE(check_history(h).empty()) << show(check_history(h));
}

TEST(FirstWins, FollowerEchoingItsOwnFreshIdFails) {
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a", "b", "a"});
  request(b.history(), "p1").responses[2].message_id = "m-fresh";
  const auto failures = check(b.history());
  EXPECT_TRUE(has_failure(failures, kName, "p1", "q/p")) << show(failures);
}

TEST(FirstWins, LastOccurrenceLeadingFails) {
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a", "a"});
  auto& responses = request(b.history(), "p1").responses;
  std::swap(responses[0].status, responses[1].status);  // the last item queued, the first follows it
  EXPECT_TRUE(has_failure(check(b.history()), kName, "p1", "q/p"));
}

TEST(FirstWins, FollowerOfAnErroredLeaderMustError) {
  HistoryBuilder b;
  b.fail_pushes(1).push("p1", "q", "p", {"a", "a"});
  request(b.history(), "p1").responses[1].status = "duplicate";
  EXPECT_TRUE(has_failure(check(b.history()), kName, "p1", "q/p"));
  EXPECT_TRUE(has_rule(check(b.history()), Rule::first_wins_repeated_item_answer)) << show(check(b.history()));
}

TEST(FirstWins, TwoFramesOfOneKeyInOneSegmentFail) {
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a", "b"});
  history::PushEvent& ev = nth<history::PushEvent>(b.history());
  ev.frames[1].transaction_id = "a";
  EXPECT_TRUE(has_failure(check(b.history()), kName, "p1", "q/p"));
  EXPECT_TRUE(has_rule(check(b.history()), Rule::first_wins_key_twice_in_segment)) << show(check(b.history()));
}

TEST(FirstWins, TwoFramesOfOneRequestAndKeyAcrossSegmentsFail) {
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a"}).push("p2", "q", "p", {"a"});
  // As if request p1 had produced p2's frame as well.
  nth<history::PushEvent>(b.history(), 1).frames[0].origin_request = request(b.history(), "p1").request;
  EXPECT_TRUE(has_failure(check(b.history()), kName, "p1", "q/p"));
  EXPECT_TRUE(has_rule(check(b.history()), Rule::first_wins_two_frames_per_key)) << show(check(b.history()));
}

TEST(FirstWins, FramesOfTwoRequestsMayShareAKeyAcrossSegments) {
  HistoryBuilder b;
  b.push("p1", {{"q", "p", "a"}, {"q", "p2", "a"}}).push("p2", "q", "p", {"a"});
  EXPECT_TRUE(check(b.history()).empty());
}

TEST(FirstWins, FusedFollowersPass) {
  HistoryBuilder b;
  b.fuse({{"p1", {{"q", "p", "a"}, {"q", "p", "b"}}}, {"p2", {{"q", "p", "b"}, {"q", "p", "a"}, {"q", "p", "b"}}}});
  const history::PushEvent& segment = nth<history::PushEvent>(b.history());
  ASSERT_EQ(segment.followers.size(), 2u);
  EXPECT_EQ(segment.followers[0].frame, 1u);  // p2's "b" follows p1's "b"
  EXPECT_TRUE(check_history(b.history()).empty()) << show(check_history(b.history()));
}

TEST(FirstWins, FollowerRecordOutOfRangeFails) {
  HistoryBuilder b;
  b.fuse({{"p1", {{"q", "p", "a"}}}, {"p2", {{"q", "p", "a"}}}});
  nth<history::PushEvent>(b.history()).followers[0].frame = 7;
  const auto failures = check(b.history());
  ASSERT_TRUE(has_failure(failures, kName, "p2", "q/p")) << show(failures);
  EXPECT_NE(failures[0].detail.find("the segment has only 1 frames"), std::string::npos) << show(failures);
  EXPECT_TRUE(has_failure(check_property("model-agreement", b.history()), "model-agreement", "p2", "q/p"));
  EXPECT_TRUE(has_rule(failures, Rule::first_wins_follower_wrong_frame)) << show(failures);
}

TEST(FirstWins, FollowerRecordOfAnotherKeyFails) {
  HistoryBuilder b;
  b.fuse({{"p1", {{"q", "p", "b"}, {"q", "p", "a"}}}, {"p2", {{"q", "p", "a"}}}});
  nth<history::PushEvent>(b.history()).followers[0].frame = 0;  // frame 0 is "b"
  const auto failures = check(b.history());
  ASSERT_TRUE(has_failure(failures, kName, "p2", "q/p")) << show(failures);
  EXPECT_TRUE(has_rule(failures, Rule::first_wins_follower_wrong_frame)) << show(failures);
  EXPECT_NE(failures[0].detail.find("whose key is txn b"), std::string::npos) << show(failures);
}

}  // namespace
}  // namespace qdt::properties
