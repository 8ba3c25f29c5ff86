#include "sim/base/nearest_name.h"

#include <gtest/gtest.h>

namespace qdt::sim {
namespace {

TEST(EditDistance, CountsEachKindOfEditOnce) {
  EXPECT_EQ(edit_distance("replay", "replay"), 0u);
  EXPECT_EQ(edit_distance("repaly", "replay"), 1u);       // swapped neighbours
  EXPECT_EQ(edit_distance("partiton", "partition"), 1u);  // one left out
  EXPECT_EQ(edit_distance("seeds", "seed"), 1u);
  EXPECT_EQ(edit_distance("chek", "check"), 1u);
  EXPECT_EQ(edit_distance("Queue", "queue"), 0u);  // case is not an edit
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("abc", "xyz"), 3u);
}

TEST(NearestName, SuggestsTyposAndShortenedNames) {
  const std::vector<std::string> commands = {"replay", "check", "mutants", "explore", "explore-schedules", "bench"};
  EXPECT_EQ(nearest_name("repaly", commands), "replay");
  EXPECT_EQ(nearest_name("chekc", commands), "check");
  EXPECT_EQ(nearest_name("explroe", commands), "explore");
  const std::vector<std::string> retry = {"timeout_ms", "attempts", "backoff_ms"};
  EXPECT_EQ(nearest_name("backoff", retry), "backoff_ms");
  EXPECT_EQ(nearest_name("atempts", retry), "attempts");
  EXPECT_EQ(nearest_name("timeout", retry), "timeout_ms");
}

TEST(NearestName, StaysQuietWhenNothingIsNear) {
  const std::vector<std::string> item = {"queue", "partition", "transactionId", "data"};
  EXPECT_EQ(nearest_name("zzz", item), std::nullopt);
  EXPECT_EQ(nearest_name("payload", item), std::nullopt);
  EXPECT_EQ(nearest_name("", item), std::nullopt);
  EXPECT_EQ(nearest_name("queue", item), std::nullopt);  // known: nothing to suggest
  EXPECT_EQ(nearest_name("q", item), std::nullopt);      // too short to be a prefix
  EXPECT_EQ(nearest_name("partiton", {}), std::nullopt);
  EXPECT_EQ(nearest_name(std::string(1000, 'a'), {std::string(1000, 'a') + "b"}), std::nullopt);
}

TEST(NearestName, TiesGoToTheEarlierName) {
  EXPECT_EQ(nearest_name("ab", {"ax", "ay"}), "ax");
  EXPECT_EQ(nearest_name("ab", {"ay", "ax"}), "ay");
}

TEST(DidYouMean, IsAClauseOrNothing) {
  EXPECT_EQ(did_you_mean("defualt", {"default", "multi-broker"}), "; did you mean \"default\"?");
  EXPECT_EQ(did_you_mean("zzzzzz", {"default", "multi-broker"}), "");
}

}  // namespace
}  // namespace qdt::sim
