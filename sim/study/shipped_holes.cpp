#include "sim/study/shipped_holes.h"

#include <cassert>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "sim/campaign/campaign.h"
#include "sim/campaign/failure_file.h"
#include "sim/study/bisect.h"
#include "sim/scenario/replay_line.h"

namespace qdt::sim {

using json = nlohmann::json;

namespace {

constexpr int64_t kWidenedWindowSeconds = 3600;
constexpr int64_t kOriginalAgeAtWidenSeconds = 100;  // past the old window, well inside the new one
constexpr int64_t kTrafficIntervalMs = 1000;
// Repeat ages of the expiry family: early, mid-window and just before the edge.
constexpr int64_t kRepeatAgesMs[] = {1000, 30000, 55000, 59000};
constexpr int64_t kSkewMsMax = 3'600'000;    // an hour ahead: far past any window of the family
constexpr int64_t kDelayMsMax = 120'000;     // four metadata TTLs

json push(const std::string& id, const std::string& key) {
  json step = {{"op", "push"}, {"items", {{{"queue", "orders"}, {"transactionId", key}, {"data", json::object()}}}}};
  if (!id.empty()) step["id"] = id;
  return step;
}

json advance_ms(int64_t ms) { return {{"op", "advance"}, {"ms", ms}}; }

// Zero latencies: storage time moves only through `advance`, so a threshold
// is a property of the design, not of drawn delays.
json base_document(const std::string& name, const std::string& description) {
  return {{"name", name},
          {"description", description},
          {"seed", 1},
          {"world", {{"network", {{"latency_ms", {0, 0}}}}, {"storage", {{"latency_ms", {0, 0}}}}}},
          {"queues", {{"orders", {{"dedupWindowSeconds", kHoleWindowSeconds}}}}},
          {"steps", json::array()}};
}

}  // namespace

json expiry_skew_scenario(int64_t skew_ms, int64_t repeat_age_ms) {
  assert(repeat_age_ms >= 0 && repeat_age_ms <= kHoleWindowSeconds * 1000);  // the repeat must be a duplicate
  json doc = base_document("shipped-expiry-skew-" + std::to_string(skew_ms) + "ms-age-" +
                               std::to_string(repeat_age_ms) + "ms",
                           "Broker 0 runs " + std::to_string(skew_ms) + " ms ahead of storage; k-orig is repeated " +
                               std::to_string(repeat_age_ms) + " ms after it was stored, inside the " +
                               std::to_string(kHoleWindowSeconds) + " s window by storage's clock: a duplicate.");
  json& steps = doc["steps"];
  steps.push_back({{"op", "skew"}, {"broker", 0}, {"ms", skew_ms}});
  steps.push_back(push("orig", "k-orig"));
  // A second key, so the cache is hydrated and holds a watermark past k-orig.
  steps.push_back(push("warm", "k-warm"));
  if (repeat_age_ms > 0) steps.push_back(advance_ms(repeat_age_ms));
  steps.push_back(push("repeat", "k-orig"));
  return doc;
}

json meta_ttl_delay_scenario(int64_t delay_ms, bool traffic) {
  assert(delay_ms >= 0);
  json doc = base_document(
      "shipped-meta-ttl-widen-delay-" + std::to_string(delay_ms) + "ms" + (traffic ? "" : "-quiet"),
      "The window is widened from " + std::to_string(kHoleWindowSeconds) + " s to " +
          std::to_string(kWidenedWindowSeconds) + " s right after the broker learnt it; k-orig, " +
          std::to_string(kOriginalAgeAtWidenSeconds) + " s old, is repeated " + std::to_string(delay_ms) +
          " ms later" + (traffic ? ", a fresh key pushed every second in between" : ", nothing pushed in between") +
          ": inside the new window, a duplicate.");
  json& steps = doc["steps"];
  steps.push_back(push("orig", "k-orig"));
  steps.push_back(advance_ms(kOriginalAgeAtWidenSeconds * 1000));
  // Its response refreshes the broker's metadata (older than the TTL): the widening lands just after.
  steps.push_back(push("warm", "k-warm"));
  steps.push_back({{"op", "configure"}, {"queue", "orders"}, {"options", {{"dedupWindowSeconds", kWidenedWindowSeconds}}}});
  int64_t at_ms = 0;
  if (traffic) {
    for (int n = 1; at_ms + kTrafficIntervalMs < delay_ms; ++n) {
      at_ms += kTrafficIntervalMs;
      steps.push_back(advance_ms(kTrafficIntervalMs));
      steps.push_back(push("", "k-traffic-" + std::to_string(n)));
    }
  }
  if (delay_ms > at_ms) steps.push_back(advance_ms(delay_ms - at_ms));
  steps.push_back(push("repeat", "k-orig"));
  return doc;
}

HoleRun run_hole(const json& doc, impl::Variant variant, StorageEngineKind engine) {
  const std::optional<RunResult> result = run_document(doc, variant, true, true, true, engine);
  assert(result && "the families only build valid scenarios");
  return {result->metrics.value("double_writes", int64_t{0}), result->passed};
}

bool has_hole_families(impl::Variant variant) {
  return variant == impl::Variant::shipped_expiry || variant == impl::Variant::shipped_meta_ttl;
}

namespace {

// The threshold scenario as a replay file: expect states the reference's
// answers (failure_file.h), and world.variant is left out so that
// `qdt replay F --variant V` fails and `qdt replay F` passes, as for the
// shrunk failure files.
void write_threshold_file(HoleThreshold& t, json doc, const std::string& name, impl::Variant variant,
                          const std::string& out_dir, StorageEngineKind engine) {
  namespace fs = std::filesystem;
  const std::string description = doc["description"];
  doc = with_reference_expectations(std::move(doc), engine);
  doc["name"] = name;
  doc["description"] = "Threshold of " + impl::variant_name(variant) + " (qdt mutants): " + t.meaning + " = " +
                       std::to_string(t.value) + " at " + t.setting + ". " + description +
                       " expect states what the reference implementation answers.";
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  t.file = (fs::path(out_dir) / (name + ".json")).string();
  std::ofstream file(t.file, std::ios::binary);
  file << doc.dump(2) + "\n";
  t.file_written = static_cast<bool>(file);
  if (!t.file_written) std::cerr << "error: cannot write " << t.file << "\n";
  t.replay = replay_command({t.file, variant, "", engine});
}

// Counts every run of `family` under `variant` into t.evaluations.
IntPredicate doubles_under(impl::Variant variant, const std::function<json(int64_t)>& family, HoleThreshold& t,
                           StorageEngineKind engine) {
  return [variant, family, &t, engine](int64_t x) {
    ++t.evaluations;
    return run_hole(family(x), variant, engine).double_writes > 0;
  };
}

// The reference's zero at the reported value: no double write and a pass.
bool reference_zero(const json& doc, HoleThreshold& t, StorageEngineKind engine) {
  ++t.evaluations;
  const HoleRun ref = run_hole(doc, impl::Variant::none, engine);
  t.detail += std::string("; reference: ") + (ref.passed ? "passes" : "FAILS") + ", " +
              std::to_string(ref.double_writes) + " double writes";
  return ref.passed && ref.double_writes == 0;
}

HoleThreshold measure_skew(int64_t age_ms, const std::string& out_dir, StorageEngineKind engine) {
  const impl::Variant v = impl::Variant::shipped_expiry;
  HoleThreshold t;
  t.knob = "skew_ms";
  t.setting = "repeat_age_ms=" + std::to_string(age_ms);
  t.meaning = "smallest broker skew_ms ahead of storage at which the repeat is stored twice";
  t.lo = 0;
  t.hi = kSkewMsMax;
  const auto family = [age_ms](int64_t skew_ms) { return expiry_skew_scenario(skew_ms, age_ms); };
  const IntPredicate doubles = doubles_under(v, family, t, engine);
  // Evaluations are counted by the predicate itself, so the bisection's own count is not added again.
  const BisectResult b = bisect_smallest(t.lo, t.hi, doubles);
  t.found = b.found;
  if (!b.found) {
    t.detail = b.reason;
    return t;
  }
  t.value = b.threshold;
  const ThresholdCheck c = check_threshold(t.value, doubles);
  t.detail = "double write: " + c.detail;
  t.verified = reference_zero(family(t.value), t, engine) && c.holds;
  write_threshold_file(t, family(t.value), "shipped-expiry-skew-threshold-age-" + std::to_string(age_ms) + "ms", v,
                       out_dir, engine);
  return t;
}

HoleThreshold measure_delay(bool traffic, const std::string& out_dir, StorageEngineKind engine) {
  const impl::Variant v = impl::Variant::shipped_meta_ttl;
  HoleThreshold t;
  t.knob = "delay_ms";
  t.setting = traffic ? "traffic_interval_ms=" + std::to_string(kTrafficIntervalMs) : "traffic=none";
  t.meaning = "largest delay_ms after the widening at which the repeat is still stored twice (doubled from 0 on)";
  t.lo = 0;
  t.hi = kDelayMsMax;
  t.expect_found = traffic;
  const auto family = [traffic](int64_t delay_ms) { return meta_ttl_delay_scenario(delay_ms, traffic); };
  const IntPredicate doubles = doubles_under(v, family, t, engine);
  const IntPredicate safe = [&doubles](int64_t x) { return !doubles(x); };
  // The hole is open from the widening on; what is bisected is where it closes.
  const BisectResult b = bisect_smallest(t.lo, t.hi, safe);
  t.found = b.found;
  if (!b.found) {
    // One evaluation: the upper end already failed, i.e. still doubled at hi.
    t.detail = b.evaluations == 1 ? "still doubled at delay_ms=" + std::to_string(t.hi) +
                                        ": the hole does not close within [0," + std::to_string(t.hi) + "]"
                                  : "not doubled at delay_ms=0: no hole to measure";
    t.verified = !t.expect_found;
    return t;
  }
  t.value = b.threshold - 1;
  const ThresholdCheck c = check_threshold(b.threshold, safe);
  const bool doubled_at_zero = t.value == 0 || doubles(0);
  t.detail = "safe: " + c.detail + (doubled_at_zero ? "; doubled at 0" : "; NOT doubled at 0");
  t.verified = reference_zero(family(t.value), t, engine) && c.holds && doubled_at_zero;
  write_threshold_file(t, family(t.value), "shipped-meta-ttl-widen-delay-threshold", v, out_dir, engine);
  return t;
}

}  // namespace

std::vector<HoleThreshold> measure_holes(impl::Variant variant, const std::string& out_dir, StorageEngineKind engine) {
  std::vector<HoleThreshold> out;
  if (variant == impl::Variant::shipped_expiry) {
    for (int64_t age_ms : kRepeatAgesMs) out.push_back(measure_skew(age_ms, out_dir, engine));
  } else if (variant == impl::Variant::shipped_meta_ttl) {
    out.push_back(measure_delay(true, out_dir, engine));
    out.push_back(measure_delay(false, out_dir, engine));
  }
  return out;
}

bool threshold_ok(const HoleThreshold& t) {
  if (t.found != t.expect_found) return false;
  return !t.found || (t.verified && t.file_written);
}

// Every field, always (value and file are 0 and "" when not found): the
// worker pipe and --json carry the same object, so one definition serves both.
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(HoleThreshold, knob, setting, meaning, lo, hi, expect_found, found, value,
                                   evaluations, verified, detail, file, file_written, replay)

json threshold_json(const HoleThreshold& t) { return t; }

HoleThreshold threshold_from_json(const json& doc) { return doc.get<HoleThreshold>(); }

}  // namespace qdt::sim
