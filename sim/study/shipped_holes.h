#pragma once
// The holes of the shipped design (docs/semantics.md §2.11, 7), measured: for the variants
// that copy the shipped broker, the scenario parameter at which a double
// write starts (or stops), found by bisection (bisect.h) over a parametric
// scenario family built to expose the hole mechanistically, each threshold
// checked on both sides and against the reference, and written as a replay
// file. qdt mutants puts these in its report.
//
// Families (param -> scenario document; zero network and storage latency, so
// storage time moves only through `advance` and the thresholds are exact):
// * expiry_skew_scenario: broker 0 runs skew_ms ahead of storage; k-orig is
//   pushed, then k-warm (the cache holds both rows and can vouch), then after
//   repeat_age_ms k-orig again, inside the 60 s window by storage's clock.
//   shipped-expiry expires by the broker's clock, so once skew + age passes
//   the window it drops k-orig's row, vouches past it and the repeat is
//   stored twice. The threshold is the smallest skew_ms that doubles.
// * meta_ttl_delay_scenario: window 60 s; k-orig, 100 s later k-warm (the
//   broker has just learnt 60 s), then the window is widened to 3600 s and
//   delay_ms later k-orig is repeated (its original, 100 s old, is back
//   inside the window). With traffic, a fresh key is pushed every second in
//   between. shipped-meta-ttl keeps the 60 s window for its 30 s metadata
//   TTL and storage applies the watermark without the window guard, so the
//   repeat is doubled from delay 0 until the broker has re-learnt the window.
//   "The delay at which it bites" is therefore read as how long the hole
//   stays open: the bisection finds the smallest delay_ms that is safe again,
//   and the report names the largest that still doubles (one less), with
//   doubling at delay 0 checked. Without traffic nothing refreshes the
//   broker's metadata before the repeat (it is refreshed on a response, and
//   the repeat's own request still carries the stale window), so the hole
//   never closes within the range: that measurement expects "not found".
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "impl/variant.h"
#include "sim/world/world_config.h"

namespace qdt::sim {

constexpr int64_t kHoleWindowSeconds = 60;

nlohmann::json expiry_skew_scenario(int64_t skew_ms, int64_t repeat_age_ms);
nlohmann::json meta_ttl_delay_scenario(int64_t delay_ms, bool traffic);

// Double writes (metrics.double_writes) of `doc` under `variant`, and whether it passed.
struct HoleRun {
  int64_t double_writes = 0;
  bool passed = false;
};
HoleRun run_hole(const nlohmann::json& doc, impl::Variant variant,
                 StorageEngineKind engine = StorageEngineKind::sqlite);

// One measured threshold (or a measured absence) of one family setting.
struct HoleThreshold {
  std::string knob;     // the bisected parameter: "skew_ms" or "delay_ms"
  std::string setting;  // the fixed parameters, e.g. "repeat_age_ms=30000"
  std::string meaning;  // what `value` is, in words
  int64_t lo = 0, hi = 0;  // the range searched
  bool expect_found = true;
  bool found = false;
  int64_t value = 0;    // the reported parameter (the replay file's)
  int evaluations = 0;  // scenario runs: bisection, both-sides check and the reference's run
  bool verified = false;  // a true step under the variant, and the reference stores no double at `value`
  std::string detail;     // the both-sides check, the reference's answer, or why not found
  std::string file;       // OUT_DIR/VARIANT/NAME.json, when found
  bool file_written = false;
  std::string replay;  // "qdt replay FILE --variant V [--storage postgres]"
};

// Whether `variant` has families here (shipped-expiry, shipped-meta-ttl).
bool has_hole_families(impl::Variant variant);

// Every measurement of `variant`'s families, threshold files written below
// out_dir (created), every run on `engine`. Deterministic: only scenario runs, no wall clock.
std::vector<HoleThreshold> measure_holes(impl::Variant variant, const std::string& out_dir,
                                         StorageEngineKind engine = StorageEngineKind::sqlite);

// A measurement that contradicts its expectation (found when it should not
// be, not found, or not verified) is a defect of the suite's claim.
bool threshold_ok(const HoleThreshold& t);

nlohmann::json threshold_json(const HoleThreshold& t);
HoleThreshold threshold_from_json(const nlohmann::json& doc);

}  // namespace qdt::sim
