#include "sim/scenario/step_loader.h"

#include <algorithm>

#include "impl/broker/push_request.h"
#include "sim/scenario/step_kinds.h"
#include "sim/world/world_config.h"

namespace qdt::sim {

using json = nlohmann::json;

void StepLoader::steps(const json& list, const std::string& p, std::vector<Step>& out) { steps_of(list, p, out); }

void StepLoader::steps_of(const json& list, const std::string& p, std::vector<Step>& out) {
  if (!list.is_array()) return r_.fail(p, "expected an array of steps");
  for (size_t i = 0; i < list.size(); ++i) {
    Step step;
    if (this->step(list[i], p + "/" + std::to_string(i), step)) out.push_back(std::move(step));
  }
}

void StepLoader::children(const json& j, const std::string& p, Step& s, bool repeated) {
  if (!j.contains("steps")) return r_.fail(p + "/steps", "required");
  ++nesting_;
  repeat_depth_ += repeated ? 1 : 0;
  steps_of(j["steps"], p + "/steps", s.children);
  repeat_depth_ -= repeated ? 1 : 0;
  --nesting_;
}

bool StepLoader::step(const json& j, const std::string& p, Step& s) {
  if (!j.is_object()) {
    r_.fail(p, "expected a step object");
    return false;
  }
  s.path = p;
  const auto op_name = r_.string(j, p, "op", true);
  if (!op_name) return false;
  s.kind = step_kind(*op_name);
  if (!s.kind) {
    r_.fail(p + "/op", "unknown op \"" + *op_name + "\"");
    return false;
  }
  if (auto id = r_.string(j, p, "id", false); id && repeat_depth_ > 0) {
    // Ids name one outcome; a step inside repeat has one per iteration.
    r_.fail(p + "/id", "a step inside repeat runs many times and cannot have an id");
  } else if (id) {
    if (id->empty() || id->size() > 64 || id->find('/') != std::string::npos || id->front() == '#' ||
        *id == "stored") {
      r_.fail(p + "/id", "a step id is 1-64 characters, without '/', not starting with '#', not \"stored\"");
    } else if (!ids_.emplace(*id, s.kind).second) {
      r_.fail(p + "/id", "duplicate step id \"" + *id + "\"");
    } else {
      s.id = *id;
    }
  }
  if (s.id.empty()) s.id = "#" + p.substr(std::string("/steps/").size());
  s.kind->read(*this, j, p, s);
  return true;
}

void StepLoader::required_broker(const json& j, const std::string& p, Step& s) {
  if (auto v = r_.integer(j, p, "broker", 0, kMaxBrokers - 1)) {
    s.broker = static_cast<uint32_t>(*v);
    use_broker(p + "/broker", s.broker);
  } else if (!j.contains("broker")) {
    r_.fail(p + "/broker", "required");
  }
}

const StepKind* StepLoader::kind_of(const std::string& id) const {
  const auto it = ids_.find(id);
  return it == ids_.end() ? nullptr : it->second;
}

void StepLoader::expect(const json& e, Scenario& s) {
  if (!e.is_object()) return r_.fail("/expect", "expected an object");
  for (const auto& [key, value] : e.items()) {
    const std::string p = "/expect/" + key;
    if (key == "stored") {
      stored(value, p, s);
      continue;
    }
    const StepKind* kind = kind_of(key);
    if (kind == nullptr) {
      r_.fail(p, "expectation for a step that does not exist");
      continue;
    }
    StepExpect x;
    x.path = p;
    if (kind->read_expect) kind->read_expect(*this, value, p, key, x);
    else r_.fail(p, "only push, ack and read steps have expectations");
    s.expect.emplace(key, std::move(x));
  }
}

void StepLoader::stored(const json& value, const std::string& p, Scenario& s) {
  if (!value.is_object()) return r_.fail(p, "expected {\"queue/partition\": N}");
  for (const auto& [key, n] : value.items()) {
    const auto slash = key.find('/');
    if (slash == std::string::npos || slash == 0 || slash + 1 == key.size() || slash > impl::kMaxNameBytes ||
        key.size() - slash - 1 > impl::kMaxNameBytes) {
      r_.fail(p + "/" + key, "expected a \"queue/partition\" key (names of 1-255 bytes)");
      continue;
    }
    if (!n.is_number_integer() || (!n.is_number_unsigned() && n.get<int64_t>() < 0)) {
      r_.fail(p + "/" + key, "expected an integer >= 0");
      continue;
    }
    if (n.is_number_unsigned() && n.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
      r_.fail(p + "/" + key, "must be <= " + std::to_string(INT64_MAX));
      continue;
    }
    s.expect_stored.push_back({{key.substr(0, slash), key.substr(slash + 1)}, n.get<int64_t>()});
  }
}

void StepLoader::check_brokers(const Scenario& s) {
  for (const auto& [path, broker] : brokers_used_) {
    if (broker >= s.world.brokers) {
      r_.fail(path, "broker " + std::to_string(broker) + " does not exist (world.brokers is " +
                        std::to_string(s.world.brokers) + ")");
    }
  }
}

namespace {

// Steps and virtual time of the script as run (repeats unrolled), saturated
// just past the bounds so that nested repeats cannot overflow.
struct RunSize {
  int64_t steps = 0;
  int64_t advance_ms = 0;
  int64_t attempts = 0;     // push deliveries, retries included: what costs wall time
  int64_t items_bytes = 0;  // pushed items as JSON text: what costs memory
  int64_t crashes = 0;      // crash_storage steps: each costs what storage holds
};

int64_t saturated(int64_t a, int64_t b, int64_t max) { return std::min(a + b, max + 1); }
int64_t saturated_times(int64_t a, int64_t times, int64_t max) {
  return a > 0 && times > (max + 1) / a ? max + 1 : std::min(a * times, max + 1);
}

RunSize run_size(const std::vector<Step>& steps) {
  RunSize total;
  for (const Step& s : steps) {
    const StepCost cost = s.kind->cost ? s.kind->cost(s) : StepCost{};
    RunSize one{1, cost.advance_ms, cost.attempts, cost.items_bytes, cost.crashes};
    if (!s.children.empty()) {
      const RunSize inner = run_size(s.children);
      const int64_t times = cost.times;
      one.steps += saturated_times(inner.steps, times, kMaxExecutedSteps);
      // parallel children overlap in time; counting their sum only overestimates.
      one.advance_ms = saturated_times(inner.advance_ms, times, kMaxAdvanceMs);
      one.attempts = saturated_times(inner.attempts, times, kMaxExecutedAttempts);
      one.items_bytes = saturated_times(inner.items_bytes, times, kMaxPushedItemsBytes);
      one.crashes = saturated_times(inner.crashes, times, kMaxStorageCrashes);
    }
    total.steps = saturated(total.steps, one.steps, kMaxExecutedSteps);
    total.advance_ms = saturated(total.advance_ms, one.advance_ms, kMaxAdvanceMs);
    total.attempts = saturated(total.attempts, one.attempts, kMaxExecutedAttempts);
    total.items_bytes = saturated(total.items_bytes, one.items_bytes, kMaxPushedItemsBytes);
    total.crashes = saturated(total.crashes, one.crashes, kMaxStorageCrashes);
  }
  return total;
}

}  // namespace

void StepLoader::check_run_size(const Scenario& s) {
  const RunSize size = run_size(s.steps);
  if (size.steps > kMaxExecutedSteps) {
    r_.fail("/steps", "with repeats unrolled the script runs more than " + std::to_string(kMaxExecutedSteps) +
                          " steps");
  }
  if (size.advance_ms > kMaxAdvanceMs) {
    r_.fail("/steps", "with repeats unrolled the script advances virtual time by more than ten years");
  }
  if (size.attempts > kMaxExecutedAttempts) {
    r_.fail("/steps", "with repeats unrolled the script makes more than " + std::to_string(kMaxExecutedAttempts) +
                          " push attempts (retry.attempts counted)");
  }
  if (size.items_bytes > kMaxPushedItemsBytes) {
    r_.fail("/steps", "with repeats unrolled the script pushes more than " +
                          std::to_string(kMaxPushedItemsBytes >> 20) + " MiB of items");
  }
  if (size.crashes > kMaxStorageCrashes) {
    r_.fail("/steps", "with repeats unrolled the script runs more than " + std::to_string(kMaxStorageCrashes) +
                          " crash_storage steps");
  } else if (size.items_bytes <= kMaxPushedItemsBytes && size.crashes * size.items_bytes > kMaxRecoveredItemsBytes) {
    // Both factors are bounded here, so the product cannot overflow.
    r_.fail("/steps", "with repeats unrolled the script's crash_storage steps times the bytes of items it pushes is "
                      "more than " + std::to_string(kMaxRecoveredItemsBytes >> 20) +
                          " MiB (each crash records what storage recovered)");
  }
}

}  // namespace qdt::sim
