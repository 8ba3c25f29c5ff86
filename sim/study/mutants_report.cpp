#include "sim/study/mutants_report.h"

#include <algorithm>
#include <cassert>
#include <cstdio>
#include <sstream>

#include "sim/base/outcome.h"
#include "sim/base/shell_word.h"
#include "sim/scenario/variant_reach.h"

namespace qdt::sim {

using json = nlohmann::json;

MutantVerdict classify(const MutantResult& r, const HarmlessRegistry& registry) {
  if (r.caught) return MutantVerdict::caught;
  return find_harmless_argument(registry, r.variant) ? MutantVerdict::harmless : MutantVerdict::hole;
}

std::string verdict_name(MutantVerdict verdict) {
  switch (verdict) {
    case MutantVerdict::caught: return "caught";
    case MutantVerdict::harmless: return "survived";
    case MutantVerdict::hole: return "hole";
  }
  return "?";
}

json result_json(const MutantResult& r) {
  json out = {{"variant", impl::variant_name(r.variant)},
              {"caught", r.caught},
              {"seeds_run", r.seeds_run},
              {"seeds_total", r.seeds_total},
              {"wall_s", r.wall_s}};
  if (r.caught) {
    out["property"] = r.property;
    out["detail"] = r.detail;
    out["profile"] = r.profile;
    out["seed"] = r.seed;
    out["file"] = r.file;
    out["file_written"] = r.file_written;
    out["steps"] = r.steps;
    out["shrink_runs"] = r.shrink_runs;
    out["replay"] = r.replay;
  }
  if (!r.thresholds.empty()) {
    out["thresholds"] = json::array();
    for (const HoleThreshold& t : r.thresholds) out["thresholds"].push_back(threshold_json(t));
  }
  return out;
}

MutantResult result_from_json(const json& doc) {
  MutantResult r;
  const auto variant = impl::parse_variant(doc.at("variant").get<std::string>());
  assert(variant && "results name variants of this build");
  r.variant = *variant;
  r.caught = doc.at("caught").get<bool>();
  r.seeds_run = doc.at("seeds_run").get<uint64_t>();
  r.seeds_total = doc.at("seeds_total").get<uint64_t>();
  r.wall_s = doc.at("wall_s").get<double>();
  if (r.caught) {
    r.property = doc.at("property").get<std::string>();
    r.detail = doc.at("detail").get<std::string>();
    r.profile = doc.at("profile").get<std::string>();
    r.seed = doc.at("seed").get<uint64_t>();
    r.file = doc.at("file").get<std::string>();
    r.file_written = doc.at("file_written").get<bool>();
    r.steps = doc.at("steps").get<int>();
    r.shrink_runs = doc.at("shrink_runs").get<int>();
    r.replay = doc.at("replay").get<std::string>();
  }
  if (doc.contains("thresholds")) {
    for (const json& t : doc["thresholds"]) r.thresholds.push_back(threshold_from_json(t));
  }
  return r;
}

json mutants_json(const std::vector<MutantResult>& results, const HarmlessRegistry& registry,
                  const json& settings) {
  json variants = json::array(), survivors = json::array(), holes = json::array();
  for (const MutantResult& r : results) {
    const MutantVerdict verdict = classify(r, registry);
    json v = result_json(r);
    v["description"] = impl::variant_description(r.variant);
    v["verdict"] = verdict_name(verdict);
    const HarmlessArgument* argument = find_harmless_argument(registry, r.variant);
    if (verdict != MutantVerdict::caught) {
      json s = {{"variant", v["variant"]}, {"harmless", argument != nullptr}};
      if (argument) {
        v["harmless"] = argument->argument;
        v["test"] = argument->test;
        s["argument"] = argument->argument;
        s["test"] = argument->test;
      }
      survivors.push_back(std::move(s));
    }
    if (verdict == MutantVerdict::hole) holes.push_back(v["variant"]);
    variants.push_back(std::move(v));
  }
  json out = settings.is_object() ? settings : json::object();
  out["variants"] = std::move(variants);
  out["survivors"] = std::move(survivors);
  out["holes"] = std::move(holes);
  out["exit_code"] = status_number(mutants_outcome(results, registry));
  return out;
}

namespace {

std::string pad(const std::string& text, size_t width, bool right = false) {
  if (text.size() >= width) return text;
  const std::string fill(width - text.size(), ' ');
  return right ? fill + text : text + fill;
}

std::string fixed1(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", x);
  return buf;
}

std::string runs(const HoleThreshold& t) {
  return std::to_string(t.evaluations) + (t.evaluations == 1 ? " run" : " runs");
}

// Where each hole of the shipped design bites: a line per measurement, then
// its check and its replay command.
std::string thresholds_section(const std::vector<MutantResult>& results) {
  std::ostringstream out;
  for (const MutantResult& r : results) {
    for (const HoleThreshold& t : r.thresholds) {
      const std::string verdict = !threshold_ok(t) ? "  CHECK FAILED" : "";
      out << "  " << impl::variant_name(r.variant) << " " << t.setting << ": ";
      if (t.found) {
        out << t.knob << " = " << t.value << " (" << t.meaning << "; " << runs(t) << ")" << verdict << "\n"
            << command_below("    ", t.detail + (t.file_written ? "" : " (its file was not written)"), t.replay);
      } else {
        out << "not found (" << t.detail << "; " << runs(t) << ")"
            << (t.expect_found ? "" : ", as expected") << verdict << "\n";
      }
    }
  }
  if (out.str().empty()) return "";
  return "\nwhere the shipped design's holes bite (bisection over the scenario; each replay exits 1 under its variant, "
         "0 on the reference):\n" +
         out.str();
}

}  // namespace

std::string mutants_table(const std::vector<MutantResult>& results, const HarmlessRegistry& registry) {
  const std::vector<std::string> header = {"variant", "result", "property", "caught at", "seeds", "wall s", "steps",
                                           "shrunk file"};
  std::vector<std::vector<std::string>> rows;
  for (const MutantResult& r : results) {
    const MutantVerdict verdict = classify(r, registry);
    if (r.caught) {
      rows.push_back({impl::variant_name(r.variant), verdict_name(verdict), r.property,
                      r.profile + " seed " + std::to_string(r.seed), std::to_string(r.seeds_run), fixed1(r.wall_s),
                      std::to_string(r.steps), r.file_written ? r.file : r.file + " (not written)"});
    } else {
      rows.push_back({impl::variant_name(r.variant), verdict_name(verdict), "-", "-", std::to_string(r.seeds_run),
                      fixed1(r.wall_s), "-", "-"});
    }
  }
  std::vector<size_t> width(header.size());
  for (size_t c = 0; c < header.size(); ++c) {
    width[c] = header[c].size();
    for (const auto& row : rows) width[c] = std::max(width[c], row[c].size());
  }
  const auto right_aligned = [](size_t c) { return c == 4 || c == 5 || c == 6; };
  std::ostringstream out;
  const auto line = [&](const std::vector<std::string>& cells) {
    std::string text;
    for (size_t c = 0; c < cells.size(); ++c) {
      text += (c == 0 ? "" : "  ") + (c + 1 == cells.size() ? cells[c] : pad(cells[c], width[c], right_aligned(c)));
    }
    out << text << "\n";
  };
  line(header);
  for (const auto& row : rows) line(row);

  size_t caught = 0, harmless = 0, holes = 0;
  std::ostringstream replays, arguments, hole_lines;
  for (const MutantResult& r : results) {
    const std::string name = impl::variant_name(r.variant);
    switch (classify(r, registry)) {
      case MutantVerdict::caught:
        ++caught;
        replays << command_below("  ", name, r.replay);
        break;
      case MutantVerdict::harmless: {
        ++harmless;
        const HarmlessArgument* a = find_harmless_argument(registry, r.variant);
        arguments << "  " << name << ": survived (harmless: " << a->argument << ")"
                  << (a->test.empty() ? " [no test]" : " [test: " + a->test + "]") << "\n";
        break;
      }
      case MutantVerdict::hole:
        ++holes;
        hole_lines << "  " << name << ": hole — survived " << r.seeds_run
                   << " seeds and no argument says it is harmless (" << impl::variant_description(r.variant)
                   << ")\n";
        break;
    }
  }
  if (caught > 0) out << "\nreplay (exits 1 while the suite catches the variant):\n" << replays.str();
  out << thresholds_section(results);
  if (harmless > 0) out << "\nsurvivors argued harmless:\n" << arguments.str();
  if (holes > 0) out << "\nholes in the suite:\n" << hole_lines.str();
  out << "\n" << results.size() << " variants: " << caught << " caught, " << harmless << " survived (harmless), "
      << holes << " holes\n";
  return out.str();
}

Outcome mutants_outcome(const std::vector<MutantResult>& results, const HarmlessRegistry& registry) {
  for (const MutantResult& r : results) {
    if (classify(r, registry) == MutantVerdict::hole) return Outcome::failed;
    for (const HoleThreshold& t : r.thresholds) {
      if (!threshold_ok(t)) return Outcome::failed;
    }
  }
  return Outcome::held;
}

std::string variant_list(const HarmlessRegistry& registry, bool as_json) {
  if (as_json) {
    json list = json::array();
    for (impl::Variant v : impl::all_variants()) {
      const HarmlessArgument* a = find_harmless_argument(registry, v);
      json entry = {{"variant", impl::variant_name(v)},
                    {"description", impl::variant_description(v)},
                    {"harmless", a != nullptr}};
      const VariantReach& reach = variant_reach(v);
      entry["reached_by"] = json::array();
      for (std::string_view point : reach.points) entry["reached_by"].push_back(point);
      entry["profile"] = reach.profile;
      if (a) {
        entry["argument"] = a->argument;
        entry["test"] = a->test;
      }
      list.push_back(std::move(entry));
    }
    return list.dump(2) + "\n";
  }
  size_t width = std::string("variant").size();
  for (const std::string& name : impl::variant_names()) width = std::max(width, name.size());
  std::ostringstream out;
  out << pad("variant", width) << "  " << pad("harmless", 8) << "  " << pad("profile", 14) << "  description\n";
  for (impl::Variant v : impl::all_variants()) {
    const HarmlessArgument* a = find_harmless_argument(registry, v);
    const VariantReach& reach = variant_reach(v);
    out << pad(impl::variant_name(v), width) << "  " << pad(a ? "argued" : "-", 8) << "  "
        << pad(std::string(reach.profile), 14) << "  " << impl::variant_description(v) << "\n";
    const std::string indent = pad("", width) + "  " + pad("", 8) + "  " + pad("", 14) + "  ";
    std::string points;
    for (std::string_view point : reach.points) points += (points.empty() ? "" : ", ") + std::string(point);
    out << indent << "runs when a seed reaches " << (points.empty() ? "any push" : "one of " + points) << "\n";
    if (a) out << indent << "harmless: " << a->argument << "\n";
  }
  return out.str();
}

}  // namespace qdt::sim
