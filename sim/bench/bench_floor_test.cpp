#include "sim/bench/bench_floor.h"

#include <gtest/gtest.h>

#include <string>
#include <variant>

#include "sim/scenario/runner.h"
#include "sim/scenario/scenario.h"

namespace qdt::sim {
namespace {

history::History run_file(const std::string& name) {
  const LoadResult loaded = load_scenario_file(std::string(QDT_SOURCE_DIR) + "/scenarios/" + name);
  EXPECT_TRUE(loaded.scenario.has_value()) << name;
  return run_scenario(*loaded.scenario, RunOptions{}).history;
}

// A run's storage transactions, asked again of a bare storage in commit
// order, answer as they did in the run: the floor replays the run's SQL.
TEST(StorageFloor, ReplayAnswersAsTheRunDid) {
  for (const std::string name : {"basic-duplicate.json", "concurrent-same-key.json", "completed-retention.json",
                                 "deleted-original-zero-id.json", "ack-before-and-after-purge.json"}) {
    const history::History h = run_file(name);
    FloorReplay floor;
    StorageFloor(h).replay(h, floor);
    EXPECT_EQ(floor.disagreements, 0u) << name;
    EXPECT_GT(floor.pushes, 0u) << name;
    EXPECT_GE(floor.transactions, floor.pushes) << name;
    EXPECT_GT(floor.wall_s, 0.0) << name;
  }
}

// A history whose push says otherwise than storage would answer is caught:
// the replay is checked, not trusted.
TEST(StorageFloor, ADoctoredHistoryDisagrees) {
  history::History h = run_file("basic-duplicate.json");
  bool doctored = false;
  for (history::Event& e : h.events) {
    auto* push = std::get_if<history::PushEvent>(&e);
    if (push == nullptr || push->failed || !push->duplicates.empty()) continue;
    push->base_offset += 1;  // queued at another offset than storage allocates
    doctored = true;
    break;
  }
  ASSERT_TRUE(doctored);
  FloorReplay floor;
  StorageFloor(run_file("basic-duplicate.json")).replay(h, floor);
  EXPECT_GE(floor.disagreements, 1u);

  // And a duplicate answered as queued.
  history::History again = run_file("basic-duplicate.json");
  for (history::Event& e : again.events) {
    auto* push = std::get_if<history::PushEvent>(&e);
    if (push != nullptr && !push->duplicates.empty()) {
      push->duplicates.clear();
      push->queued = true;
    }
  }
  FloorReplay second;
  StorageFloor(run_file("basic-duplicate.json")).replay(again, second);
  EXPECT_GE(second.disagreements, 1u);
}

// The campaign floor generates, runs and replays seeds as qdt check does,
// one emptied database for all: seeds of profiles that reconfigure windows,
// purge, fail transactions or mix all of it answer as they did.
TEST(StorageFloor, CampaignSeedsReplayWithoutDisagreement) {
  for (const std::string profile : {"default", "reconfigure", "retention", "storage-faults", "swarm"}) {
    const FloorReplay floor = campaign_storage_floor(profile, 1, 20);
    EXPECT_EQ(floor.disagreements, 0u) << profile;
    EXPECT_GT(floor.pushes, 20u) << profile;
  }
}

}  // namespace
}  // namespace qdt::sim
