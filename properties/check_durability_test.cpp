#include <gtest/gtest.h>

#include <variant>

#include "properties/checkers.h"
#include "properties/history_builder_test.h"
#include "properties/recovered_view.h"

namespace qdt::properties {
namespace {

using namespace testing;

const std::string kName = "durability";

std::vector<Failure> check(const history::History& h) { return check_property(kName, h); }

// What storage holds now if it lost nothing: every partition's messages
// committed and not deleted, as a full read.
std::vector<history::FinalRead> faithful_read(const history::History& h) {
  std::map<std::pair<std::string, std::string>, std::map<int64_t, history::ReadMessage>> state;
  for (const auto& ev : h.events) {
    if (const auto* p = std::get_if<history::PushEvent>(&ev); p != nullptr && !p->failed && p->queued) {
      for (size_t i = 0; i < p->frames.size(); ++i) {
        const int64_t o = p->base_offset + static_cast<int64_t>(i);
        state[{p->queue, p->partition}][o] = {o, p->frames[i].message_id, p->frames[i].transaction_id};
      }
    } else if (const auto* d = std::get_if<history::DeleteSegmentEvent>(&ev)) {
      auto& m = state[{d->queue, d->partition}];
      m.erase(m.lower_bound(d->base_offset), m.upper_bound(d->end_offset));
    }
  }
  std::vector<history::FinalRead> reads;
  for (const auto& [key, messages] : state) {
    history::FinalRead read{key.first, key.second, {}};
    for (const auto& [o, m] : messages) read.messages.push_back(m);
    reads.push_back(read);
  }
  return reads;
}

// A crash now whose recovery read `reads`, recorded as the world records it:
// changes to what the previous crash recovered (`previous`, moved on).
history::StorageCrash crash_of(const history::History& h, const std::vector<history::FinalRead>& reads,
                               RecoveredView& previous) {
  history::StorageCrash crash;
  crash.event_index = h.events.size();
  crash.synchronous = "full";
  crash.integrity = "ok";
  crash.recovered = previous.advance_to(reads);
  return crash;
}

// A crash now, whose recovery found exactly what was committed (and not deleted).
history::StorageCrash faithful_crash(const history::History& h, RecoveredView& previous) {
  return crash_of(h, faithful_read(h), previous);
}

HistoryBuilder three_pushes() {
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a", "b"});
  b.push("p2", "q", "p", {"c"});
  b.push("p3", "q", "p2", {"a"});
  return b;
}

TEST(Durability, FaithfulRecoveryPasses) {
  HistoryBuilder b = three_pushes();
  RecoveredView previous;
  b.history().storage_crashes.push_back(faithful_crash(b.history(), previous));
  EXPECT_TRUE(check(b.history()).empty()) << show(check(b.history()));
}

TEST(Durability, NoCrashNothingToJudge) {
  HistoryBuilder b = three_pushes();
  EXPECT_TRUE(check(b.history()).empty());
}

TEST(Durability, LostCommitFails) {
  HistoryBuilder b = three_pushes();
  std::vector<history::FinalRead> reads = faithful_read(b.history());
  reads[0].messages.pop_back();  // q/p offset 2 (p2) gone, as synchronous=off may do
  RecoveredView previous;
  b.history().storage_crashes.push_back(crash_of(b.history(), reads, previous));
  const auto failures = check(b.history());
  ASSERT_EQ(failures.size(), 1u) << show(failures);
  EXPECT_TRUE(has_failure(failures, kName, "p2", "q/p"));
  EXPECT_TRUE(has_rule(failures, Rule::durability_lost_commit)) << show(failures);
  EXPECT_NE(failures[0].detail.find("lost offset 2"), std::string::npos) << failures[0].detail;
}

TEST(Durability, WholeDatabaseLostFailsForEveryPartition) {
  HistoryBuilder b = three_pushes();
  RecoveredView previous;
  // the file was never synced and vanished
  b.history().storage_crashes.push_back(crash_of(b.history(), {}, previous));
  const auto failures = check(b.history());
  EXPECT_EQ(failures.size(), 4u) << show(failures);
  EXPECT_TRUE(has_failure(failures, kName, "p3", "q/p2"));
}

TEST(Durability, OffsetReusedByAnotherMessageFails) {
  HistoryBuilder b = three_pushes();
  std::vector<history::FinalRead> reads = faithful_read(b.history());
  reads[1].messages[0].message_id = "00000000-0000-7000-8000-000000000001";
  RecoveredView previous;
  b.history().storage_crashes.push_back(crash_of(b.history(), reads, previous));
  EXPECT_TRUE(has_failure(check(b.history()), kName, "p3", "q/p2"));
  EXPECT_TRUE(has_rule(check(b.history()), Rule::durability_changed_commit)) << show(check(b.history()));
}

TEST(Durability, CorruptDatabaseFails) {
  HistoryBuilder b = three_pushes();
  RecoveredView previous;
  history::StorageCrash crash = faithful_crash(b.history(), previous);
  crash.integrity = "*** in database main ***\nPage 3 is never used";
  b.history().storage_crashes.push_back(crash);
  const auto failures = check(b.history());
  ASSERT_EQ(failures.size(), 1u) << show(failures);
  EXPECT_NE(failures[0].detail.find("integrity_check"), std::string::npos);
  EXPECT_TRUE(has_rule(failures, Rule::durability_integrity)) << show(failures);
  EXPECT_EQ(failures[0].actual, "*** in database main ***\nPage 3 is never used");
}

TEST(Durability, DeletedBeforeTheCrashIsNotExpected) {
  HistoryBuilder b = three_pushes();
  b.delete_segment("q", "p", 2);
  RecoveredView previous;
  b.history().storage_crashes.push_back(faithful_crash(b.history(), previous));
  EXPECT_TRUE(check(b.history()).empty()) << show(check(b.history()));
}

TEST(Durability, LaterCrashStillExpectsWhatAnEarlierOneLost) {
  HistoryBuilder b = three_pushes();
  RecoveredView previous;
  b.history().storage_crashes.push_back(crash_of(b.history(), {}, previous));
  // nothing came back the second time either: no change to record
  b.history().storage_crashes.push_back(crash_of(b.history(), {}, previous));
  EXPECT_TRUE(b.history().storage_crashes[1].recovered.empty());
  EXPECT_EQ(check(b.history()).size(), 8u);
}

// Crashes recorded as changes: a commit the first crash kept and the second
// lost (a removal), a commit made between them that the second never
// recovered (no change at all), and an offset the third recovered again are
// judged per crash as whole reads would be.
TEST(Durability, ChangesBetweenCrashesAreJudgedAsWholeReads) {
  HistoryBuilder b = three_pushes();
  RecoveredView previous;
  b.history().storage_crashes.push_back(faithful_crash(b.history(), previous));
  b.push("p4", "q", "p", {"d"});  // q/p offset 3
  std::vector<history::FinalRead> reads = faithful_read(b.history());
  ASSERT_EQ(reads[0].messages.size(), 4u);
  reads[0].messages.erase(reads[0].messages.begin() + 1);  // q/p offset 1 (p1's "b") gone
  reads[0].messages.pop_back();                            // q/p offset 3 (p4) never recovered
  b.history().storage_crashes.push_back(crash_of(b.history(), reads, previous));
  ASSERT_EQ(b.history().storage_crashes[1].recovered.size(), 1u);
  EXPECT_EQ(b.history().storage_crashes[1].recovered[0].removed, (std::vector<int64_t>{1}));
  EXPECT_TRUE(b.history().storage_crashes[1].recovered[0].written.empty());
  b.history().storage_crashes.push_back(faithful_crash(b.history(), previous));

  const auto failures = check(b.history());
  ASSERT_EQ(failures.size(), 2u) << show(failures);
  EXPECT_TRUE(has_failure(failures, kName, "p1", "q/p"));
  EXPECT_TRUE(has_failure(failures, kName, "p4", "q/p"));
  for (const auto& f : failures) EXPECT_EQ(f.detail.rfind("storage crash 1 ", 0), 0u) << f.detail;
  EXPECT_NE(show(failures).find("lost offset 1"), std::string::npos) << show(failures);
  EXPECT_NE(show(failures).find("lost offset 3"), std::string::npos) << show(failures);
}

}  // namespace
}  // namespace qdt::properties
