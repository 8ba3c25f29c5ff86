#include "properties/verdicts.h"

#include <algorithm>
#include <string>
#include <variant>
#include <vector>

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

// What an expectation allows is said in words, never as a set.
TEST(Verdicts, AllowedSaysWhatAcceptsLetsThroughInWords) {
  EXPECT_EQ(Expected{}.allowed(), "no answer");
  EXPECT_EQ((Expected{{"queued"}, {"m1"}, ""}).allowed(), "queued with id m1");
  EXPECT_EQ((Expected{{"duplicate", "error"}, {"m1", "m2", "m3"}, ""}).allowed(),
            "duplicate with id m1, m2 or m3, or error");
  EXPECT_EQ((Expected{{"duplicate"}, {}, ""}).allowed(), "duplicate only with the original's id, which nothing read");
  EXPECT_EQ(join_or({"m1", "m2"}), "m1 or m2");
  EXPECT_EQ(join_or({}), "");
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
  EXPECT_NE(x.because.find("no fetch of that offset after it read the original's id"), std::string::npos) << x.because;
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
  EXPECT_NE(x.because.find("storage never decided frame"), std::string::npos) << x.because;
}

TEST(Verdicts, LayerTwoFollowerAnswersExactlyItsLeaderFrame) {
  HistoryBuilder b;
  b.push("p0", "q", "p", {"a"}).advance_seconds(3601);  // an older id of the key, out of the window
  b.fuse({{"p1", {{"q", "p", "a"}}}, {"p2", {{"q", "p", "a"}}}});
  const history::History& h = b.history();
  const Verdicts v(h);
  const std::string older = h.requests[0].responses[0].message_id;
  const std::string leader = h.requests[1].responses[0].message_id;
  const Expected x = v.expected(h.requests[2], 0, 0);
  EXPECT_TRUE(x.accepts(answer("duplicate", leader))) << x.because;
  EXPECT_FALSE(x.accepts(answer("duplicate", older)));  // another id of the key is not the leader's
  EXPECT_FALSE(x.accepts(answer("duplicate", history::kZeroUuid)));
  EXPECT_FALSE(x.accepts(answer("error", "")));
  EXPECT_FALSE(x.accepts(answer("queued", leader)));
  EXPECT_NE(x.because.find("layer-2 follower"), std::string::npos) << x.because;
}

TEST(Verdicts, FollowerOfADuplicateOrFailedLeader) {
  HistoryBuilder b;
  b.push("p0", "q", "p", {"a"}).fuse({{"p1", {{"q", "p", "a"}}}, {"p2", {{"q", "p", "a"}}}});
  b.fail_pushes(1).fuse({{"p3", {{"q", "p", "z"}}}, {"p4", {{"q", "p", "z"}}}});
  const history::History& h = b.history();
  const Verdicts v(h);
  EXPECT_TRUE(v.expected(h.requests[2], 0, 0).accepts(answer("duplicate", h.requests[0].responses[0].message_id)));
  EXPECT_TRUE(v.expected(h.requests[4], 0, 0).accepts(answer("error", "")));
  EXPECT_FALSE(v.expected(h.requests[4], 0, 0).accepts(answer("duplicate", history::kZeroUuid)));
}

TEST(Verdicts, ItemWithNoFrameAndNoRecordedLeaderAcceptsNothing) {
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a"});
  history::History h = b.history();
  history::RequestRecord orphan = h.requests[0];
  orphan.request = 99;
  orphan.step = "p2";
  const Expected x = Verdicts(h).expected(orphan, 0, 0);
  EXPECT_TRUE(x.statuses.empty());
  EXPECT_FALSE(x.accepts(answer("duplicate", h.requests[0].responses[0].message_id)));
  EXPECT_FALSE(x.accepts(answer("duplicate", history::kZeroUuid)));
  EXPECT_NE(x.because.find("no answer can be right"), std::string::npos) << x.because;
}

TEST(Verdicts, AFetchThatReadAnotherKeyAtTheOffsetAllowsOnlyTheZeroId) {
  // Storage lost power under synchronous off between the probe and the
  // fetch, and another key was written at the original's offset since: that
  // frame is no original, so its id must not be answered (docs/semantics.md §2.6).
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a"}).push("p2", "q", "p", {"a"});
  history::History h = b.history();
  auto fetch = std::find_if(h.events.begin(), h.events.end(),
                            [](const history::Event& e) { return std::holds_alternative<history::FetchEvent>(e); });
  ASSERT_NE(fetch, h.events.end());
  auto& read = std::get<history::FetchEvent>(*fetch);
  ASSERT_TRUE(read.found);
  read.message_id = "m-other";
  read.transaction_id = "b";
  const Expected x = Verdicts(h).expected(h.requests[1], 0, 0);
  EXPECT_TRUE(x.accepts(answer("duplicate", history::kZeroUuid))) << x.because;
  EXPECT_FALSE(x.accepts(answer("duplicate", "m-other"))) << x.because;
  EXPECT_TRUE(Verdicts(h).accepts(h.requests[1], 0, 0, answer("duplicate", history::kZeroUuid)));
  EXPECT_FALSE(Verdicts(h).accepts(h.requests[1], 0, 0, answer("duplicate", "m-other")));
}

TEST(Verdicts, FrameThatFindsItsOwnCommitStaysQueued) {
  // After a lost connection the broker pushes the frame again and storage
  // names the frame's own offset: the item was written by this request.
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a"});
  history::History h = b.history();
  auto queued = std::find_if(h.events.begin(), h.events.end(),
                             [](const history::Event& e) { return std::holds_alternative<history::PushEvent>(e); });
  ASSERT_NE(queued, h.events.end());
  history::PushEvent again = std::get<history::PushEvent>(*queued);
  again.queued = false;
  again.duplicates = {{0, again.base_offset}};
  const auto again_index = static_cast<size_t>(queued - h.events.begin()) + 1;
  h.events.insert(queued + 1, again);
  const std::string id = h.requests[0].responses[0].message_id;
  const Expected x = Verdicts(h).expected(h.requests[0], 0, 0);
  EXPECT_TRUE(x.accepts(answer("queued", id))) << x.because;
  EXPECT_FALSE(x.accepts(answer("duplicate", id))) << x.because;  // this request wrote it: not a duplicate
  // An attempt that failed in between (power lost at its first statement)
  // does not hide the commit the next attempt finds.
  history::PushEvent failed = again;
  failed.failed = true;
  failed.duplicates.clear();
  h.events.insert(h.events.begin() + static_cast<std::ptrdiff_t>(again_index), failed);
  const Expected z = Verdicts(h).expected(h.requests[0], 0, 0);
  EXPECT_TRUE(z.accepts(answer("queued", id))) << z.because;
  EXPECT_FALSE(z.accepts(answer("error", history::kZeroUuid))) << z.because;
  // Listed as a duplicate of another offset, the frame is a duplicate after all.
  std::get<history::PushEvent>(h.events[again_index + 1]).duplicates = {{0, again.base_offset + 1}};
  const Expected y = Verdicts(h).expected(h.requests[0], 0, 0);
  EXPECT_FALSE(y.accepts(answer("queued", id))) << y.because;
}

// p1's frame of "a" committed at offset 0, then the broker pushes it again
// (its connection died with the answer) and storage names offset 0.
history::PushEvent push_again(const history::History& h) {
  history::PushEvent again = std::get<history::PushEvent>(h.events[1]);  // after the configure
  again.queued = false;
  again.base_offset = -1;
  again.duplicates = {{0, 0}};
  return again;
}

history::FetchEvent fetch_of_offset_0(const std::string& message_id) {
  history::FetchEvent f;
  f.queue = "q";
  f.partition = "p";
  f.offset = 0;
  f.found = message_id != history::kZeroUuid;
  f.message_id = message_id;
  f.transaction_id = f.found ? "a" : "";
  return f;
}

history::StorageCrash emptying_crash(size_t event_index) {
  history::StorageCrash crash;
  crash.event_index = event_index;
  crash.synchronous = "off";
  crash.integrity = "ok";
  return crash;
}

void expect_accepts_agrees(const history::History& h);

TEST(Verdicts, AFrameWhoseCommitStorageLostBeforeTheRepushIsADuplicateOfWhatCameSince) {
  // Power lost under synchronous off after p1 committed; p2 stores "a" at
  // offset 0 of the emptied storage; p1's re-push finds p2's frame there.
  HistoryBuilder b;
  b.configure("q", 60).push("p1", "q", "p", {"a"}).advance_ms(5).power_loss_off().advance_ms(5);
  b.push("p2", "q", "p", {"a"});
  history::History h = b.history();
  ASSERT_EQ(nth<history::PushEvent>(h, 1).base_offset, 0);
  const std::string own = request(h, "p1").responses[0].message_id;
  const std::string since = request(h, "p2").responses[0].message_id;
  h.events.push_back(push_again(h));
  h.events.push_back(fetch_of_offset_0(since));
  const Expected x = Verdicts(h).expected(h.requests[0], 0, 0);
  EXPECT_TRUE(x.accepts(answer("duplicate", since))) << x.because;
  EXPECT_FALSE(x.accepts(answer("queued", own))) << x.because;  // that commit is gone
  expect_accepts_agrees(h);
  // With no loss the offset is the frame's own commit, and only queued is right.
  h.storage_crashes.clear();
  const Expected y = Verdicts(h).expected(h.requests[0], 0, 0);
  EXPECT_TRUE(y.accepts(answer("queued", own))) << y.because;
  EXPECT_FALSE(y.accepts(answer("duplicate", since))) << y.because;
}

TEST(Verdicts, AFrameWhoseFoundCommitIsLostBeforeTheFetchMayAnswerWhatTheFetchRead) {
  // p1's re-push finds its own commit at offset 0; power is lost under
  // synchronous off before the broker's fetch, which reads nothing.
  HistoryBuilder b;
  b.configure("q", 60).push("p1", "q", "p", {"a"});
  history::History h = b.history();
  const std::string own = request(h, "p1").responses[0].message_id;
  h.events.push_back(push_again(h));
  h.storage_crashes.push_back(emptying_crash(h.events.size()));
  h.events.push_back(fetch_of_offset_0(history::kZeroUuid));
  const Expected x = Verdicts(h).expected(h.requests[0], 0, 0);
  EXPECT_TRUE(x.accepts(answer("queued", own))) << x.because;  // had the fetch come first
  EXPECT_TRUE(x.accepts(answer("duplicate", history::kZeroUuid))) << x.because;
  EXPECT_FALSE(x.accepts(answer("duplicate", own))) << x.because;  // its own id is no original's
  EXPECT_FALSE(x.accepts(answer("error", history::kZeroUuid))) << x.because;
  EXPECT_NE(x.allowed().find("duplicate with id " + std::string(history::kZeroUuid)), std::string::npos)
      << x.allowed();
  expect_accepts_agrees(h);
  // A fetch before the loss read the frame's own commit: only the reads since the loss excuse a duplicate.
  h.events.insert(h.events.end() - 1, fetch_of_offset_0(own));
  h.storage_crashes.back().event_index += 1;
  const Expected z = Verdicts(h).expected(h.requests[0], 0, 0);
  EXPECT_FALSE(z.accepts(answer("duplicate", own))) << z.because;
  EXPECT_TRUE(z.accepts(answer("duplicate", history::kZeroUuid))) << z.because;
  expect_accepts_agrees(h);
  // With no loss the frame found its own commit: a duplicate is a false one.
  h.storage_crashes.clear();
  const Expected y = Verdicts(h).expected(h.requests[0], 0, 0);
  EXPECT_TRUE(y.accepts(answer("queued", own))) << y.because;
  EXPECT_FALSE(y.accepts(answer("duplicate", history::kZeroUuid))) << y.because;
  EXPECT_FALSE(y.accepts(answer("duplicate", own))) << y.because;
}

TEST(Verdicts, ALayerTwoFollowerOfAFoundCommitLostBeforeTheFetchAnswersAsItsLeaderMay) {
  // p2 is fused behind p1's frame of "a"; the frame is pushed again, finds
  // its own commit, and storage is emptied before the fetch, which reads nothing.
  HistoryBuilder b;
  b.configure("q", 60).fuse({{"p1", {{"q", "p", "a"}}}, {"p2", {{"q", "p", "a"}}}});
  history::History h = b.history();
  const std::string leader = request(h, "p1").responses[0].message_id;
  ASSERT_EQ(request(h, "p2").responses[0].message_id, leader);
  history::PushEvent again = push_again(h);
  again.followers.clear();
  h.events.push_back(again);
  h.storage_crashes.push_back(emptying_crash(h.events.size()));
  h.events.push_back(fetch_of_offset_0(history::kZeroUuid));
  const history::RequestRecord& follower = request(h, "p2");
  const Expected x = Verdicts(h).expected(follower, 0, 0);
  EXPECT_TRUE(x.accepts(answer("duplicate", leader))) << x.because;
  EXPECT_TRUE(x.accepts(answer("duplicate", history::kZeroUuid))) << x.because;
  EXPECT_FALSE(x.accepts(answer("queued", leader))) << x.because;  // a follower is never written
  EXPECT_FALSE(x.accepts(answer("duplicate", "m-other"))) << x.because;
}

// accepts() is the fast path model-agreement takes for every item: it must
// agree with expected().accepts() on every answer, right or wrong.
void expect_accepts_agrees(const history::History& h) {
  const Verdicts v(h);
  std::vector<std::string> ids = {history::kZeroUuid, "m-other"};
  for (const history::Event& e : h.events) {
    if (const auto* push = std::get_if<history::PushEvent>(&e)) {
      for (const history::FrameRecord& f : push->frames) ids.push_back(f.message_id);
    }
  }
  for (const history::RequestRecord& r : h.requests) {
    const std::vector<size_t> leaders = request_leaders(r);
    for (size_t i = 0; i < r.items.size(); ++i) {
      const Expected x = v.expected(r, i, leaders[i]);
      for (const char* status : {"queued", "duplicate", "error", "timeout"}) {
        for (const std::string& id : ids) {
          const history::ResponseItem got{status, id, r.items[i].transaction_id, r.items[i].queue};
          EXPECT_EQ(v.accepts(r, i, leaders[i], got), x.accepts(got))
              << "request " << r.request << " item " << i << " answering " << status << " " << id;
        }
      }
    }
  }
}

TEST(Verdicts, AcceptsAgreesWithExpected) {
  HistoryBuilder repeats;
  repeats.push("p1", "q", "p", {"a", "a", "b"}).push("p2", "q", "p", {"a"}).delete_segment("q", "p", 0);
  repeats.push("p3", "q", "p", {"a", "b"}).advance_seconds(3601).push("p4", "q", "p", {"b", "a", "b"});
  expect_accepts_agrees(repeats.history());
  HistoryBuilder fused;
  fused.push("p0", "q", "p", {"a"}).fuse({{"p1", {{"q", "p", "a"}}}, {"p2", {{"q", "p", "a"}}}});
  fused.fail_pushes(1).fuse({{"p3", {{"q", "p", "z"}}}, {"p4", {{"q", "p", "z"}}}});
  expect_accepts_agrees(fused.history());
  HistoryBuilder failed;
  failed.fail_pushes(1).push("p1", "q", "p", {"a", "a"}).push("p2", "q", "p", {"a", "c"});
  expect_accepts_agrees(failed.history());
}

}  // namespace
}  // namespace qdt::properties
