// Retries and network faults (RequestRecord push_id, attempt, delivered,
// response_received) through every checker: a correct broker and storage
// under lost requests, lost responses and duplicated deliveries must pass all
// properties.
#include <gtest/gtest.h>

#include "properties/checkers.h"
#include "properties/history_builder_test.h"

namespace qdt::properties {
namespace {

using namespace testing;

TEST(Retries, DuplicatedDeliveryPassesEveryChecker) {
  HistoryBuilder b;
  b.push("p1", {{"q", "p", "a"}, {"q", "p", "b"}, {"q", "p", "a"}, {"q", "p2", "a"}}).redeliver("p1");
  history::History& h = b.history();
  ASSERT_EQ(h.requests.size(), 2u);
  const history::RequestRecord& first = h.requests[0];
  const history::RequestRecord& second = h.requests[1];
  EXPECT_NE(first.request, second.request);
  EXPECT_EQ(first.push_id, second.push_id);
  EXPECT_EQ(first.attempt, second.attempt);
  // Each delivery carried its own fresh frame for "a"; the second is a duplicate of the first.
  const history::PushEvent& dup = nth<history::PushEvent>(h, 2);
  ASSERT_FALSE(dup.queued);
  EXPECT_NE(dup.frames[0].message_id, nth<history::PushEvent>(h, 0).frames[0].message_id);
  for (size_t i = 0; i < first.responses.size(); ++i) {
    EXPECT_EQ(second.responses[i].message_id, first.responses[i].message_id) << i;
    EXPECT_EQ(second.responses[i].status, "duplicate") << i;
  }
  for (const std::string& name : property_names()) EXPECT_TRUE(check_property(name, h).empty()) << name;
}

TEST(Retries, DeliveriesFusedIntoOneSegmentPassEveryChecker) {
  // Layer 2 (docs/semantics.md §2.5): the broker fused both deliveries; the second's frame
  // followed the first's and never reached storage.
  HistoryBuilder b;
  b.fuse({{"p1", {{"q", "p", "a"}, {"q", "p", "b"}}}, {"p1", {}, true}});
  history::History& h = b.history();
  ASSERT_EQ(h.requests.size(), 2u);
  EXPECT_EQ(h.requests[0].push_id, h.requests[1].push_id);
  const history::PushEvent& segment = nth<history::PushEvent>(h);
  EXPECT_EQ(segment.frames.size(), 2u);
  ASSERT_EQ(segment.followers.size(), 2u);
  EXPECT_EQ(segment.followers[1].request, h.requests[1].request);
  EXPECT_EQ(segment.followers[1].frame, 1u);
  EXPECT_EQ(h.requests[1].responses[1].status, "duplicate");
  EXPECT_EQ(h.requests[1].responses[1].message_id, h.requests[0].responses[1].message_id);
  EXPECT_TRUE(check_history(h).empty()) << show(check_history(h));
}

TEST(Retries, LostRequestsLostResponsesAndRetriesPassEveryChecker) {
  HistoryBuilder b;
  b.push_lost("p1", {{"q", "p", "a"}, {"q", "p", "b"}}).advance_seconds(2).retry("p1").lose_response();
  b.advance_seconds(2).retry("p1").redeliver("p1").lose_response();
  b.push("p2", "q", "p", {"a", "c"}).lose_response().fail_pushes(1).retry("p2").retry("p2");
  b.ack("a1", "q", "p", "a").read("r1", "q", "p");
  history::History& h = b.history();
  EXPECT_FALSE(h.requests[0].delivered);
  EXPECT_TRUE(h.requests[0].items.empty());
  EXPECT_EQ(h.requests[3].attempt, 2u);
  EXPECT_EQ(h.requests[5].responses[0].status, "error");
  for (const std::string& name : property_names()) EXPECT_TRUE(check_property(name, h).empty()) << name;
}

}  // namespace
}  // namespace qdt::properties
