// One file past 400 lines: the sweep format's loader, each knob's rules
// beside the others, so a rule is checked against its neighbours in one read.
#include "sim/study/sweep.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>

#include "sim/base/json_input.h"
#include "sim/base/json_schema.h"
#include "sim/base/nearest_name.h"

#include "sim/campaign/campaign_jobs.h"
#include "sim/campaign/workload.h"
#include "sim/scenario/engine_support.h"
#include "sim/scenario/runner.h"

namespace qdt::sim {
namespace {

using json = nlohmann::json;



// The deepest errors first: they name the field at fault rather than "oneOf failed".
std::vector<LoadError> sweep_schema_errors(const json& doc, const std::string& file) {
  static const CompiledSchema schema(sweep_schema_text(), "sweep schema");
  return schema.errors(doc, file);
}

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> out;
  std::string part;
  std::istringstream in(path);
  while (std::getline(in, part, '.')) out.push_back(part);
  return out;
}

void flatten(const json& obj, const std::string& prefix, std::vector<std::string>& out) {
  for (const auto& [key, value] : obj.items()) {
    if (value.is_object()) flatten(value, prefix + key + ".", out);
    else if (value.is_number()) out.push_back(prefix + key);
  }
}

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

// Range values from + i*step, computed by multiplication (no accumulated
// rounding); integers stay integers when from and step are.
std::optional<std::vector<json>> range_values(const json& r, const std::string& where, const std::string& file,
                                              std::vector<LoadError>& errors) {
  const double from = r["from"].get<double>(), to = r["to"].get<double>(), step = r["step"].get<double>();
  if (!(step > 0) || to < from) {
    errors.push_back({file, where, "a range needs step > 0 and from <= to"});
    return std::nullopt;
  }
  // Within the doubles' exact integers, so that the count below converts and
  // from + i*step cannot overflow an int64 (fuzzing found "to": 6e21).
  constexpr double kExact = 9007199254740992.0;  // 2^53
  if (std::fabs(from) > kExact || std::fabs(to) > kExact || step > kExact) {
    errors.push_back({file, where, "a range's from, to and step are within +-2^53"});
    return std::nullopt;
  }
  // Counted in double and bounded before any conversion: a denormal step
  // makes the quotient infinite, which no integer type holds.
  const double count = std::floor((to - from) / step + 1e-9) + 1;
  if (!std::isfinite(count) || count > static_cast<double>(kMaxKnobValues)) {
    const std::string counted = count <= kExact ? std::to_string(static_cast<uint64_t>(count)) : "over 2^53";
    errors.push_back({file, where, "the range has " + counted + " values, more than " + std::to_string(kMaxKnobValues)});
    return std::nullopt;
  }
  assert(count >= 1);
  const bool integral = r["from"].is_number_integer() && r["step"].is_number_integer();
  std::vector<json> values;
  for (uint64_t i = 0; i < static_cast<uint64_t>(count); ++i) {
    if (integral) values.push_back(r["from"].get<int64_t>() + static_cast<int64_t>(i) * r["step"].get<int64_t>());
    else values.push_back(from + static_cast<double>(i) * step);
  }
  return values;
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

const std::vector<std::string>& known_metric_names() {
  // The metrics object has the same keys for every run: read them off an empty one.
  static const std::vector<std::string> names = [] {
    const LoadResult loaded = load_scenario_text(R"({"name": "metric-names", "steps": []})", "metric-names");
    assert(loaded.scenario && "the empty scenario loads");
    const RunResult result = run_scenario(*loaded.scenario, RunOptions{}).result;
    std::vector<std::string> out;
    flatten(result.metrics, "", out);
    std::sort(out.begin(), out.end());
    assert(!out.empty());
    return out;
  }();
  return names;
}

std::optional<double> metric_value(const json& metrics, const std::string& name) {
  const json* at = &metrics;
  for (const std::string& part : split_path(name)) {
    if (!at->is_object() || !at->contains(part)) return std::nullopt;
    at = &(*at)[part];
  }
  if (!at->is_number()) return std::nullopt;
  return at->get<double>();
}

SweepLoad load_sweep_text(const std::string& text, const std::string& file) {
  SweepLoad out;
  JsonInput parsed = parse_json_input(text);
  if (!parsed.doc) {
    out.errors.push_back({file, parsed.path, parsed.reason});
    return out;
  }
  json doc = std::move(*parsed.doc);
  // The schema's patterns run through std::regex, which recurses once per
  // character: bound the strings they read before it sees them.
  if (doc.is_object() && doc.contains("name") && doc["name"].is_string() && doc["name"].get_ref<const std::string&>().size() > 64) {
    out.errors.push_back({file, "/name", "at most 64 characters (it names the output files)"});
    return out;
  }
  // Knob path syntax first: the schema says it too (propertyNames), but
  // valijson reports that failure at "/" rather than at the knob.
  if (doc.is_object() && doc.contains("vary") && doc["vary"].is_object()) {
    for (const auto& [path, spec] : doc["vary"].items()) {
      bool ok = !path.empty() && path.size() <= 200;
      for (const std::string& seg : split_path(path)) {
        ok = ok && !seg.empty() &&
             (seg == "*" || seg.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-") ==
                                std::string::npos);
      }
      ok = ok && path.back() != '.';
      if (!ok) out.errors.push_back({file, "/vary/" + path, "a knob path is dotted field names or * (world.cache.budget_bytes)"});
    }
    if (!out.errors.empty()) return out;
  }
  // The schema first: the code rules below may then assume its shapes.
  out.errors = sweep_schema_errors(doc, file);
  if (!out.errors.empty()) return out;

  Sweep s;
  s.file = file;
  s.doc = doc;
  s.name = doc["name"].get<std::string>();
  s.description = doc.value("description", std::string());
  s.seeds = doc["seeds"].get<uint64_t>();
  s.first_seed = doc.value("first_seed", uint64_t{1});
  s.check_expectations = doc.value("expectations", std::string("check")) == "check";
  auto fail = [&](const std::string& path, const std::string& reason) { out.errors.push_back({file, path, reason}); };

  const json& base = doc["base"];
  if (base.contains("profile")) {
    s.profile = base["profile"].get<std::string>();
    if (!is_profile(s.profile)) {
      std::string names;
      for (const auto& n : profile_names()) names += (names.empty() ? "" : ", ") + n;
      fail("/base/profile", "unknown profile \"" + s.profile + "\"" + did_you_mean(s.profile, profile_names()) +
                                " (one of " + names + ")");
    }
  } else {
    const std::filesystem::path written = base["scenario"].get<std::string>();
    const std::filesystem::path folder = std::filesystem::path(file).parent_path();
    s.scenario_file = (written.is_absolute() || folder.empty() ? written : folder / written).string();
    std::string reason;
    const std::optional<std::string> body = read_input_file(s.scenario_file, reason);
    if (!body) {
      fail("/base/scenario", "cannot open " + s.scenario_file + " (" + reason + "; a path relative to the sweep file's folder)");
    } else {
      const LoadResult loaded = load_scenario_text(*body, s.scenario_file);
      if (!loaded.scenario) {
        for (const LoadError& e : loaded.errors) fail("/base/scenario", "the base scenario does not load: " + e.to_string());
      } else {
        s.scenario_doc = std::move(*parse_json_input(*body).doc);  // it loaded, so it parses
      }
    }
  }

  if (auto v = doc.find("variant"); v != doc.end()) {
    if (auto variant = impl::parse_variant(v->get<std::string>())) s.variant = *variant;
    else fail("/variant", "unknown variant \"" + v->get<std::string>() + "\"" +
                              did_you_mean(v->get<std::string>(), impl::variant_names()) + " (qdt mutants --list names them)");
  }

  uint64_t points = 1;
  for (const auto& [path, spec] : doc["vary"].items()) {
    const std::string where = "/vary/" + path;
    Knob k;
    k.path = path;
    k.segments = split_path(path);
    const std::string& root = k.segments[0];
    if (k.segments.size() < 2 || (root != "world" && root != "queues" && root != "steps" && root != "generator")) {
      fail(where, "a knob path starts with world., queues., steps. or generator. and names a field (the sweep sets "
                  "seed itself)");
      continue;
    }
    if (root == "generator" && (s.profile.empty() || k.segments.size() != 2)) {
      fail(where, s.profile.empty() ? "generator. knobs need a profile base (they fix what the generator draws)"
                                    : "a generator knob is generator.NAME");
      continue;
    }
    if (root == "steps" && s.profile.empty() == false) {
      fail(where, "steps. knobs need a scenario base (a profile draws its steps per seed)");
      continue;
    }
    if (k.segments.back() == "*") {
      fail(where, "a knob path ends with a field name, not *");
      continue;
    }
    if (spec.is_array()) {
      k.values.assign(spec.begin(), spec.end());
    } else if (auto values = range_values(spec, where, file, out.errors)) {
      k.values = std::move(*values);
    } else {
      continue;
    }
    points *= k.values.size();
    if (points > kMaxSweepPoints) {
      fail("/vary", "more than " + std::to_string(kMaxSweepPoints) + " points (the product of the knobs' value counts)");
      break;
    }
    s.knobs.push_back(std::move(k));
  }
  if (out.errors.empty() && points * s.seeds > kMaxSweepRuns) {
    fail("/seeds", std::to_string(points) + " points x " + std::to_string(s.seeds) + " seeds is more than " +
                       std::to_string(kMaxSweepRuns) + " runs");
  }
  if (s.first_seed > UINT64_MAX - s.seeds) fail("/first_seed", "first_seed + seeds overflows");

  const auto& known = known_metric_names();
  for (size_t i = 0; i < doc["metrics"].size(); ++i) {
    const std::string name = doc["metrics"][i].get<std::string>();
    if (!std::binary_search(known.begin(), known.end(), name)) {
      std::string names;
      for (const auto& n : known) names += (names.empty() ? "" : ", ") + n;
      fail("/metrics/" + std::to_string(i), "unknown metric \"" + name + "\" (one of " + names + ")");
    }
    s.metrics.push_back(name);
  }
  if (out.errors.empty()) out.sweep = std::move(s);
  return out;
}

SweepLoad load_sweep_file(const std::string& file) {
  std::string reason;
  const std::optional<std::string> text = read_input_file(file, reason);
  if (!text) return SweepLoad{std::nullopt, {{file, "/", reason}}};
  return load_sweep_text(*text, file);
}

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
