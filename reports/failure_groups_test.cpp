#include "reports/failure_groups.h"

#include <gtest/gtest.h>

namespace qdt::reports {
namespace {

using nlohmann::json;

json failure(const std::string& cause, const std::string& profile, int steps = -1) {
  json f = {{"cause", cause}, {"property", "model-agreement"}, {"profile", profile}, {"seed", 1}};
  if (steps >= 0) {
    f["file"] = "f.json";
    f["steps"] = steps;
  }
  return f;
}

TEST(FailureGroups, ByCauseMostSeedsFirstWithTheSmallestShrunkMember) {
  const json failures = {failure("a/x · push", "default", 5), failure("b/y · ack", "retention"),
                         failure("b/y · ack", "swarm", 3), failure("b/y · ack", "retention", 2)};
  const auto groups = failure_groups(failures);
  ASSERT_EQ(groups.size(), 2u);
  EXPECT_EQ(groups[0].cause, "b/y · ack");
  EXPECT_EQ(groups[0].members, (std::vector<size_t>{1, 2, 3}));
  EXPECT_EQ(groups[0].profiles, (std::vector<std::string>{"retention", "swarm"}));
  ASSERT_TRUE(groups[0].smallest);
  EXPECT_EQ(*groups[0].smallest, 3u);
  EXPECT_EQ(groups[1].cause, "a/x · push");
  EXPECT_EQ(*groups[1].smallest, 0u);
}

TEST(FailureGroups, ARecordWithoutACauseGroupsByItsPropertyAndUnshrunkHasNoStory) {
  json f = failure("", "default");
  f.erase("cause");
  const auto groups = failure_groups(json::array({f, f}));
  ASSERT_EQ(groups.size(), 1u);
  EXPECT_EQ(groups[0].cause, "model-agreement");
  EXPECT_FALSE(groups[0].smallest);
}

}  // namespace
}  // namespace qdt::reports
