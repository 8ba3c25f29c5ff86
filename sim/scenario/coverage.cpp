#include "sim/scenario/coverage.h"

#include <cstdio>
#include <cstdlib>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>

#include "sim/base/json_input.h"
#include "sim/scenario/reach_points.h"
#include "sim/schedule/scheduler.h"

namespace qdt::sim {

using json = nlohmann::json;

RunReach::RunReach()
    : hit_(reach_points().size(), false),
      first_pick_(reach_points().size(), -1),
      picks_base_(SeededScheduler::install().picks()) {
  previous_ = impl::set_reach_observer(this);
}

RunReach::~RunReach() { impl::set_reach_observer(previous_); }

void RunReach::reached(std::string_view point) noexcept {
  auto it = by_address_.find(point.data());
  if (it == by_address_.end()) {
    const std::optional<size_t> index = reach_index(point);
    if (!index) {
      std::fprintf(stderr, "qdt: QDT_REACHED(\"%.*s\") is not in sim/scenario/reach_points.cpp\n",
                   static_cast<int>(point.size()), point.data());
      std::abort();
    }
    it = by_address_.emplace(point.data(), *index).first;
  }
  hit_[it->second] = true;
  if (!run_ended_ && first_pick_[it->second] < 0) {
    first_pick_[it->second] = static_cast<int64_t>(SeededScheduler::install().picks() - picks_base_);
  }
}

std::vector<std::pair<std::string, uint64_t>> RunReach::first_picks() const {
  std::vector<std::pair<std::string, uint64_t>> out;
  for (size_t i = 0; i < first_pick_.size(); ++i) {
    if (first_pick_[i] >= 0) out.emplace_back(std::string(reach_points()[i].name), static_cast<uint64_t>(first_pick_[i]));
  }
  return out;
}

std::vector<std::string> RunReach::names() const {
  std::vector<std::string> out;
  for (size_t i = 0; i < hit_.size(); ++i) {
    if (hit_[i]) out.emplace_back(reach_points()[i].name);
  }
  return out;
}

void add_run_coverage(json& coverage, const std::string& profile, const json& reached) {
  json& p = coverage[profile];
  if (!p.is_object()) p = json::object();
  p["seeds"] = p.value("seeds", uint64_t{0}) + 1;
  if (!p.contains("points")) p["points"] = json::object();
  for (const json& name : reached) {
    const std::string n = name.get<std::string>();
    p["points"][n] = p["points"].value(n, uint64_t{0}) + 1;
  }
}

void merge_coverage(json& into, const json& part) {
  for (const auto& [profile, p] : part.items()) {
    json& q = into[profile];
    if (!q.is_object()) q = json::object();
    q["seeds"] = q.value("seeds", uint64_t{0}) + p.value("seeds", uint64_t{0});
    if (!q.contains("points")) q["points"] = json::object();
    for (const auto& [name, seeds] : p["points"].items()) {
      q["points"][name] = q["points"].value(name, uint64_t{0}) + seeds.get<uint64_t>();
    }
  }
}

std::optional<std::pair<std::string, std::string>> coverage_fault(const json& coverage) {
  auto count = [&](const json& v) {
    return v.is_number_integer() && (v.is_number_unsigned() || v.get<int64_t>() >= 0) &&
           v.get<uint64_t>() <= kMaxSummaryCount;
  };
  if (!coverage.is_object()) return std::make_pair(std::string(), std::string("expected an object of profiles"));
  for (const auto& [profile, p] : coverage.items()) {
    const std::string at = "/" + json_pointer_token(profile);
    if (!p.is_object()) return std::make_pair(at, std::string("expected {\"seeds\", \"points\"}"));
    if (!p.contains("seeds") || !count(p["seeds"])) return std::make_pair(at + "/seeds", std::string("expected an integer in [0, 2^50]"));
    if (!p.contains("points") || !p["points"].is_object()) return std::make_pair(at + "/points", std::string("expected an object"));
    for (const auto& [name, seeds] : p["points"].items()) {
      if (!reach_index(name)) return std::make_pair(at + "/points/" + json_pointer_token(name), std::string("not a reachability point of this qdt"));
      if (!count(seeds) || seeds.get<uint64_t>() > p["seeds"].get<uint64_t>()) {
        return std::make_pair(at + "/points/" + json_pointer_token(name), std::string("expected an integer in [0, seeds]"));
      }
    }
  }
  return std::nullopt;
}

json coverage_report(const json& coverage, const ReachContext& context) {
  json report = {{"profiles", json::object()}};
  std::vector<std::string> profiles;
  for (const auto& [profile, p] : coverage.items()) {
    profiles.push_back(profile);
    report["profiles"][profile] = p.value("seeds", uint64_t{0});
  }
  json by_point = json::array();
  json never = json::array();
  json impossible = json::array();
  uint64_t reached = 0;
  uint64_t possible = 0;
  for (const ReachPoint& point : reach_points()) {
    const std::string name(point.name);
    uint64_t seeds = 0;
    json by_profile = json::object();
    for (const std::string& profile : profiles) {
      const json& points = coverage.at(profile).at("points");
      const uint64_t n = points.value(name, uint64_t{0});
      by_profile[profile] = n;
      seeds += n;
    }
    json row = {{"name", name}, {"means", std::string(point.means)}, {"seeds", seeds}, {"by_profile", by_profile}};
    const std::optional<std::string_view> why = cannot_happen(point, context);
    if (why && seeds == 0) {
      impossible.push_back({{"name", name}, {"why", std::string(*why)}});
      row["cannot_happen"] = std::string(*why);
    } else {
      ++possible;
      if (seeds > 0) ++reached;
      else never.push_back(name);
    }
    by_point.push_back(std::move(row));
  }
  report["points"] = possible;
  report["reached"] = reached;
  report["never_reached"] = never;
  report["cannot_happen"] = impossible;
  report["by_point"] = by_point;
  return report;
}

void print_coverage(std::ostream& out, const json& report, bool table) {
  out << "  coverage: " << report["reached"].get<uint64_t>() << " of " << report["points"].get<uint64_t>()
      << " reachability points reached";
  if (report.contains("cannot_happen") && !report["cannot_happen"].empty()) {
    out << " (" << report["cannot_happen"].size() << " cannot happen here)";
  }
  if (!report["never_reached"].empty()) {
    out << "; never reached:";
    for (const json& name : report["never_reached"]) out << " " << name.get<std::string>();
  }
  out << "\n";
  if (!table) return;
  std::vector<std::string> profiles;
  for (const auto& [profile, seeds] : report["profiles"].items()) profiles.push_back(profile);
  out << "  " << std::left << std::setw(52) << "point" << std::right << std::setw(8) << "seeds";
  for (const std::string& p : profiles) out << "  " << p;
  out << "\n";
  for (const json& row : report["by_point"]) {
    out << "  " << std::left << std::setw(52) << row["name"].get<std::string>() << std::right << std::setw(8)
        << row["seeds"].get<uint64_t>();
    for (const std::string& p : profiles) {
      out << "  " << std::setw(static_cast<int>(p.size())) << row["by_profile"][p].get<uint64_t>();
    }
    if (row.contains("cannot_happen")) out << "  (cannot happen here: " << row["cannot_happen"].get<std::string>() << ")";
    out << "\n";
  }
  out << "  " << std::left << std::setw(52) << "(seeds run)" << std::right << std::setw(8) << "";
  for (const std::string& p : profiles) out << "  " << std::setw(static_cast<int>(p.size())) << report["profiles"][p].get<uint64_t>();
  out << "\n";
}

std::optional<std::vector<std::string>> parse_required_points(const std::string& text, std::string& error) {
  std::vector<std::string> names;
  std::set<std::string> seen;
  std::istringstream in(text);
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (const size_t hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    const size_t begin = line.find_first_not_of(" \t\r");
    if (begin == std::string::npos) continue;
    const size_t end = line.find_last_not_of(" \t\r");
    const std::string name = line.substr(begin, end - begin + 1);
    if (!reach_index(name)) {
      error = "line " + std::to_string(number) + ": " + name + " is not a reachability point (sim/scenario/reach_points.cpp)";
      return std::nullopt;
    }
    if (seen.insert(name).second) names.push_back(name);
  }
  return names;
}

std::vector<std::string> missing_points(const json& report, const std::vector<std::string>& required) {
  std::set<std::string> never;
  for (const json& name : report["never_reached"]) never.insert(name.get<std::string>());
  std::vector<std::string> out;
  for (const std::string& name : required) {
    if (never.contains(name)) out.push_back(name);
  }
  return out;
}

}  // namespace qdt::sim
