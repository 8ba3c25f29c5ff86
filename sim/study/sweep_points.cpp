#include "sim/study/sweep_points.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "sim/base/json_schema.h"

#include "sim/campaign/campaign_jobs.h"
#include "sim/campaign/workload.h"
#include "sim/scenario/engine_support.h"

namespace qdt::sim {
namespace {

using json = nlohmann::json;

// A number as JSON: integral values print as integers, so counts read as
// counts; others keep 6 significant digits (means of ratios would otherwise
// print 17), the same digits in the JSON, the tables and the charts.
json number(double v) {
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9.0e15) return static_cast<int64_t>(v);
  if (!std::isfinite(v)) return v;
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", v);
  return std::strtod(text, nullptr);
}

// Whether a scenario error is about the knob at `segments` (a `*` matches any
// key): its reason names the knob, or its path and the knob's share their
// first two or more segments.
bool error_is_about(const std::vector<std::string>& segments, const LoadError& e, const std::string& dotted) {
  if (e.reason.find(dotted) != std::string::npos) return true;
  std::vector<std::string> parts;
  std::string part;
  std::istringstream in(e.path.size() > 1 ? e.path.substr(1) : "");
  while (std::getline(in, part, '/')) parts.push_back(part);
  // The error is at the knob's field, inside it, or at a field the knob's path created ("/world/cahce").
  if (parts.size() < 2) return false;
  for (size_t i = 0; i < std::min(segments.size(), parts.size()); ++i) {
    if (segments[i] != "*" && segments[i] != parts[i]) return false;
  }
  return true;
}

}  // namespace

uint64_t point_count(const Sweep& sweep) {
  uint64_t n = 1;
  for (const Knob& k : sweep.knobs) n *= k.values.size();
  return n;
}

std::vector<Point> expand_points(const Sweep& sweep) {
  const uint64_t n = point_count(sweep);
  assert(n <= kMaxSweepPoints);
  std::vector<Point> out;
  for (uint64_t i = 0; i < n; ++i) {
    Point p(sweep.knobs.size());
    uint64_t rest = i;
    for (size_t k = sweep.knobs.size(); k-- > 0;) {
      p[k] = rest % sweep.knobs[k].values.size();
      rest /= sweep.knobs[k].values.size();
    }
    out.push_back(std::move(p));
  }
  return out;
}

json point_values(const Sweep& sweep, const Point& point) {
  assert(point.size() == sweep.knobs.size());
  json out = json::object();
  for (size_t k = 0; k < point.size(); ++k) out[sweep.knobs[k].path] = sweep.knobs[k].values[point[k]];
  return out;
}

std::string point_text(const Sweep& sweep, const Point& point) {
  std::string out;
  for (size_t k = 0; k < point.size(); ++k) {
    out += (k ? ", " : "") + sweep.knobs[k].path + "=" + sweep.knobs[k].values[point[k]].dump();
  }
  return out;
}

std::optional<std::string> apply_knob(json& doc, const std::vector<std::string>& segments, const json& value) {
  assert(!segments.empty());
  std::vector<json*> at = {&doc};
  std::string walked;
  for (size_t i = 0; i < segments.size(); ++i) {
    const std::string& seg = segments[i];
    const bool last = i + 1 == segments.size();
    std::vector<json*> next;
    for (json* node : at) {
      const std::string here = walked.empty() ? std::string("the document") : walked;
      if (node->is_array()) {
        // Arrays (steps, items) are indexed by number; * is every element.
        if (seg == "*") {
          for (json& child : *node) next.push_back(&child);
          continue;
        }
        const bool digits = !seg.empty() && seg.size() <= 6 && seg.find_first_not_of("0123456789") == std::string::npos;
        if (!digits || std::stoul(seg) >= node->size()) {
          return here + " is an array of " + std::to_string(node->size()) + " elements: " + seg +
                 " is not an index into it (0-based) or *";
        }
        json& child = (*node)[std::stoul(seg)];
        if (last) child = value;
        else next.push_back(&child);
        continue;
      }
      if (node->is_null()) *node = json::object();
      if (!node->is_object()) return here + " is not an object or an array";
      if (seg == "*") {
        for (auto& [key, child] : node->items()) next.push_back(&child);
      } else if (last) {
        (*node)[seg] = value;
      } else {
        next.push_back(&(*node)[seg]);
      }
    }
    walked += (walked.empty() ? "" : ".") + seg;
    if (seg == "*" && next.empty()) return walked + " matches nothing in the scenario";
    at = std::move(next);
  }
  return std::nullopt;
}

PointDocument point_document(const Sweep& sweep, const Point& point, uint64_t seed) {
  PointDocument out;
  GeneratorOverrides fixed;
  for (size_t k = 0; k < point.size(); ++k) {
    const Knob& knob = sweep.knobs[k];
    if (knob.segments[0] != "generator") continue;
    if (auto error = set_generator_knob(fixed, knob.segments[1], knob.values[point[k]])) {
      out.error = knob.path + ": " + *error;
      return out;
    }
  }
  out.doc = sweep.profile.empty() ? sweep.scenario_doc : generate_scenario(seed, sweep.profile, fixed);
  out.doc["seed"] = seed;
  for (size_t k = 0; k < point.size(); ++k) {
    if (sweep.knobs[k].segments[0] == "generator") continue;
    if (auto error = apply_knob(out.doc, sweep.knobs[k].segments, sweep.knobs[k].values[point[k]])) {
      out.error = sweep.knobs[k].path + ": " + *error;
      return out;
    }
  }
  return out;
}

std::vector<LoadError> check_points(const Sweep& sweep) {
  std::vector<LoadError> errors;
  const std::vector<Point> points = expand_points(sweep);
  for (size_t i = 0; i < points.size() && errors.size() < CompiledSchema::kErrorsMax; ++i) {
    const std::string at = "point " + std::to_string(i) + " (" + point_text(sweep, points[i]) + "), seed " +
                           std::to_string(sweep.first_seed);
    const PointDocument d = point_document(sweep, points[i], sweep.first_seed);
    if (d.error) {
      const std::string knob = d.error->substr(0, d.error->find(':'));
      errors.push_back({sweep.file, "/vary/" + knob, at + ": " + *d.error});
      continue;
    }
    const LoadResult loaded = load_scenario_text(d.doc.dump(), sweep.name);
    if (loaded.scenario) continue;
    const LoadError& e = loaded.errors.front();
    std::string path = "/vary";
    for (const Knob& k : sweep.knobs) {
      if (error_is_about(k.segments, e, k.path)) {
        path = "/vary/" + k.path;
        break;
      }
    }
    errors.push_back({sweep.file, path, at + ": the scenario is invalid: " + e.path + ": " + e.reason});
  }
  return errors;
}

std::vector<LoadError> engine_refusals(const Sweep& sweep, StorageEngineKind engine) {
  std::vector<LoadError> errors;
  if (engine == StorageEngineKind::sqlite) {
    if (auto reason = engine_refuses_variant(engine, sweep.variant)) errors.push_back({sweep.file, "/variant", *reason});
    return errors;
  }
  if (!sweep.profile.empty()) {
    if (auto reason = engine_refuses_campaign(engine, sweep.profile, sweep.variant)) {
      errors.push_back({sweep.file, "/profile", *reason});
      return errors;
    }
  }
  const std::vector<Point> points = expand_points(sweep);
  for (size_t i = 0; i < points.size() && errors.size() < CompiledSchema::kErrorsMax; ++i) {
    const PointDocument d = point_document(sweep, points[i], sweep.first_seed);
    assert(!d.error && "check_points ran first");
    const LoadResult loaded = load_scenario_text(d.doc.dump(), sweep.name);
    assert(loaded.scenario && "check_points ran first");
    if (auto reason = engine_refuses(engine, *loaded.scenario, sweep.variant)) {
      errors.push_back({sweep.file, "/vary", "point " + std::to_string(i) + " (" + point_text(sweep, points[i]) +
                                                 "): --storage postgres: PostgreSQL cannot run it: " + *reason});
    }
  }
  return errors;
}

json aggregate_point(const Sweep& sweep, const Point& point, size_t index, const std::vector<SeedValues>& runs) {
  json metrics = json::object(), raw = json::object();
  for (size_t m = 0; m < sweep.metrics.size(); ++m) {
    double sum = 0, lo = 0, hi = 0;
    json values = json::array();
    for (size_t r = 0; r < runs.size(); ++r) {
      assert(runs[r].values.size() == sweep.metrics.size());
      const double v = runs[r].values[m];
      sum += v;
      lo = r == 0 ? v : std::min(lo, v);
      hi = r == 0 ? v : std::max(hi, v);
      values.push_back(number(v));
    }
    const double mean = runs.empty() ? 0 : sum / static_cast<double>(runs.size());
    metrics[sweep.metrics[m]] = {{"mean", number(mean)}, {"min", number(lo)}, {"max", number(hi)}};
    raw[sweep.metrics[m]] = std::move(values);
  }
  json seeds = json::array(), failed = json::array();
  for (const SeedValues& r : runs) {
    seeds.push_back(r.seed);
    if (!r.passed) failed.push_back({{"seed", r.seed}, {"property", r.failure}});
  }
  return {{"index", index},
          {"knobs", point_values(sweep, point)},
          {"runs", runs.size()},
          {"failures", failed.size()},
          {"failed_seeds", failed},
          {"metrics", metrics},
          {"seeds", seeds},
          {"raw", raw}};
}

}  // namespace qdt::sim
