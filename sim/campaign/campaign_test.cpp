#include "sim/campaign/campaign.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <functional>
#include <iostream>
#include <map>
#include <set>

#include "properties/evidence.h"
#include "sim/campaign/campaign_merge.h"
#include "sim/campaign/judged_counts.h"
#include "sim/campaign/failure_file.h"
#include "sim/campaign/shrink.h"
#include "sim/campaign/workload.h"
#include "sim/scenario/scenario.h"

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
TEST(Campaign, APassOnNothingJudgedIsHollow) {
  // Every ack failed: ack-resolution judged none of them.
  const auto acks = hollow_properties({{"evidence.ack-resolution.of", 412},
                                       {"evidence.ack-resolution.judged", 0},
                                       {"evidence.model-agreement.of", 9},
                                       {"evidence.model-agreement.judged", 9}});
  ASSERT_EQ(acks.size(), 1u);
  EXPECT_EQ(acks[0], "judged 0 of 412 acks: every one failed, so ack-resolution judged nothing");
  // Every push failed: each property reading storage pushes, in one line.
  nlohmann::json pushes_failed;
  for (const char* p : {"model-agreement", "no-double-write", "offsets"}) {
    pushes_failed[std::string("evidence.") + p + ".of"] = 7;
    pushes_failed[std::string("evidence.") + p + ".judged"] = 0;
  }
  const auto pushes = hollow_properties(pushes_failed);
  ASSERT_EQ(pushes.size(), 1u);
  EXPECT_EQ(pushes[0].rfind("judged 0 of 7 storage pushes: every one failed, so model-agreement, no-double-write", 0), 0u)
      << pushes[0];
  EXPECT_EQ(unjudged_text(pushes_failed), "7 of 7 storage pushes");
  // One judged event is enough; no events at all is nothing to judge.
  EXPECT_TRUE(hollow_properties({{"evidence.ack-resolution.of", 412}, {"evidence.ack-resolution.judged", 1}}).empty());
  EXPECT_TRUE(hollow_properties({{"evidence.ack-resolution.of", 0}}).empty());
  EXPECT_EQ(judged_counts({{"evidence.ack-resolution.of", 3}})["ack-resolution"],
            (nlohmann::json{{"of", 3}, {"judged", 0}}));
}

// A property whose events the profiles never drew is named, not silently passed.
TEST(Campaign, APropertyWithNoEventIsNamed) {
  nlohmann::json totals;
  for (const properties::Evidence& e : properties::evidence_of(history::History{})) {
    totals["evidence." + e.property + ".of"] = e.property == "sidecar-floor" ? 0 : 5;
    totals["evidence." + e.property + ".judged"] = e.property == "sidecar-floor" ? 0 : 5;
  }
  EXPECT_EQ(idle_properties_text(totals), "no purge steps, so sidecar-floor judged nothing");
  totals["evidence.sidecar-floor.of"] = 1;
  totals["evidence.sidecar-floor.judged"] = 1;
  EXPECT_EQ(idle_properties_text(totals), "");
}

TEST(Campaign, SeedsAreDeterministic) {
  std::set<std::string> hashes;
  for (const std::string& profile : profile_names()) {
    for (uint64_t seed = 1; seed <= 4; ++seed) {
      const SeedOutcome a = check_seed(seed, profile, impl::Variant::none);
      const SeedOutcome b = check_seed(seed, profile, impl::Variant::none);
      EXPECT_TRUE(a.passed) << profile << " " << seed << " " << a.result.to_json()["failures"].dump();
      EXPECT_EQ(a.scenario, b.scenario);
      EXPECT_EQ(a.result.trace_hash, b.result.trace_hash) << profile << " " << seed;
      hashes.insert(a.result.trace_hash);
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
  ASSERT_TRUE(s.result.has_value());
  EXPECT_EQ(failure_signature(*s.result), o.signature);
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
      EXPECT_TRUE(o.passed) << profile << " seed " << seed << ": " << o.result.to_json()["failures"].dump();
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
    EXPECT_TRUE(pressure.passed) << seed << pressure.result.to_json()["failures"].dump();
    evictions += pressure.result.metrics["cache"]["evictions"].get<int64_t>();
    suppressed += pressure.result.metrics["cache"]["suppressed_partitions"].get<int64_t>();
    const SeedOutcome multi = check_seed(seed, "multi-broker", impl::Variant::none);
    EXPECT_TRUE(multi.passed) << seed << multi.result.to_json()["failures"].dump();
    span_hydrations += multi.result.metrics["cache"]["hydrations_span"].get<int64_t>();
    vouched += multi.result.metrics["cache"]["vouched"].get<int64_t>();
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

namespace qdt::sim {
namespace {

// What a set of generated documents contains, of the constructs the
// campaign must draw (docs/semantics.md §8): each a "sometimes" point of the generator.
struct Drawn {
  std::set<int64_t> completed_retention_seconds;  // from configure steps
  std::set<std::string> ack_groups;               // consumer groups of acks of a key pushed before
  int acked_by_two_groups = 0;                    // pushed keys acked from >= 2 groups in one scenario
  int reads = 0;
  std::set<std::string> fail_targets;
  std::set<int64_t> fail_statements;
  std::set<std::string> fail_codes;
  std::set<std::string> pg_actions;  // what a fault does to a PostgreSQL backend
  int contention_blocks = 0;  // parallel: >= 2 brokers pushing to one partition + a retention
};

void scan(const nlohmann::json& doc, Drawn& d) {
  std::set<std::string> pushed;                            // "queue/partition/key"
  std::map<std::string, std::set<std::string>> groups_of;  // pushed key -> groups that acked it
  std::function<void(const nlohmann::json&, bool)> visit = [&](const nlohmann::json& steps, bool in_parallel) {
    for (const auto& s : steps) {
      const std::string op = s["op"];
      if (op == "push") {
        for (const auto& it : s["items"]) {
          pushed.insert(it["queue"].get<std::string>() + "/" + it.value("partition", "Default") + "/" +
                        it["transactionId"].get<std::string>());
        }
      } else if (op == "configure" && s["options"].contains("completedRetentionSeconds")) {
        d.completed_retention_seconds.insert(s["options"]["completedRetentionSeconds"].get<int64_t>());
      } else if (op == "ack") {
        const std::string key = s["queue"].get<std::string>() + "/" + s.value("partition", "Default") + "/" +
                                s["transactionId"].get<std::string>();
        if (pushed.count(key)) {
          const std::string group = s.value("consumerGroup", "default");
          d.ack_groups.insert(group);
          groups_of[key].insert(group);
        }
      } else if (op == "read") {
        ++d.reads;
      } else if (op == "storage_fail") {
        d.fail_targets.insert(s.value("target", "push"));
        d.fail_statements.insert(s.value("after_statements", int64_t{0}));
        d.fail_codes.insert(s.value("code", "ioerr"));
        d.pg_actions.insert(s.value("pg", "cancel"));
      } else if (op == "parallel") {
        std::set<std::string> partitions;
        std::set<int64_t> brokers;
        int pushes = 0;
        bool retention = false;
        for (const auto& c : s["steps"]) {
          if (c["op"] == "retention") retention = true;
          if (c["op"] != "push") continue;
          ++pushes;
          brokers.insert(c.value("broker", int64_t{0}));
          for (const auto& it : c["items"]) {
            partitions.insert(it["queue"].get<std::string>() + "/" + it.value("partition", "Default"));
          }
        }
        if (retention && pushes >= 2 && brokers.size() >= 2 && partitions.size() == 1) ++d.contention_blocks;
        visit(s["steps"], true);
      }
      (void)in_parallel;
    }
  };
  visit(doc["steps"], false);
  for (const auto& [key, groups] : groups_of) d.acked_by_two_groups += groups.size() >= 2 ? 1 : 0;
}

Drawn drawn(const std::string& profile, uint64_t seeds) {
  Drawn d;
  for (uint64_t seed = 1; seed <= seeds; ++seed) scan(generate_scenario(seed, profile), d);
  return d;
}

void expect_every_storage_fault(const Drawn& d, const std::string& profile) {
  EXPECT_EQ(d.fail_targets, (std::set<std::string>{"push", "fetch", "hydrate", "ack", "read", "retention", "purge", "any"}))
      << profile;
  EXPECT_EQ(d.fail_statements, (std::set<int64_t>{0, 1, 2, 3, 4, 5, 6})) << profile;
  EXPECT_EQ(d.fail_codes, (std::set<std::string>{"ioerr", "full"})) << profile;
  EXPECT_EQ(d.pg_actions, (std::set<std::string>{"cancel", "terminate"})) << profile;
}

// The campaign draws what it must: completed retention either side of the
// 900 s floor, acks of pushed keys from several groups, reads, statement
// faults in every kind of transaction at every early statement with both
// codes, and write-lock contention between brokers and retention.
TEST(Workload, ProfilesDrawEveryConstruct) {
  constexpr uint64_t kSeeds = 200;
  {
    const Drawn d = drawn("storage-faults", kSeeds);
    expect_every_storage_fault(d, "storage-faults");
    EXPECT_GT(d.reads, 0);
    EXPECT_GT(d.contention_blocks, 0);
    EXPECT_GE(d.ack_groups.size(), 3u);
  }
  for (const char* profile : {"swarm", "default"}) expect_every_storage_fault(drawn(profile, kSeeds), profile);
  for (const char* profile : {"retention", "reconfigure", "swarm"}) {
    const Drawn d = drawn(profile, kSeeds);
    EXPECT_TRUE(std::any_of(d.completed_retention_seconds.begin(), d.completed_retention_seconds.end(),
                            [](int64_t s) { return s > 900; }))
        << profile;
    EXPECT_TRUE(std::any_of(d.completed_retention_seconds.begin(), d.completed_retention_seconds.end(),
                            [](int64_t s) { return s > 0 && s < 900; }))
        << profile;
    EXPECT_GE(d.ack_groups.size(), 3u) << profile;
    EXPECT_GT(d.acked_by_two_groups, 0) << profile;
  }
  for (const char* profile : {"retention", "multi-broker", "swarm"}) {
    const Drawn d = drawn(profile, kSeeds);
    EXPECT_GT(d.contention_blocks, 0) << profile;
    EXPECT_GT(d.reads, 0) << profile;
  }
  EXPECT_GT(drawn("default", kSeeds).reads, 0);
}

// The same scan sees nothing in a document without those constructs, so the
// test above can fail.
TEST(Workload, ScanFindsNothingInAPlainScenario) {
  Drawn d;
  scan(nlohmann::json::parse(R"({"steps": [
    {"op": "push", "items": [{"queue": "q0", "partition": "p0", "transactionId": "k0", "data": 1}]},
    {"op": "parallel", "steps": [
      {"op": "push", "broker": 0, "items": [{"queue": "q0", "partition": "p0", "transactionId": "k1", "data": 1}]},
      {"op": "push", "broker": 0, "items": [{"queue": "q0", "partition": "p0", "transactionId": "k2", "data": 1}]},
      {"op": "retention"}]},
    {"op": "ack", "queue": "q0", "partition": "p0", "transactionId": "k9"}]})"),
       d);
  EXPECT_EQ(d.contention_blocks, 0);  // one broker only
  EXPECT_TRUE(d.ack_groups.empty());  // k9 was never pushed
  EXPECT_EQ(d.reads, 0);
  EXPECT_TRUE(d.fail_targets.empty());
}

}  // namespace
}  // namespace qdt::sim
