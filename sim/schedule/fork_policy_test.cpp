#include "sim/schedule/fork_policy.h"

#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>

#include "sim/campaign/workload.h"
#include "sim/scenario/runner.h"
#include "sim/scenario/scenario.h"

namespace qdt::sim {
namespace {

using json = nlohmann::json;

RunOutcome run(const json& doc) {
  LoadResult loaded = load_scenario_text(doc.dump(), "fork-test");
  EXPECT_TRUE(loaded.scenario.has_value());
  RunOptions options;
  options.keep_trace_text = true;
  return run_scenario(*loaded.scenario, options);
}

json forked(json doc, uint64_t after, uint64_t seed) {
  doc["world"]["schedule"] = {{"mode", "fork"}, {"fork_after_picks", after}, {"fork_seed", seed}};
  return doc;
}

std::string without_schedule_line(const std::string& trace) {
  std::istringstream in(trace);
  std::string line, out;
  while (std::getline(in, line)) {
    if (line.find(" schedule mode=fork") == std::string::npos) out += line + "\n";
  }
  return out;
}

TEST(ForkPolicy, APrefixLongerThanTheRunIsTheRandomScheduleExactly) {
  const json doc = generate_scenario(3, "multi-broker");
  const RunOutcome random = run(doc);
  const RunOutcome fork = run(forked(doc, 1'000'000, 99));
  EXPECT_EQ(without_schedule_line(fork.trace_text), random.trace_text);
  EXPECT_NE(fork.result.trace_hash, random.result.trace_hash);  // the fork line is in the trace
}

TEST(ForkPolicy, ForksRedrawWhatFollowsTheirPoint) {
  const json doc = generate_scenario(3, "multi-broker");
  std::set<std::string> hashes;
  for (uint64_t seed = 0; seed < 6; ++seed) hashes.insert(run(forked(doc, 5, seed)).result.trace_hash);
  EXPECT_GT(hashes.size(), 1u);
  // The same fork twice is the same run.
  EXPECT_EQ(run(forked(doc, 5, 1)).result.trace_hash, run(forked(doc, 5, 1)).result.trace_hash);
}

TEST(ForkPolicy, AForkAtAPointsFirstPickReachesThatPointAgain) {
  // The invariant --fork-rare relies on: the prefix replays the steps up to
  // and including the one that first reached the point.
  size_t checked = 0;
  for (uint64_t s = 1; s <= 4; ++s) {
    const json doc = generate_scenario(s, "cache-pressure");
    const RunOutcome original = run(doc);
    for (const auto& [point, picks] : original.result.reached_at_pick) {
      for (uint64_t seed : {1u, 2u}) {
        const RunOutcome fork = run(forked(doc, picks, seed));
        const std::vector<std::string>& reached = fork.result.reached;
        EXPECT_NE(std::find(reached.begin(), reached.end(), point), reached.end())
            << point << " at pick " << picks << ", seed " << s << ", fork seed " << seed;
        ++checked;
      }
    }
  }
  EXPECT_GT(checked, 40u);
}

}  // namespace
}  // namespace qdt::sim
