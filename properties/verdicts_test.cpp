#include "properties/verdicts.h"

#include <gtest/gtest.h>

#include "properties/history_builder_test.h"

namespace qdt::properties {
namespace {

using testing::HistoryBuilder;
using testing::nth;
using testing::request;

history::ResponseItem answer(const std::string& status, const std::string& id) { return {status, id, "a", "q"}; }

TEST(Verdicts, QueuedLeaderAndItsFollower) {
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a", "a"});
  const history::History& h = b.history();
  const Verdicts v(h);
  const std::string id = h.requests[0].responses[0].message_id;
  EXPECT_TRUE(v.expected(h.requests[0], 0, 0).accepts(answer("queued", id)));
  EXPECT_FALSE(v.expected(h.requests[0], 0, 0).accepts(answer("duplicate", id)));
  EXPECT_TRUE(v.expected(h.requests[0], 1, 0).accepts(answer("duplicate", id)));
  EXPECT_FALSE(v.expected(h.requests[0], 1, 0).accepts(answer("queued", id)));
  EXPECT_FALSE(v.expected(h.requests[0], 1, 0).accepts(answer("duplicate", "m-other")));
}

TEST(Verdicts, DuplicateAcceptsWhatEveryLaterFetchOfItsOffsetReturned) {
  // Two fibers of one broker may fetch one offset in either order; a deletion
  // in between makes both the original id and the zero id possible.
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a"}).push("p2", "q", "p", {"a"}).delete_segment("q", "p", 0).push("p3", "q", "p", {"a"});
  const history::History& h = b.history();
  const Verdicts v(h);
  const std::string original = h.requests[0].responses[0].message_id;
  const Expected p2 = v.expected(h.requests[1], 0, 0);
  EXPECT_TRUE(p2.accepts(answer("duplicate", original)));
  EXPECT_TRUE(p2.accepts(answer("duplicate", history::kZeroUuid)));
  const Expected p3 = v.expected(h.requests[2], 0, 0);
  EXPECT_FALSE(p3.accepts(answer("duplicate", original)));  // every fetch after p3's push saw it gone
  EXPECT_TRUE(p3.accepts(answer("duplicate", history::kZeroUuid)));
}

TEST(Verdicts, DuplicateWithoutAFetchAcceptsNoId) {
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a"}).push("p2", "q", "p", {"a"});
  history::History h = b.history();
  std::erase_if(h.events, [](const history::Event& e) { return std::holds_alternative<history::FetchEvent>(e); });
  const Expected x = Verdicts(h).expected(h.requests[1], 0, 0);
  EXPECT_FALSE(x.accepts(answer("duplicate", h.requests[0].responses[0].message_id)));
  EXPECT_NE(x.because.find("fetched ids after it {}"), std::string::npos) << x.because;
}

TEST(Verdicts, FailedPushMeansErrorForLeaderAndFollowers) {
  HistoryBuilder b;
  b.fail_pushes(1).push("p1", "q", "p", {"a", "a"});
  const history::History& h = b.history();
  const Verdicts v(h);
  EXPECT_TRUE(v.expected(h.requests[0], 0, 0).accepts(answer("error", history::kZeroUuid)));
  EXPECT_TRUE(v.expected(h.requests[0], 1, 0).accepts(answer("error", "")));
  EXPECT_FALSE(v.expected(h.requests[0], 1, 0).accepts(answer("duplicate", history::kZeroUuid)));
}

TEST(Verdicts, FrameThatNeverGotAVerdictAcceptsNothing) {
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a"}).push("p2", "q", "p", {"b", "a"});
  history::History h = b.history();
  // Drop the second round that queued "b": "b" survived the duplicate round and stopped there.
  history::PushEvent& last = nth<history::PushEvent>(h, 2);
  ASSERT_EQ(last.frames.size(), 1u);
  h.events.pop_back();
  const Expected x = Verdicts(h).expected(h.requests[1], 0, 0);
  EXPECT_TRUE(x.statuses.empty());
  EXPECT_NE(x.because.find("never received a verdict"), std::string::npos) << x.because;
}

TEST(Verdicts, ItemWithoutAFrameFollowsAnotherRequestsFrameOfItsKey) {
  // Layer 2: a request whose item was fused into another request's segment
  // has no frame of its own; it may only echo an id of that key, or zero.
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a"});
  history::History h = b.history();
  history::RequestRecord follower = h.requests[0];
  follower.request = 99;
  follower.step = "p2";
  const Verdicts v(h);
  const Expected x = v.expected(follower, 0, 0);
  EXPECT_TRUE(x.accepts(answer("duplicate", h.requests[0].responses[0].message_id)));
  EXPECT_TRUE(x.accepts(answer("duplicate", history::kZeroUuid)));
  EXPECT_TRUE(x.accepts(answer("error", "")));
  EXPECT_FALSE(x.accepts(answer("queued", h.requests[0].responses[0].message_id)));
  EXPECT_FALSE(x.accepts(answer("duplicate", "m-other")));
}

}  // namespace
}  // namespace qdt::properties
