#include <gtest/gtest.h>

#include "properties/checkers.h"
#include "properties/history_builder_test.h"
#include "properties/power_loss.h"

namespace qdt::properties {
namespace {

using namespace testing;

// Broker 0 stores a and b; power fails; a is pushed again and stored anew at
// offset 0, then repeated (a duplicate of the new copy), and c follows.
HistoryBuilder stored_again_after_a_loss(const std::string& synchronous) {
  HistoryBuilder b;
  b.configure("q", 60);
  b.push("p1", "q", "p", {"a", "b"});
  b.advance_ms(5);
  b.power_loss_off();
  b.history().storage_crashes.back().synchronous = synchronous;
  b.advance_ms(5);
  b.push("p2", "q", "p", {"a"});
  b.advance_ms(5);
  b.push("p3", "q", "p", {"a", "c"});
  return b;
}

TEST(PowerLoss, OnlySynchronousOffLosesEveryCommit) {
  history::StorageCrash crash;
  for (const char* kept : {"full", "normal"}) {
    crash.synchronous = kept;
    EXPECT_FALSE(loses_every_commit(crash)) << kept;
  }
  crash.synchronous = "off";
  EXPECT_TRUE(loses_every_commit(crash));
  HistoryBuilder b = stored_again_after_a_loss("off");
  EXPECT_EQ(storage_emptied_at(b.history()), std::vector<size_t>{2});  // after the configure and p1
  const int64_t at_ms = b.history().storage_crashes[0].at_ms;
  EXPECT_TRUE(emptied_between(b.history(), at_ms - 1, at_ms + 1));
  EXPECT_FALSE(emptied_between(b.history(), at_ms, at_ms + 1));  // strictly after
}

TEST(PowerLoss, EveryCheckerJudgesWhatFollowsAnEmptyingLossAsStorageSawIt) {
  HistoryBuilder b = stored_again_after_a_loss("off");
  const auto failures = check_history(b.history());
  EXPECT_TRUE(failures.empty()) << show(failures);
}

// The same history with a crash that keeps every commit: storage had no
// right to hand offset 0 out again nor to store a twice in its window.
TEST(PowerLoss, TheSameHistoryFailsWhenTheCrashKeptEveryCommit) {
  HistoryBuilder b = stored_again_after_a_loss("full");
  const auto failures = check_history(b.history());
  EXPECT_TRUE(has_failure(failures, "durability", "p1", "q/p")) << show(failures);
  EXPECT_TRUE(has_failure(failures, "offsets", "p2", "q/p")) << show(failures);
  EXPECT_TRUE(has_failure(failures, "no-double-write", "p2", "q/p")) << show(failures);
  EXPECT_TRUE(has_failure(failures, "client-visible", "p1", "q/p")) << show(failures);
}

// Nothing was synced, so a message that comes back is a lie of the disk.
TEST(PowerLoss, DurabilityFailsWhenSynchronousOffRecoversAMessage) {
  HistoryBuilder b = stored_again_after_a_loss("off");
  history::RecoveredChange change;
  change.queue = "q";
  change.partition = "p";
  change.written.push_back({0, "m1", "a"});
  b.history().storage_crashes[0].recovered.push_back(change);
  const auto failures = check_property("durability", b.history());
  ASSERT_EQ(failures.size(), 1u) << show(failures);
  EXPECT_NE(failures[0].detail.find("under synchronous off nothing is ever synced"), std::string::npos)
      << failures[0].detail;
  EXPECT_TRUE(has_rule(failures, Rule::durability_survived_sync_off)) << show(failures);
}

// The queue's settings went with the loss: a window of 60 s configured
// before it no longer holds, so a repeat 2 minutes later is a duplicate of
// the copy stored after the loss (the default window, 3600 s).
TEST(PowerLoss, QueueSettingsGoWithTheLoss) {
  HistoryBuilder b = stored_again_after_a_loss("off");
  b.advance_seconds(120);
  b.push("p4", "q", "p", {"a"});
  EXPECT_EQ(b.history().requests.back().responses[0].status, "duplicate");
  // Had client-visible kept the 60 s window, it would find no original
  // inside it.
  const auto failures = check_history(b.history());
  EXPECT_TRUE(failures.empty()) << show(failures);
}

// One push delivered twice, once on each side of the loss: storage stored
// it anew the second time, so the producer's two ids are both right.
TEST(PowerLoss, ARedeliveryAfterTheLossMayBeAnsweredANewId) {
  for (const char* synchronous : {"off", "full"}) {
    HistoryBuilder b;
    b.push("p1", "q", "p", {"a"});
    b.advance_ms(5);
    b.power_loss_off();
    b.history().storage_crashes.back().synchronous = synchronous;
    b.advance_ms(5);
    b.redeliver("p1");
    ASSERT_NE(b.history().requests[0].responses[0].message_id, b.history().requests[1].responses[0].message_id);
    const auto failures = check_property("retry-convergence", b.history());
    if (std::string(synchronous) == "off") {
      EXPECT_TRUE(failures.empty()) << show(failures);
    } else {
      EXPECT_TRUE(has_failure(failures, "retry-convergence", "p1", "q/p")) << show(failures);
    }
  }
}

// A duplicate after the loss that names a message stored before it names
// one that is gone (the black-box view: the answers and the crash's instant).
TEST(PowerLoss, ADuplicateNamingAMessageTheLossTookFailsClientVisible) {
  HistoryBuilder b = stored_again_after_a_loss("off");
  history::History& h = b.history();
  // p2 answered duplicate of p1's a instead of queued anew.
  h.requests[1].responses[0].status = "duplicate";
  h.requests[1].responses[0].message_id = h.requests[0].responses[0].message_id;
  const auto failures = check_property("client-visible", h);
  EXPECT_TRUE(has_failure(failures, "client-visible", "p2", "q/p")) << show(failures);
  h.storage_crashes[0].synchronous = "full";  // then p1's a is still there: a fine original
  EXPECT_FALSE(has_failure(check_property("client-visible", h), "client-visible", "p2", "q/p"));
}

}  // namespace
}  // namespace qdt::properties
