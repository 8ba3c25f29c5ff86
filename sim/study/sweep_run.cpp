#include "sim/study/sweep_run.h"

#include <algorithm>
#include <cassert>
#include <iostream>
#include <optional>

#include "sim/base/fork_pool.h"
#include "sim/base/outcome.h"
#include "sim/campaign/campaign.h"
#include "sim/scenario/runner.h"
#include "sim/study/sweep_points.h"

namespace qdt::sim {
namespace {

using json = nlohmann::json;

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

// One run, as a worker sends it: [u, passed, failure, trace_hash, [values], load_error].
json run_unit(const Sweep& sweep, const std::vector<Point>& points, uint64_t u, StorageEngineKind engine) {
  const Point& point = points[u / sweep.seeds];
  const uint64_t seed = sweep.first_seed + u % sweep.seeds;
  const PointDocument d = point_document(sweep, point, seed);
  if (d.error) return {u, false, "", "", json::array(), *d.error};
  // Loaded here rather than through run_document to keep the loader's reason.
  const LoadResult loaded = load_scenario_text(d.doc.dump(), sweep.name);
  if (!loaded.scenario) {
    const LoadError& e = loaded.errors.front();
    return {u, false, "", "", json::array(), "the scenario is invalid: " + e.path + ": " + e.reason};
  }
  RunOptions options;
  options.variant = sweep.variant;
  options.engine = engine;
  const RunResult result = run_scenario(*loaded.scenario, options).result;
  // Without expectations the run is the same (its trace hash too); only what judges it changes.
  const RunFailure* judged = nullptr;
  for (const RunFailure& f : result.failures) {
    if (sweep.check_expectations || f.kind != "expectation") {
      judged = &f;
      break;
    }
  }
  const bool passed = result.passed || judged == nullptr;
  json values = json::array();
  for (const std::string& m : sweep.metrics) {
    const std::optional<double> v = metric_value(result.metrics, m);
    assert(v && "the loader checked every metric name");
    values.push_back(*v);
  }
  return {u, passed, passed ? std::string() : judged ? judged->signature() : failure_signature(result),
          result.trace_hash, values, ""};
}

json run_share(const Sweep& sweep, const std::vector<Point>& points, uint64_t worker, uint64_t workers, bool quiet,
               StorageEngineKind engine, const WallClock& wall) {
  const uint64_t total = points.size() * sweep.seeds;
  const double start = wall();
  double last_progress = 0;
  uint64_t done = 0, failed = 0;
  json out = json::array();
  for (uint64_t u = worker; u < total; u += workers) {
    out.push_back(run_unit(sweep, points, u, engine));
    ++done;
    failed += out.back()[1].get<bool>() ? 0 : 1;
    const double elapsed = wall() - start;
    if (!quiet && worker == 0 && (elapsed - last_progress > 1.0 || u + workers >= total)) {
      last_progress = elapsed;
      // Worker 0 speaks for all: its share times the workers approximates the whole.
      const uint64_t all_done = std::min(total, done * workers);
      const double rate = static_cast<double>(all_done) / std::max(elapsed, 1e-9);
      std::cerr << "[" << all_done << "/" << total << "] failures " << failed * workers << " (approx), "
                << static_cast<int64_t>(rate) << " runs/s, ~"
                << static_cast<int64_t>(static_cast<double>(total - all_done) / std::max(rate, 1e-9)) << " s left\n";
    }
  }
  return out;
}


}  // namespace

std::string unit_of(const std::string& name) {
  std::string lower = name;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  if (ends_with(lower, "_ms") || ends_with(lower, "latency_ms")) return "ms";
  if (ends_with(lower, "_s") || ends_with(lower, "seconds")) return "s";
  if (lower.find("bytes") != std::string::npos) return "bytes";
  if (lower.find("loss_") != std::string::npos || ends_with(lower, "network.duplicate")) return "probability";
  return "count";
}

SweepRunResult run_sweep(const Sweep& sweep, const SweepRunOptions& options, const WallClock& wall) {
  const std::vector<Point> points = expand_points(sweep);
  const uint64_t total = points.size() * sweep.seeds;
  assert(total <= kMaxSweepRuns);
  const double start = wall();
  SweepRunResult out;
  std::vector<json> parts;
  if (options.jobs <= 1) {
    parts.push_back(run_share(sweep, points, 0, 1, options.quiet, options.engine, wall));
  } else {
    auto workers = run_forked(options.jobs, options.jobs, [&](size_t j) {
      return run_share(sweep, points, j, options.jobs, options.quiet, options.engine, wall);
    });
    if (!workers) {
      out.errors.push_back({sweep.file, "/", "a sweep worker failed"});
      return out;
    }
    parts = std::move(*workers);
  }
  // Merge by run index: the order of workers never shows.
  std::vector<json> runs(total);
  for (json& part : parts) {
    for (json& r : part) {
      const uint64_t u = r[0].get<uint64_t>();  // before the move: json's operator= takes its argument by value
      assert(u < total);
      runs[u] = std::move(r);
    }
  }
  json point_docs = json::array();
  uint64_t failures = 0;
  for (size_t p = 0; p < points.size(); ++p) {
    std::vector<SeedValues> seeds;
    for (uint64_t s = 0; s < sweep.seeds; ++s) {
      const json& r = runs[p * sweep.seeds + s];
      assert(r.is_array() && r.size() == 6 && "every run was reported");
      const uint64_t seed = sweep.first_seed + s;
      if (!r[5].get<std::string>().empty()) {
        out.errors.push_back({sweep.file, "/vary",
                              "point " + std::to_string(p) + " (" + point_text(sweep, points[p]) + "), seed " +
                                  std::to_string(seed) + ": " + r[5].get<std::string>()});
        continue;
      }
      SeedValues v;
      v.seed = seed;
      v.passed = r[1].get<bool>();
      v.failure = r[2].get<std::string>();
      v.trace_hash = r[3].get<std::string>();
      for (const json& x : r[4]) v.values.push_back(x.get<double>());
      failures += v.passed ? 0 : 1;
      seeds.push_back(std::move(v));
    }
    if (out.errors.empty()) point_docs.push_back(aggregate_point(sweep, points[p], p, seeds));
  }
  if (!out.errors.empty()) return out;

  json knobs = json::array(), metrics = json::array();
  for (const Knob& k : sweep.knobs) {
    // Names (world.variant) have no unit.
    const bool names = std::all_of(k.values.begin(), k.values.end(), [](const json& v) { return v.is_string(); });
    knobs.push_back({{"path", k.path}, {"values", k.values}, {"unit", names ? "" : unit_of(k.path)}});
  }
  for (const std::string& m : sweep.metrics) metrics.push_back({{"name", m}, {"unit", unit_of(m)}});
  json base = sweep.profile.empty() ? json{{"scenario", sweep.scenario_file}} : json{{"profile", sweep.profile}};
  out.document = {{"name", sweep.name},
                  {"description", sweep.description},
                  {"command", options.command},
                  {"base", base},
                  {"variant", impl::variant_name(sweep.variant)},
                  {"expectations", sweep.check_expectations ? "check" : "ignore"},
                  {"seeds", sweep.seeds},
                  {"first_seed", sweep.first_seed},
                  {"metrics", metrics},
                  {"knobs", knobs},
                  {"points", point_docs},
                  {"runs", total},
                  {"failures", failures},
                  {"sweep", sweep.doc},
                  {"wall_s", wall() - start}};
  if (!options.commit.empty()) out.document["commit"] = options.commit;
  // A study's stated question and conclusions, for the top of its page (reports/study_statement.h).
  for (const char* field : {"question", "conclusions"}) {
    if (sweep.doc.contains(field)) out.document[field] = sweep.doc[field];
  }
  out.all_passed = failures == 0;
  return out;
}

}  // namespace qdt::sim
