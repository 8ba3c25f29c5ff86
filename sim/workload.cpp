#include "sim/workload.h"

#include <algorithm>
#include <cassert>
#include <map>

#include "sim/rng.h"

namespace qdt::sim {
namespace {

using json = nlohmann::json;

constexpr int kFaultStatementsMax = 6;  // storage_fail after_statements is drawn in 0..6
constexpr int kConsumerGroups = 3;
constexpr int kPushedKeysMax = 64;  // keys remembered for acks, bounded
const std::vector<const char*> kStorageTargets = {"push", "fetch", "hydrate", "ack", "read", "retention", "purge", "any"};
// Around the 900 s sidecar floor and below it; 0 switches completed retention off.
const std::vector<int64_t> kCompletedRetentionSeconds = {0, 1, 10, 60, 899, 900, 901, 1800};

// Knobs of one profile. Probabilities are per mille, integers.
struct Knobs {
  int keys = 4;
  int partitions = 2;
  int brokers_max = 2;
  int steps_min = 6;
  int steps_max = 16;
  std::vector<int64_t> windows_seconds = {60, 3600};
  int loss_request_pm = 0;
  int loss_response_pm = 0;
  int duplicate_pm = 0;
  int parallel_pm = 250;
  int advance_pm = 200;
  int configure_pm = 0;
  int retention_pm = 0;
  int delete_pm = 0;
  int storage_fail_pm = 0;
  int skew_pm = 0;
  int crash_pm = 0;
  int crash_storage_pm = 0;
  // Per mille of steps drawn as a cache command racing flushes (cache_race)
  // and as a key's life across the purge floor (lifecycle).
  int cache_race_pm = 0;
  int lifecycle_pm = 0;  // crash_storage (file storage, synchronous full), alone or racing pushes
  int ack_pm = 50;         // acks: mostly of pushed keys, from several consumer groups
  int read_pm = 0;
  int completed_retention_pm = 0;  // configure completedRetentionSeconds (either side of the 900 s floor)
  int contention_pm = 0;   // parallel: pushes from >= 2 brokers on one partition racing a retention pass
  // storage_fail draws its target among every storage transaction kind, its
  // statement in 0..kFaultStatementsMax and either code.
  int evict_pm = 10;       // evict_cache on a random broker
  int kill_switch_pm = 0;  // cache off / on
  int64_t cache_budget_bytes = 0;  // 0: the default budget
  int64_t decline_cooldown_flushes = 0;  // 0: the default cooldown
  int brokers_min = 1;
  int retry_attempts_max = 3;
  bool zero_latency = false;
  int64_t retention_seconds = 0;
  int64_t purge_batch_max = 1000;
};

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
  } else if (profile == "cache-pressure") {
    // A budget far below the working set: declines, evictions, cooldowns.
    k.keys = 12;
    k.partitions = 4;
    k.cache_budget_bytes = 600 + static_cast<int64_t>(rng.below(3000));
    k.evict_pm = 60;
    k.kill_switch_pm = 40;
    k.brokers_max = 2;
    // Short enough that a declined partition is tried again within a run
    // (the default, 64 flushes, outlasts every generated scenario).
    k.decline_cooldown_flushes = 1 + static_cast<int64_t>(rng.below(8));
    k.cache_race_pm = 80;
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
    if (rng.below(2)) k.cache_budget_bytes = 600 + static_cast<int64_t>(rng.below(5000));
    k.windows_seconds = {0, 1, 10, 60, 3600};
    k.brokers_max = 3;
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
    // File storage (synchronous full) loses power between pushes and while
    // pushes, retries and lost responses are in flight; a second broker's
    // cache must forget what it learnt too. Few steps (6..10): file storage
    // is slower per push, and the profile stays within ~5x of default per seed.
    k.crash_storage_pm = 120;
    k.brokers_max = 2;
    k.steps_max = 10;
    k.loss_response_pm = 40;
    k.windows_seconds = {10, 60, 3600};
    k.retention_pm = 30;
    k.read_pm = 40;
  } else {
    assert(false && "unknown profile");
  }
  return k;
}

class Generator {
 public:
  Generator(uint64_t seed, const std::string& profile, const GeneratorOverrides& fixed)
      : rng_(seed ^ 0x51ed2701f3a5c9b7ULL), profile_(profile), fixed_(fixed) {
    k_ = knobs_for(profile, rng_);
    if (fixed.partitions) k_.partitions = static_cast<int>(*fixed.partitions);
    if (fixed.keys) k_.keys = static_cast<int>(*fixed.keys);
    if (fixed.steps) k_.steps_min = k_.steps_max = static_cast<int>(*fixed.steps);
    if (fixed.advance_per_mille) k_.advance_pm = static_cast<int>(*fixed.advance_per_mille);
    // A fixed attempt count or backoff means every push retries that way, so
    // a study of retries gets retries whatever the profile's faults are.
    if (fixed.retry_attempts) k_.retry_attempts_max = static_cast<int>(*fixed.retry_attempts);
    brokers_ = static_cast<int>(rng_.between(k_.brokers_min, k_.brokers_max));
    window_ = pick(k_.windows_seconds);
  }

  json build(uint64_t seed) {
    json doc;
    doc["name"] = profile_ + "-" + std::to_string(seed);
    doc["description"] = "Generated by qdt check --profile " + profile_ + " --seed " + std::to_string(seed) + ".";
    doc["seed"] = seed;
    json world;
    world["brokers"] = brokers_;
    if (k_.cache_budget_bytes > 0) world["cache"] = {{"enabled", true}, {"budget_bytes", k_.cache_budget_bytes}};
    if (k_.decline_cooldown_flushes > 0) world["cache"]["decline_cooldown_flushes"] = k_.decline_cooldown_flushes;
    json network;
    if (k_.zero_latency) network["latency_ms"] = {0, 0};
    else network["latency_ms"] = {rng_.between(0, 2), rng_.between(2, 8)};
    if (k_.loss_request_pm) network["loss_request"] = k_.loss_request_pm / 1000.0;
    if (k_.loss_response_pm) network["loss_response"] = k_.loss_response_pm / 1000.0;
    if (k_.duplicate_pm) network["duplicate"] = k_.duplicate_pm / 1000.0;
    world["network"] = network;
    json storage = {{"purge_batch", rng_.between(1, k_.purge_batch_max)}};
    if (k_.zero_latency) storage["latency_ms"] = {0, 0};
    if (k_.crash_storage_pm > 0) {
      storage["path"] = "qdt.db";
      storage["synchronous"] = "full";
    }
    world["storage"] = storage;
    doc["world"] = world;
    json options = {{"dedupWindowSeconds", window_}};
    if (k_.retention_seconds) options["retentionSeconds"] = k_.retention_seconds;
    doc["queues"] = {{"q0", options}, {"q1", {{"dedupWindowSeconds", window_}}}};
    json steps = json::array();
    const int n = static_cast<int>(rng_.between(k_.steps_min, k_.steps_max));
    for (int i = 0; i < n; ++i) steps.push_back(step(false));
    doc["steps"] = steps;
    return doc;
  }

 private:
  template <typename T>
  T pick(const std::vector<T>& v) {
    return v[static_cast<size_t>(rng_.below(v.size()))];
  }
  bool roll(int pm) { return pm > 0 && static_cast<int>(rng_.below(1000)) < pm; }
  std::string id() { return "s" + std::to_string(next_id_++); }

  std::string partition() { return "p" + std::to_string(rng_.below(static_cast<uint64_t>(k_.partitions))); }
  std::string key() { return "k" + std::to_string(rng_.below(static_cast<uint64_t>(k_.keys))); }

  json item(const std::string& queue, const std::string& partition) {
    json it = {{"queue", queue}, {"partition", partition}, {"transactionId", key()}, {"data", {{"n", rng_.below(100)}}}};
    if (pushed_.size() < static_cast<size_t>(kPushedKeysMax)) pushed_.push_back({queue, partition, it["transactionId"].get<std::string>()});
    return it;
  }

  json item() {
    // Mostly one queue: collisions live within a partition.
    const std::string queue = rng_.below(8) == 0 ? "q1" : "q0";
    return item(queue, partition());
  }

  json push() { return push_request([this] { return item(); }, rng_.below(static_cast<uint64_t>(brokers_))); }

  template <typename MakeItem>
  json push_request(MakeItem make_item, uint64_t broker) {
    json items = json::array();
    const int count = static_cast<int>(1 + rng_.below(3));
    for (int i = 0; i < count; ++i) items.push_back(make_item());
    json s = {{"id", id()}, {"op", "push"}, {"items", items}, {"broker", broker}};
    if (k_.retry_attempts_max > 1 && (k_.loss_request_pm || k_.loss_response_pm || k_.crash_pm || k_.storage_fail_pm)) {
      // Drawn even when fixed, so fixing one knob leaves the others' draws alone.
      const int64_t timeout_ms = rng_.between(15, 60);
      const int64_t attempts = rng_.between(1, k_.retry_attempts_max);
      const int64_t backoff_ms = rng_.between(0, 10);
      s["retry"] = {{"timeout_ms", fixed_.retry_timeout_ms.value_or(timeout_ms)},
                    {"attempts", fixed_.retry_attempts.value_or(attempts)},
                    {"backoff_ms", fixed_.retry_backoff_ms.value_or(backoff_ms)}};
    }
    return s;
  }

  json advance() {
    // Biased towards the window's edges: exactly the window, one ms either side.
    const int64_t w_ms = window_ * 1000;
    switch (rng_.below(5)) {
      case 0: return {{"op", "advance"}, {"ms", std::max<int64_t>(0, w_ms - 1)}};
      case 1: return {{"op", "advance"}, {"ms", w_ms}};
      case 2: return {{"op", "advance"}, {"ms", w_ms + 1}};
      case 3: return {{"op", "advance"}, {"seconds", rng_.between(1, 1000)}};
      default: return {{"op", "advance"}, {"ms", rng_.between(0, 50)}};
    }
  }

  // Lock contention (SPEC 2.4, 8): pushes from at least two brokers (when the
  // world has them) on ONE partition, racing a retention pass in the same
  // parallel block for the database's write lock.
  json contention() {
    const std::string part = partition();
    json children = json::array();
    const int pushes = static_cast<int>(2 + rng_.below(3));
    const uint64_t first = rng_.below(static_cast<uint64_t>(brokers_));
    for (int i = 0; i < pushes; ++i) {
      // The first two pushes come from two different brokers.
      const uint64_t broker = i == 0 ? first
                              : i == 1 ? (first + 1 + rng_.below(static_cast<uint64_t>(std::max(brokers_ - 1, 1)))) %
                                             static_cast<uint64_t>(brokers_)
                                       : rng_.below(static_cast<uint64_t>(brokers_));
      children.push_back(push_request([&] { return item("q0", part); }, broker));
    }
    json retention = {{"op", "retention"}};
    if (rng_.below(2)) retention["queue"] = "q0";
    children.insert(children.begin() + static_cast<std::ptrdiff_t>(rng_.below(children.size() + 1)), retention);
    return {{"op", "parallel"}, {"steps", children}};
  }

  json ack() {
    // Mostly a key that was pushed, so acks resolve and completed retention
    // has fully acknowledged segments to delete; several groups per key.
    json s = {{"id", id()}, {"op", "ack"}};
    if (!pushed_.empty() && rng_.below(4) != 0) {
      const PushedKey& k = pushed_[static_cast<size_t>(rng_.below(pushed_.size()))];
      s["queue"] = k.queue;
      s["partition"] = k.partition;
      s["transactionId"] = k.transaction_id;
    } else {
      s["queue"] = "q0";
      s["partition"] = "p" + std::to_string(rng_.below(2));
      s["transactionId"] = key();
    }
    const uint64_t group = rng_.below(kConsumerGroups + 1);
    if (group < kConsumerGroups) s["consumerGroup"] = "g" + std::to_string(group);  // else the default group
    return s;
  }

  json read() {
    json s = {{"id", id()}, {"op", "read"}, {"queue", rng_.below(8) == 0 ? "q1" : "q0"}, {"partition", partition()}};
    if (rng_.below(3) == 0) s["from"] = rng_.below(4);
    if (rng_.below(3) == 0) s["limit"] = rng_.below(4);
    return s;
  }

  json storage_fail() {
    json s = {{"op", "storage_fail"}, {"count", rng_.between(1, 2)}};
    // A third of the faults hit pushes (the authority); the rest any kind.
    const char* target = rng_.below(3) == 0 ? "push" : kStorageTargets[static_cast<size_t>(rng_.below(kStorageTargets.size()))];
    if (std::string(target) != "push" || rng_.below(2)) s["target"] = target;  // "push" is also the default
    const int64_t after = rng_.between(0, kFaultStatementsMax);
    if (after > 0 || rng_.below(2)) s["after_statements"] = after;
    if (rng_.below(2)) s["code"] = rng_.below(2) ? "full" : "ioerr";
    return s;
  }

  json completed_retention() {
    json options = {{"completedRetentionSeconds", pick(kCompletedRetentionSeconds)}};
    if (rng_.below(3) == 0) {
      window_ = pick(k_.windows_seconds);
      options["dedupWindowSeconds"] = window_;
    }
    return {{"op", "configure"}, {"queue", "q0"}, {"options", options}};
  }

  // A cache command lands while flushes are out, so it meets a hydration
  // read in flight (reachability cache.evicted_during_hydration,
  // cache.kill_switch_during_hydration).
  json cache_race() {
    const uint64_t broker = rng_.below(static_cast<uint64_t>(brokers_));
    json command = rng_.below(2) ? json{{"op", "evict_cache"}, {"broker", broker}}
                                 : json{{"op", "cache"}, {"broker", broker}, {"enabled", false}};
    json children = json::array({push_request([this] { return item(); }, broker), push()});
    json racer = json::array({{{"op", "advance"}, {"ms", rng_.between(0, 12)}}, command});
    if (command["op"] == "cache") {  // and back on, so the rest of the run has a cache
      racer.push_back({{"op", "advance"}, {"ms", rng_.between(0, 20)}});
      racer.push_back({{"op", "cache"}, {"broker", broker}, {"enabled", true}});
    }
    children.push_back({{"op", "sequence"}, {"steps", racer}});
    return {{"op", "parallel"}, {"steps", children}};
  }

  // One key's life across the purge floor: stored, acked, aged past 900 s
  // but inside a completedRetentionSeconds above it, purged, acked again
  // (reachability purge.row_kept_only_by_completed_retention,
  // ack.after_its_sidecar_row_purged).
  json lifecycle() {
    const int64_t completed = rng_.below(2) ? 1800 : 3600;
    json pushed = push_request([this] { return item("q0", partition()); }, rng_.below(static_cast<uint64_t>(brokers_)));
    const json& first = pushed["items"][0];
    json ack = {{"op", "ack"}, {"queue", "q0"}, {"partition", first["partition"]}, {"transactionId", first["transactionId"]}};
    json steps = json::array();
    steps.push_back({{"op", "configure"}, {"queue", "q0"}, {"options", {{"completedRetentionSeconds", completed}}}});
    steps.push_back(pushed);
    json first_ack = ack;
    first_ack["id"] = id();
    steps.push_back(first_ack);
    steps.push_back({{"op", "advance"}, {"seconds", rng_.between(901, completed + 600)}});
    steps.push_back({{"op", "retention"}});
    ack["id"] = id();
    steps.push_back(ack);
    return {{"op", "sequence"}, {"steps", steps}};
  }

  json crash_storage() {
    const json crash = {{"op", "crash_storage"}, {"torn", rng_.below(2) == 0}};
    if (rng_.below(2)) return crash;
    // Power fails while pushes are out: their transactions fail mid-way. Only
    // pushes race it (an admin step has no retry to absorb a lost connection).
    json children = json::array({push(), push()});
    // Up to 30 ms: past the commit of a push in flight too, so the broker's
    // re-push finds its own commit (reachability broker.repush_found_its_own_commit).
    children.push_back({{"op", "sequence"}, {"steps", json::array({{{"op", "advance"}, {"ms", rng_.between(0, 30)}}, crash})}});
    return {{"op", "parallel"}, {"steps", children}};
  }

  json step(bool inside_parallel) {
    // Drawn only by profiles that ask: the others' sequences stay as they were.
    if (!inside_parallel && k_.crash_storage_pm > 0 && roll(k_.crash_storage_pm)) return crash_storage();
    if (!inside_parallel && k_.cache_race_pm > 0 && roll(k_.cache_race_pm)) return cache_race();
    if (!inside_parallel && k_.lifecycle_pm > 0 && roll(k_.lifecycle_pm)) return lifecycle();
    if (!inside_parallel && roll(k_.contention_pm)) return contention();
    if (!inside_parallel && roll(k_.parallel_pm)) {
      json children = json::array();
      const int count = static_cast<int>(2 + rng_.below(3));
      for (int i = 0; i < count; ++i) children.push_back(rng_.below(4) == 0 ? step(true) : push());
      return {{"op", "parallel"}, {"steps", children}};
    }
    if (roll(k_.advance_pm)) return advance();
    if (roll(k_.configure_pm)) {
      window_ = pick(k_.windows_seconds);
      return {{"op", "configure"}, {"queue", "q0"}, {"options", {{"dedupWindowSeconds", window_}}}};
    }
    if (roll(k_.retention_pm)) return {{"op", "retention"}};
    if (roll(k_.delete_pm)) {
      return {{"op", "delete_segment"}, {"queue", "q0"}, {"partition", "p" + std::to_string(rng_.below(2))},
              {"offset", rng_.below(6)}};
    }
    if (roll(k_.completed_retention_pm)) return completed_retention();
    if (roll(k_.storage_fail_pm)) return storage_fail();
    if (roll(k_.skew_pm)) {
      const uint64_t broker = rng_.below(static_cast<uint64_t>(brokers_));
      const int64_t ms = rng_.between(-120'000, 120'000);
      return {{"op", "skew"}, {"broker", broker}, {"ms", fixed_.skew_ms.value_or(ms)}};
    }
    if (roll(k_.crash_pm)) return {{"op", "crash_broker"}, {"broker", rng_.below(static_cast<uint64_t>(brokers_))}};
    if (roll(k_.evict_pm)) {
      json s = {{"op", "evict_cache"}, {"broker", rng_.below(static_cast<uint64_t>(brokers_))}};
      if (rng_.below(2)) s["queue"] = "q0";
      return s;
    }
    if (roll(k_.kill_switch_pm)) {
      return {{"op", "cache"}, {"broker", rng_.below(static_cast<uint64_t>(brokers_))}, {"enabled", rng_.below(2) == 0}};
    }
    if (roll(k_.ack_pm)) return ack();
    if (roll(k_.read_pm)) return read();
    return push();
  }

  struct PushedKey {
    std::string queue, partition, transaction_id;
  };

  Rng rng_;
  std::vector<PushedKey> pushed_;  // in generation order
  std::string profile_;
  GeneratorOverrides fixed_;
  Knobs k_;
  int brokers_ = 1;
  int64_t window_ = 3600;
  int next_id_ = 0;
};

}  // namespace

const std::vector<std::string>& profile_names() {
  static const std::vector<std::string> names = {"default",     "retry-storm", "window-edge",    "retention",
                                                 "reconfigure", "skew",        "multi-broker",   "cache-pressure",
                                                 "swarm",       "storage-faults", "power-loss"};
  return names;
}

bool is_profile(const std::string& name) {
  const auto& names = profile_names();
  return std::find(names.begin(), names.end(), name) != names.end();
}

const std::vector<std::string>& generator_knob_names() {
  static const std::vector<std::string> names = {"partitions",     "keys",          "steps", "skew_ms",
                                                 "retry_attempts", "retry_backoff_ms", "retry_timeout_ms", "advance_per_mille"};
  return names;
}

std::optional<std::string> set_generator_knob(GeneratorOverrides& o, const std::string& name, const json& value) {
  struct Slot {
    std::optional<int64_t> GeneratorOverrides::*field;
    int64_t lo, hi;
  };
  static const std::map<std::string, Slot> slots = {
      {"partitions", {&GeneratorOverrides::partitions, 1, 64}},
      {"keys", {&GeneratorOverrides::keys, 1, 10'000}},
      {"steps", {&GeneratorOverrides::steps, 1, 1'000}},
      {"skew_ms", {&GeneratorOverrides::skew_ms, -3'600'000, 3'600'000}},
      {"retry_attempts", {&GeneratorOverrides::retry_attempts, 1, 100}},
      {"retry_backoff_ms", {&GeneratorOverrides::retry_backoff_ms, 0, 3'600'000}},
      {"retry_timeout_ms", {&GeneratorOverrides::retry_timeout_ms, 1, 3'600'000}},
      {"advance_per_mille", {&GeneratorOverrides::advance_per_mille, 0, 1000}}};
  const auto it = slots.find(name);
  if (it == slots.end()) {
    std::string names;
    for (const auto& n : generator_knob_names()) names += (names.empty() ? "" : ", ") + n;
    return "unknown generator knob \"" + name + "\" (one of " + names + ")";
  }
  const Slot& slot = it->second;
  if (!value.is_number_integer() || value.get<int64_t>() < slot.lo || value.get<int64_t>() > slot.hi) {
    return "generator." + name + " takes an integer in " + std::to_string(slot.lo) + ".." + std::to_string(slot.hi) +
           ", not " + value.dump();
  }
  o.*slot.field = value.get<int64_t>();
  return std::nullopt;
}

json generate_scenario(uint64_t seed, const std::string& profile, const GeneratorOverrides& overrides) {
  assert(is_profile(profile));
  Generator g(seed, profile, overrides);
  return g.build(seed);
}

}  // namespace qdt::sim
