#include "sim/campaign/shard_set.h"

#include <gtest/gtest.h>

namespace qdt::sim {
namespace {

nlohmann::json part(const std::string& shard, std::vector<std::string> seeds) {
  nlohmann::json hashes = nlohmann::json::array();
  for (const std::string& s : seeds) hashes.push_back(s + " 0123456789abcdef0123456789abcdef");
  return {{"shard", shard}, {"seed_hashes", hashes}};
}

TEST(ShardSet, AWholeDisjointSplitIsClean) {
  const ShardCoverage c = shard_coverage({part("0/2", {"default 0", "default 2"}), part("1/2", {"default 1"})},
                                         {"a.json", "b.json"});
  EXPECT_FALSE(c.duplicate_seed);
  EXPECT_EQ(c.shard_count, 2u);
  EXPECT_EQ(c.missing_count, 0u);
  EXPECT_TRUE(c.missing_shards.empty());
}

TEST(ShardSet, AFileMergedTwiceNamesTheSeedAndBothFiles) {
  const nlohmann::json a = part("0/2", {"default 0", "default 2"});
  const ShardCoverage c = shard_coverage({a, part("1/2", {"default 1"}), a}, {"a.json", "b.json", "c.json"});
  ASSERT_TRUE(c.duplicate_seed);
  EXPECT_EQ(*c.duplicate_seed, "default 0");
  EXPECT_EQ(c.first_file, "a.json");
  EXPECT_EQ(c.second_file, "c.json");
  EXPECT_EQ(c.duplicate_path, "/seed_hashes/0");
}

TEST(ShardSet, OneSeedTwiceWithinOneFileIsADuplicate) {
  const ShardCoverage c = shard_coverage({part("0/1", {"retention 4", "default 4", "retention 4"})}, {"a.json"});
  ASSERT_TRUE(c.duplicate_seed);
  EXPECT_EQ(*c.duplicate_seed, "retention 4");
  EXPECT_EQ(c.duplicate_path, "/seed_hashes/2");
  EXPECT_EQ(c.first_file, c.second_file);
}

TEST(ShardSet, TheSameSeedOfTwoProfilesIsNoDuplicate) {
  EXPECT_FALSE(shard_coverage({part("0/1", {"default 4", "retention 4"})}, {"a.json"}).duplicate_seed);
}

TEST(ShardSet, AbsentShardsAreNamedAndBounded) {
  const ShardCoverage c = shard_coverage({part("1/4", {}), part("3/4", {})}, {"a", "b"});
  EXPECT_EQ(c.shard_count, 4u);
  EXPECT_EQ(c.missing_count, 2u);
  EXPECT_EQ(c.missing_shards, (std::vector<uint64_t>{0, 2}));
  const ShardCoverage big = shard_coverage({part("5/1000000", {})}, {"a"});
  EXPECT_EQ(big.missing_count, 999999u);
  EXPECT_EQ(big.missing_shards.size(), ShardCoverage::kMissingListed);
}

TEST(ShardSet, NoSplitWhenShardsDisagreeOrWereMerged) {
  EXPECT_EQ(shard_coverage({part("0/2", {}), part("0/3", {})}, {"a", "b"}).shard_count, 0u);
  EXPECT_EQ(shard_coverage({part("merged", {}), part("0/2", {})}, {"a", "b"}).shard_count, 0u);
  nlohmann::json odd = part("0/2", {});
  odd["shard"] = 7;  // not a string: no split, and no exception
  EXPECT_EQ(shard_coverage({odd}, {"a"}).shard_count, 0u);
}

}  // namespace
}  // namespace qdt::sim
