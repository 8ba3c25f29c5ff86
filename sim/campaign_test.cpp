#include "sim/campaign.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <iostream>
#include <set>

#include "sim/scenario.h"
#include "sim/workload.h"

namespace qdt::sim {
namespace {

// Generated scenarios always pass the loader (schema and semantic rules).
RC_GTEST_PROP(Workload, GeneratedScenariosAlwaysValidate, ()) {
  const auto seed = *rc::gen::arbitrary<uint64_t>();
  const auto profile = *rc::gen::elementOf(profile_names());
  const nlohmann::json doc = generate_scenario(seed, profile);
  const LoadResult loaded = load_scenario_text(doc.dump(), "generated");
  RC_ASSERT(loaded.errors.empty());
  RC_ASSERT(loaded.scenario.has_value());
  RC_ASSERT(count_steps(doc) >= 1);
}

// Same seed, same document and same trace, in one process; another seed, another schedule.
TEST(Campaign, SeedsAreDeterministic) {
  std::set<std::string> hashes;
  for (const std::string& profile : profile_names()) {
    for (uint64_t seed = 1; seed <= 4; ++seed) {
      const SeedOutcome a = check_seed(seed, profile, impl::Variant::none);
      const SeedOutcome b = check_seed(seed, profile, impl::Variant::none);
      EXPECT_TRUE(a.passed) << profile << " " << seed << " " << a.result["failures"].dump();
      EXPECT_EQ(a.scenario, b.scenario);
      EXPECT_EQ(a.result["trace_hash"], b.result["trace_hash"]) << profile << " " << seed;
      hashes.insert(a.result["trace_hash"].get<std::string>());
    }
  }
  EXPECT_EQ(hashes.size(), profile_names().size() * 4);
}

TEST(Campaign, ShrinkKeepsTheFailureAndReducesTheScenario) {
  SeedOutcome o;
  uint64_t seed = 1;
  for (; seed < 50; ++seed) {
    o = check_seed(seed, "default", impl::Variant::skip_probe);
    if (!o.passed) break;
  }
  ASSERT_FALSE(o.passed) << "skip-probe was never caught";
  const Shrunk s = shrink(o.scenario, impl::Variant::skip_probe, o.signature);
  EXPECT_LE(count_steps(s.scenario), count_steps(o.scenario));
  EXPECT_LE(count_steps(s.scenario), 8);
  EXPECT_EQ(failure_signature(s.result), o.signature);
  // With the reference's answers as expectations, the file passes on the reference.
  const nlohmann::json doc = with_reference_expectations(s.scenario);
  EXPECT_TRUE(doc.contains("expect"));
  const LoadResult loaded = load_scenario_text(doc.dump(), "shrunk");
  ASSERT_TRUE(loaded.scenario.has_value());
}

TEST(Campaign, ReferencePassesEveryProfile) {
  for (const std::string& profile : profile_names()) {
    for (uint64_t seed = 100; seed < 120; ++seed) {
      const SeedOutcome o = check_seed(seed, profile, impl::Variant::none);
      EXPECT_TRUE(o.passed) << profile << " seed " << seed << ": " << o.result["failures"].dump();
    }
  }
}

}  // namespace
}  // namespace qdt::sim

namespace qdt::sim {
namespace {

// The cache profiles really exercise the cache's hard paths.
TEST(Campaign, CacheProfilesExerciseEvictionDeclineAndGaps) {
  int64_t evictions = 0, suppressed = 0, span_hydrations = 0, vouched = 0;
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    const SeedOutcome pressure = check_seed(seed, "cache-pressure", impl::Variant::none);
    EXPECT_TRUE(pressure.passed) << seed << pressure.result["failures"].dump();
    evictions += pressure.result["metrics"]["cache"]["evictions"].get<int64_t>();
    suppressed += pressure.result["metrics"]["cache"]["suppressed_partitions"].get<int64_t>();
    const SeedOutcome multi = check_seed(seed, "multi-broker", impl::Variant::none);
    EXPECT_TRUE(multi.passed) << seed << multi.result["failures"].dump();
    span_hydrations += multi.result["metrics"]["cache"]["hydrations_span"].get<int64_t>();
    vouched += multi.result["metrics"]["cache"]["vouched"].get<int64_t>();
  }
  std::cout << "cache-pressure: " << evictions << " evictions, " << suppressed << " suppressed answers; "
            << "multi-broker: " << span_hydrations << " span hydrations, " << vouched << " vouched answers\n";
  EXPECT_GT(evictions, 0);
  EXPECT_GT(suppressed, 0);
  EXPECT_GT(span_hydrations, 0);
  EXPECT_GT(vouched, 0);
}

}  // namespace
}  // namespace qdt::sim
