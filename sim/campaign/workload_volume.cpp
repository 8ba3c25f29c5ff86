#include "sim/campaign/workload_volume.h"

#include <cassert>
#include <string>

#include "sim/base/rng.h"

namespace qdt::sim {
namespace {

using json = nlohmann::json;

constexpr int64_t kRepeatsMax = 32;  // keys of the large request pushed again, in the run and at the end

json volume_item(const std::string& partition, const std::string& key, uint64_t n) {
  json it = json::object();
  it["queue"] = "q0";
  it["partition"] = partition;
  it["transactionId"] = key;
  it["data"] = {{"n", n}};
  return it;
}

json push_step(int& next_id, json items, uint64_t broker) {
  json s = json::object();
  s["id"] = "v" + std::to_string(next_id++);
  s["op"] = "push";
  s["items"] = std::move(items);
  s["broker"] = broker;
  return s;
}

}  // namespace

bool is_volume_seed(uint64_t seed, int volume_pm) {
  if (volume_pm <= 0) return false;
  Rng pick(seed ^ 0x6a09e667f3bcc908ULL);
  return static_cast<int>(pick.below(1000)) < volume_pm;
}

json volume_steps(uint64_t seed, int brokers, const VolumeShape& shape) {
  assert(brokers >= 1);
  Rng rng(seed ^ 0xbb67ae8584caa73bULL);
  // p0, where the seed's ordinary traffic also lands, so the volume meets its keys.
  const std::string partition = "p0";
  int next_id = 0;
  json steps = json::array();
  const int64_t large = rng.between(shape.large_items_min, shape.large_items_max);
  const uint64_t first_broker = rng.below(static_cast<uint64_t>(brokers));
  json items = json::array();
  for (int64_t i = 0; i < large; ++i) items.push_back(volume_item(partition, "v" + std::to_string(i), rng.below(100)));
  steps.push_back(push_step(next_id, items, first_broker));
  // The run: every push inside one window (no advance between them), mostly
  // new keys, now and then one of the large request's, from any broker.
  // Repeats of the large request are bounded (kRepeatsMax in the run, as many
  // again at the end): each duplicate's id is read with its whole covering
  // segment, so repeats of a segment of n frames cost n each.
  const int64_t pushes = rng.between(shape.run_pushes_min, shape.run_pushes_max);
  int64_t fresh = 0, repeats = 0;
  for (int64_t p = 0; p < pushes; ++p) {
    json run = json::array();
    const int64_t count = rng.between(1, shape.run_items_max);
    for (int64_t i = 0; i < count; ++i) {
      const bool repeat = rng.below(8) == 0 && repeats < kRepeatsMax;
      repeats += repeat ? 1 : 0;
      const std::string key = repeat ? "v" + std::to_string(rng.below(static_cast<uint64_t>(large)))
                                     : "r" + std::to_string(fresh++);
      run.push_back(volume_item(partition, key, rng.below(100)));
    }
    steps.push_back(push_step(next_id, std::move(run), rng.below(static_cast<uint64_t>(brokers))));
  }
  // Keys spread over the large request again, from another broker where
  // there is one: hashes the caches hold in bulk, from either end of it.
  json repeat = json::array();
  for (int64_t i = 0; i < kRepeatsMax; ++i) repeat.push_back(items[static_cast<size_t>(i * (large - 1) / (kRepeatsMax - 1))]);
  steps.push_back(push_step(next_id, std::move(repeat), (first_broker + 1) % static_cast<uint64_t>(brokers)));
  return steps;
}

}  // namespace qdt::sim
