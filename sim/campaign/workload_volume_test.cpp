// Volume (docs/semantics.md §10.4): a share of the seeds of the profiles that
// ask, the shape a volume seed appends, and that other profiles never draw it.
#include "sim/campaign/workload_volume.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "sim/campaign/workload.h"

namespace qdt::sim {
namespace {

TEST(WorkloadVolume, AShareOfTheSeedsOfTheProfilesThatAsk) {
  int multi = 0, pressure = 0;
  for (uint64_t seed = 1; seed <= 4000; ++seed) {
    multi += profile_seed_has_volume(seed, "multi-broker") ? 1 : 0;
    pressure += profile_seed_has_volume(seed, "cache-pressure") ? 1 : 0;
    for (const char* other : {"default", "retry-storm", "window-edge", "swarm", "power-loss"}) {
      ASSERT_FALSE(profile_seed_has_volume(seed, other)) << other << " seed " << seed;
    }
  }
  // One in forty, drawn per seed.
  EXPECT_GT(multi, 60);
  EXPECT_LT(multi, 140);
  EXPECT_GT(pressure, 60);
  EXPECT_LT(pressure, 140);
}

TEST(WorkloadVolume, ThousandsOfItemsToOnePartitionThenARunInsideOneWindow) {
  const VolumeShape shape;
  const nlohmann::json steps = volume_steps(7, 3, shape);
  ASSERT_GE(steps.size(), 2 + static_cast<size_t>(shape.run_pushes_min));
  const nlohmann::json& large = steps.front()["items"];
  EXPECT_GE(static_cast<int64_t>(large.size()), shape.large_items_min);
  EXPECT_LE(static_cast<int64_t>(large.size()), shape.large_items_max);
  std::set<std::string> ids, large_keys;
  int repeats = 0;
  for (const nlohmann::json& s : steps) {
    ASSERT_EQ(s["op"], "push");  // no advance: the run stays inside one window
    EXPECT_TRUE(ids.insert(s["id"].get<std::string>()).second);
    EXPECT_LT(s["broker"].get<uint64_t>(), 3u);
    for (const nlohmann::json& item : s["items"]) {
      EXPECT_EQ(item["queue"], "q0");
      EXPECT_EQ(item["partition"], "p0");
      const std::string key = item["transactionId"];
      if (&s == &steps.front()) large_keys.insert(key);
      else if (large_keys.count(key)) ++repeats;
    }
  }
  EXPECT_EQ(large_keys.size(), large.size());  // every key of the large request is new
  EXPECT_GE(repeats, 32);  // the closing repeat at least
  EXPECT_LE(repeats, 64);  // bounded: each duplicate's id is read with its whole segment
  EXPECT_EQ(volume_steps(7, 3, shape), steps);  // the seed alone decides
}

TEST(WorkloadVolume, AVolumeSeedEndsWithItsStepsAndAnOrdinarySeedHasNone) {
  uint64_t volume = 0, ordinary = 0;
  for (uint64_t seed = 1; volume == 0 || ordinary == 0; ++seed) {
    (profile_seed_has_volume(seed, "multi-broker") ? volume : ordinary) = seed;
  }
  auto has_volume_steps = [](const nlohmann::json& doc) {
    for (const nlohmann::json& s : doc["steps"]) {
      if (s.value("id", std::string()) == "v0") return true;
    }
    return false;
  };
  EXPECT_TRUE(has_volume_steps(generate_scenario(volume, "multi-broker")));
  EXPECT_FALSE(has_volume_steps(generate_scenario(ordinary, "multi-broker")));
}

}  // namespace
}  // namespace qdt::sim
