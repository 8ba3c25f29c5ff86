// Loading a sweep file: the schema first, then each knob's rules beside the
// others, so a rule is checked against its neighbours in one read.
#include "sim/study/sweep.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <filesystem>
#include <sstream>

#include "sim/base/json_input.h"
#include "sim/base/json_schema.h"
#include "sim/base/nearest_name.h"

#include "sim/campaign/workload.h"
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

}  // namespace qdt::sim
