// swarm draws, in some of its seeds, every construct a focused profile makes
// likely, so that no bug is caught by one profile alone. Power loss is the
// exception: swarm runs on PostgreSQL too, which cannot lose power.
#include "sim/campaign/workload_knobs.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace qdt::sim {
namespace {

// The largest value each knob takes over `seeds` seeds of `profile`, and the
// smallest of the ones where a small value is the construct.
struct Reach {
  int loss_request = 0, loss_response = 0, duplicate = 0, parallel = 0, advance = 0, configure = 0, retention = 0,
      deletes = 0, storage_fail = 0, skew = 0, crash = 0, cache_race = 0, lifecycle = 0, ack = 0, read = 0,
      completed_retention = 0, contention = 0, evict = 0, kill_switch = 0, fusion_off = 0, retry_attempts = 0,
      brokers_min = 0;
  bool zero_latency = false, small_budget = false, short_cooldown = false, short_retention = false;
  int keys_min = 1 << 30;
  int64_t purge_batch_min = int64_t{1} << 40;
};

Reach reach_of(const std::string& profile, int seeds) {
  Reach r;
  for (int seed = 0; seed < seeds; ++seed) {
    Rng rng(static_cast<uint64_t>(seed));
    const Knobs k = knobs_for(profile, rng);
    r.loss_request = std::max(r.loss_request, k.loss_request_pm);
    r.loss_response = std::max(r.loss_response, k.loss_response_pm);
    r.duplicate = std::max(r.duplicate, k.duplicate_pm);
    r.parallel = std::max(r.parallel, k.parallel_pm);
    r.advance = std::max(r.advance, k.advance_pm);
    r.configure = std::max(r.configure, k.configure_pm);
    r.retention = std::max(r.retention, k.retention_pm);
    r.deletes = std::max(r.deletes, k.delete_pm);
    r.storage_fail = std::max(r.storage_fail, k.storage_fail_pm);
    r.skew = std::max(r.skew, k.skew_pm);
    r.crash = std::max(r.crash, k.crash_pm);
    r.cache_race = std::max(r.cache_race, k.cache_race_pm);
    r.lifecycle = std::max(r.lifecycle, k.lifecycle_pm);
    r.ack = std::max(r.ack, k.ack_pm);
    r.read = std::max(r.read, k.read_pm);
    r.completed_retention = std::max(r.completed_retention, k.completed_retention_pm);
    r.contention = std::max(r.contention, k.contention_pm);
    r.evict = std::max(r.evict, k.evict_pm);
    r.kill_switch = std::max(r.kill_switch, k.kill_switch_pm);
    r.fusion_off = std::max(r.fusion_off, k.fusion_off_pm);
    r.retry_attempts = std::max(r.retry_attempts, k.retry_attempts_max);
    r.brokers_min = std::max(r.brokers_min, k.brokers_min);
    r.zero_latency = r.zero_latency || k.zero_latency;
    r.small_budget = r.small_budget || k.cache_budget_bytes > 0;
    r.short_cooldown = r.short_cooldown || k.decline_cooldown_flushes > 0;
    r.short_retention = r.short_retention || k.retention_seconds > 0;
    r.keys_min = std::min(r.keys_min, k.keys);
    r.purge_batch_min = std::min(r.purge_batch_min, k.purge_batch_max);
  }
  return r;
}

// Whether swarm's reach covers `other`'s: each construct `other` draws at all,
// swarm draws in some seed (how often is each profile's own business).
void expect_covers(const Reach& swarm, const Reach& other, const std::string& name) {
  const auto covers = [&](int s, int o, const char* knob) {
    EXPECT_TRUE(o == 0 || s > 0) << "swarm never draws " << knob << ", which " << name << " draws";
  };
  covers(swarm.loss_request, other.loss_request, "lost requests");
  covers(swarm.loss_response, other.loss_response, "lost responses");
  covers(swarm.duplicate, other.duplicate, "duplicated requests");
  covers(swarm.configure, other.configure, "configures");
  covers(swarm.retention, other.retention, "retention");
  covers(swarm.deletes, other.deletes, "segment deletes");
  covers(swarm.storage_fail, other.storage_fail, "storage faults");
  covers(swarm.skew, other.skew, "clock skew");
  covers(swarm.crash, other.crash, "broker crashes");
  covers(swarm.cache_race, other.cache_race, "cache races");
  covers(swarm.lifecycle, other.lifecycle, "partition lifecycles");
  covers(swarm.ack, other.ack, "acks");
  covers(swarm.read, other.read, "reads");
  covers(swarm.completed_retention, other.completed_retention, "completed retention");
  covers(swarm.contention, other.contention, "contention blocks");
  covers(swarm.evict, other.evict, "evictions");
  covers(swarm.kill_switch, other.kill_switch, "the cache kill switch");
  covers(swarm.fusion_off, other.fusion_off, "fusion turned off");
  EXPECT_GE(swarm.parallel, other.parallel * 3 / 4) << name << " draws parallel steps far more often than swarm ever does";
  EXPECT_GE(swarm.advance, other.advance * 3 / 4) << name << " advances time far more often than swarm ever does";
  EXPECT_GE(swarm.retry_attempts, other.retry_attempts) << name;
  EXPECT_GE(swarm.brokers_min, other.brokers_min) << name;
  EXPECT_TRUE(!other.zero_latency || swarm.zero_latency) << name << "'s zero latency";
  EXPECT_TRUE(!other.small_budget || swarm.small_budget) << name << "'s small cache budget";
  EXPECT_TRUE(!other.short_cooldown || swarm.short_cooldown) << name << "'s short decline cooldown";
  EXPECT_TRUE(!other.short_retention || swarm.short_retention) << name << "'s short retention";
  EXPECT_LE(swarm.keys_min, other.keys_min) << name << "'s few keys";
  EXPECT_LE(swarm.purge_batch_min, other.purge_batch_min) << name << "'s small purge batches";
}

TEST(Knobs, SwarmDrawsEveryConstructOfEveryProfileButPowerLoss) {
  constexpr int kSeeds = 200;
  const Reach swarm = reach_of("swarm", kSeeds);
  for (const char* profile : {"default", "retry-storm", "window-edge", "retention", "reconfigure", "skew",
                              "multi-broker", "cache-pressure", "storage-faults"}) {
    expect_covers(swarm, reach_of(profile, kSeeds), profile);
  }
}

TEST(Knobs, SwarmNeverLosesPowerSoPostgreSqlCanRunIt) {
  for (int seed = 0; seed < 200; ++seed) {
    Rng rng(static_cast<uint64_t>(seed));
    EXPECT_EQ(knobs_for("swarm", rng).crash_storage_pm, 0) << seed;
  }
}

}  // namespace
}  // namespace qdt::sim
