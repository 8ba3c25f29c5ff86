#include <gtest/gtest.h>

#include "properties/checkers.h"
#include "properties/history_builder_test.h"

namespace qdt::properties {
namespace {

using namespace testing;

const std::string kName = "sidecar-floor";

std::vector<Failure> check(const history::History& h) { return check_property(kName, h); }

TEST(SidecarFloor, PurgeOfRowsPastTheFloorPasses) {
  HistoryBuilder b;
  b.configure("q", 0).push("p1", "q", "p", {"a"}).advance_seconds(901).purge("q", "p");
  ASSERT_EQ(nth<history::PurgeEvent>(b.history()).rows.size(), 1u);
  EXPECT_TRUE(check(b.history()).empty()) << show(check(b.history()));
}

TEST(SidecarFloor, The900SecondFloorHoldsWithTheWindowOff) {
  HistoryBuilder b;
  b.configure("q", 0).push("p1", "q", "p", {"a"}).advance_seconds(899).purge("q", "p");
  history::PurgeEvent& purge = nth<history::PurgeEvent>(b.history());
  ASSERT_TRUE(purge.rows.empty());
  purge.rows.push_back({0, 0, 1'000'000});  // as the purge-below-floor variant does
  purge.floor_seconds = 0;
  const auto failures = check(b.history());
  ASSERT_TRUE(has_failure(failures, kName, "", "q/p")) << show(failures);
  EXPECT_TRUE(has_rule(failures, Rule::sidecar_floor_young_row_purged)) << show(failures);
  EXPECT_NE(failures[0].detail.find("899000 ms old"), std::string::npos) << show(failures);
  EXPECT_NE(failures[0].detail.find("rows younger than 900 s are kept"), std::string::npos) << show(failures);
}

TEST(SidecarFloor, CompletedRetentionRaisesTheFloor) {
  HistoryBuilder b;
  b.configure("q", 60, 2000).push("p1", "q", "p", {"a"}).advance_seconds(1500).purge("q", "p");
  history::PurgeEvent& purge = nth<history::PurgeEvent>(b.history());
  ASSERT_TRUE(purge.rows.empty());
  purge.rows.push_back({0, 0, 1'000'000});
  const auto failures = check(b.history());
  ASSERT_TRUE(has_failure(failures, kName, "", "q/p")) << show(failures);
  EXPECT_NE(failures[0].detail.find("rows younger than 2000 s are kept"), std::string::npos) << show(failures);
}

TEST(SidecarFloor, TheRowsAgeComesFromItsPushNotFromThePurgeRecord) {
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a"}).advance_seconds(100).purge("q", "p");
  nth<history::PurgeEvent>(b.history()).rows.push_back({0, 0, 0});  // claims to be ancient
  EXPECT_TRUE(has_failure(check(b.history()), kName, "", "q/p"));
}

}  // namespace
}  // namespace qdt::properties
