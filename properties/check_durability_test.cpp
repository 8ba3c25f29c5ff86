#include <gtest/gtest.h>

#include <variant>

#include "properties/checkers.h"
#include "properties/history_builder_test.h"

namespace qdt::properties {
namespace {

using namespace testing;

const std::string kName = "durability";

std::vector<Failure> check(const history::History& h) { return check_property(kName, h); }

// A crash now, whose recovery found exactly what was committed (and not deleted).
history::StorageCrash faithful_crash(const history::History& h) {
  history::StorageCrash crash;
  crash.event_index = h.events.size();
  crash.synchronous = "full";
  crash.integrity = "ok";
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
  for (const auto& [key, messages] : state) {
    history::FinalRead read{key.first, key.second, {}};
    for (const auto& [o, m] : messages) read.messages.push_back(m);
    crash.recovered.push_back(read);
  }
  return crash;
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
  b.history().storage_crashes.push_back(faithful_crash(b.history()));
  EXPECT_TRUE(check(b.history()).empty()) << show(check(b.history()));
}

TEST(Durability, NoCrashNothingToJudge) {
  HistoryBuilder b = three_pushes();
  EXPECT_TRUE(check(b.history()).empty());
}

TEST(Durability, LostCommitFails) {
  HistoryBuilder b = three_pushes();
  history::StorageCrash crash = faithful_crash(b.history());
  crash.recovered[0].messages.pop_back();  // q/p offset 2 (p2) gone, as synchronous=off may do
  b.history().storage_crashes.push_back(crash);
  const auto failures = check(b.history());
  ASSERT_EQ(failures.size(), 1u) << show(failures);
  EXPECT_TRUE(has_failure(failures, kName, "p2", "q/p"));
  EXPECT_NE(failures[0].detail.find("lost offset 2"), std::string::npos) << failures[0].detail;
}

TEST(Durability, WholeDatabaseLostFailsForEveryPartition) {
  HistoryBuilder b = three_pushes();
  history::StorageCrash crash = faithful_crash(b.history());
  crash.recovered.clear();  // the file was never synced and vanished
  b.history().storage_crashes.push_back(crash);
  const auto failures = check(b.history());
  EXPECT_EQ(failures.size(), 4u) << show(failures);
  EXPECT_TRUE(has_failure(failures, kName, "p3", "q/p2"));
}

TEST(Durability, OffsetReusedByAnotherMessageFails) {
  HistoryBuilder b = three_pushes();
  history::StorageCrash crash = faithful_crash(b.history());
  crash.recovered[1].messages[0].message_id = "00000000-0000-7000-8000-000000000001";
  b.history().storage_crashes.push_back(crash);
  EXPECT_TRUE(has_failure(check(b.history()), kName, "p3", "q/p2"));
}

TEST(Durability, CorruptDatabaseFails) {
  HistoryBuilder b = three_pushes();
  history::StorageCrash crash = faithful_crash(b.history());
  crash.integrity = "*** in database main ***\nPage 3 is never used";
  b.history().storage_crashes.push_back(crash);
  const auto failures = check(b.history());
  ASSERT_EQ(failures.size(), 1u) << show(failures);
  EXPECT_NE(failures[0].detail.find("integrity_check"), std::string::npos);
}

TEST(Durability, DeletedBeforeTheCrashIsNotExpected) {
  HistoryBuilder b = three_pushes();
  b.delete_segment("q", "p", 2);
  b.history().storage_crashes.push_back(faithful_crash(b.history()));
  EXPECT_TRUE(check(b.history()).empty()) << show(check(b.history()));
}

TEST(Durability, LaterCrashStillExpectsWhatAnEarlierOneLost) {
  HistoryBuilder b = three_pushes();
  history::StorageCrash first = faithful_crash(b.history());
  first.recovered.clear();
  b.history().storage_crashes.push_back(first);
  b.history().storage_crashes.push_back(first);  // nothing came back the second time either
  EXPECT_EQ(check(b.history()).size(), 8u);
}

}  // namespace
}  // namespace qdt::properties
