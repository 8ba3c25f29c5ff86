#include "sim/campaign/workload_knobs.h"

namespace qdt::sim {
namespace {

// One seed in forty: enough that a campaign of a few hundred seeds crosses
// a module's capacities several times, few enough that it stays quick.
constexpr int kVolumePm = 25;

}  // namespace

Knobs knobs_for(const std::string& profile, Rng& rng) {
  Knobs k;
  if (profile == "default") {
    k.loss_response_pm = 50;
    k.loss_request_pm = 20;
    k.duplicate_pm = 20;
    k.storage_fail_pm = 20;
    k.delete_pm = 20;
    k.retention_pm = 20;
    k.read_pm = 30;
  } else if (profile == "retry-storm") {
    k.keys = 3;
    k.loss_request_pm = 250;
    k.loss_response_pm = 300;
    k.duplicate_pm = 200;
    k.parallel_pm = 500;
    k.retry_attempts_max = 6;
    k.crash_pm = 30;
  } else if (profile == "window-edge") {
    k.windows_seconds = {1, 10};
    k.zero_latency = true;
    k.advance_pm = 450;
    k.parallel_pm = 100;
  } else if (profile == "retention") {
    k.windows_seconds = {0, 10, 60, 1000};
    k.retention_pm = 200;
    k.delete_pm = 80;
    k.advance_pm = 300;
    k.ack_pm = 150;
    k.retention_seconds = 120;
    k.purge_batch_max = 3;
    k.completed_retention_pm = 150;
    k.read_pm = 60;
    k.contention_pm = 120;
    k.brokers_min = 2;
    k.lifecycle_pm = 60;
  } else if (profile == "reconfigure") {
    k.windows_seconds = {0, 1, 10, 3600};
    k.configure_pm = 250;
    k.advance_pm = 300;
    k.completed_retention_pm = 100;
    k.ack_pm = 100;
  } else if (profile == "skew") {
    k.brokers_max = 3;
    k.skew_pm = 150;
    k.windows_seconds = {10, 60};
    k.advance_pm = 250;
  } else if (profile == "multi-broker") {
    // Several brokers interleave on few partitions: hydration gaps and overlaps.
    k.brokers_min = 2;
    k.brokers_max = 4;
    k.partitions = 1;
    k.parallel_pm = 450;
    k.evict_pm = 40;
    k.loss_response_pm = 50;
    k.crash_pm = 20;
    k.contention_pm = 150;
    k.retention_pm = 30;
    k.read_pm = 30;
    k.volume_pm = kVolumePm;  // hydrations and gaps of thousands of hashes
  } else if (profile == "cache-pressure") {
    k.volume_pm = kVolumePm;  // a partition alone far over any budget
    // A budget far below the working set: declines, evictions, cooldowns.
    // In the cache's charge (dedup_cache.h: 480 bytes a partition plus about
    // 45 a one-hash row), drawn so that a seed declines, evicts and vouches
    // about as often as it did under the old charge (256 + 128 a row, budgets
    // 600-3600); at the low end a partition of one row is declined.
    k.keys = 12;
    k.partitions = 4;
    k.cache_budget_bytes = 540 + static_cast<int64_t>(rng.below(2600));
    k.evict_pm = 60;
    k.kill_switch_pm = 40;
    k.brokers_max = 2;
    // Short enough that a declined partition is tried again within a run
    // (the default, 64 flushes, outlasts every generated scenario).
    k.decline_cooldown_flushes = 1 + static_cast<int64_t>(rng.below(8));
    k.cache_race_pm = 80;
    k.fusion_off_pm = 500;
  } else if (profile == "swarm") {
    // Each seed switches a random subset of faults on.
    auto maybe = [&rng](int pm) { return rng.below(2) ? pm : 0; };
    k.loss_request_pm = maybe(150);
    k.loss_response_pm = maybe(200);
    k.duplicate_pm = maybe(150);
    k.storage_fail_pm = maybe(60);
    k.delete_pm = maybe(60);
    k.retention_pm = maybe(100);
    k.configure_pm = maybe(120);
    k.skew_pm = maybe(100);
    k.crash_pm = maybe(50);
    k.evict_pm = maybe(60);
    k.kill_switch_pm = maybe(40);
    k.read_pm = maybe(60);
    k.completed_retention_pm = maybe(100);
    k.contention_pm = maybe(100);
    k.ack_pm = maybe(120);
    if (rng.below(2)) k.cache_budget_bytes = 540 + static_cast<int64_t>(rng.below(4300));  // scaled as cache-pressure's
    k.windows_seconds = {0, 1, 10, 60, 3600};
    k.brokers_max = 3;
    // What the focused profiles draw, each in half the seeds, so no catch
    // depends on one profile. Power loss stays power-loss's own: swarm runs
    // on PostgreSQL too, which cannot lose power.
    k.zero_latency = rng.below(2) == 0;  // window-edge's exact instants
    if (rng.below(2)) k.advance_pm = 350;
    if (rng.below(2)) k.parallel_pm = 400;
    if (rng.below(2)) k.keys = 3;  // retry-storm's collisions
    if (rng.below(2)) k.retry_attempts_max = 6;
    if (rng.below(2)) k.brokers_min = 2;
    k.cache_race_pm = maybe(60);
    k.fusion_off_pm = maybe(500);
    k.lifecycle_pm = maybe(60);
    if (rng.below(2)) k.decline_cooldown_flushes = 1 + static_cast<int64_t>(rng.below(8));
    if (rng.below(2)) {
      k.retention_seconds = 30;
      k.purge_batch_max = 2;
    }
  } else if (profile == "storage-faults") {
    // Statement failures in every kind of storage transaction, at every early
    // statement, while acks, reads, retention and a second broker make the
    // fetch, hydrate, ack, read, retention and purge transactions happen.
    k.storage_fail_pm = 200;
    k.brokers_min = 2;
    k.windows_seconds = {1, 10, 60};
    k.retention_seconds = 30;
    k.purge_batch_max = 2;
    k.retention_pm = 100;
    k.ack_pm = 120;
    k.read_pm = 80;
    k.delete_pm = 40;
    k.evict_pm = 60;
    k.advance_pm = 250;
    k.completed_retention_pm = 60;
    k.contention_pm = 60;
    k.loss_response_pm = 30;
  } else if (profile == "power-loss") {
    // File storage (synchronous full, or off in a quarter of seeds) loses power between pushes and while
    // pushes, retries and lost responses are in flight; a second broker's
    // cache must forget what it learnt too. Few steps (6..10): file storage
    // is slower per push, and the profile stays within ~5x of default per seed.
    k.crash_storage_pm = 120;
    // Under synchronous off a power loss takes every commit: offsets are
    // handed out again, and a cache that survived the loss vouches for rows
    // that are gone.
    k.synchronous_off_pm = 250;
    k.brokers_max = 2;
    k.steps_max = 10;
    k.loss_response_pm = 40;
    k.windows_seconds = {10, 60, 3600};
    k.retention_pm = 30;
    k.read_pm = 40;
  } else if (profile == "bundles") {
    // Requests spanning partitions, sent as bundles by several brokers at
    // once: two bundles over the same rows in opposite orders meet.
    k.bundles = true;
    k.partitions = 3;
    k.keys = 6;
    k.brokers_min = 2;
    k.brokers_max = 3;
    k.parallel_pm = 500;
    k.loss_response_pm = 40;
    k.storage_fail_pm = 30;
    k.retention_pm = 40;
    k.configure_pm = 40;
    k.crash_pm = 20;
    k.read_pm = 30;
  } else {
    assert(false && "unknown profile");
  }
  return k;
}

}  // namespace qdt::sim
