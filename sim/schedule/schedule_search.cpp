#include "sim/schedule/schedule_search.h"

#include <algorithm>
#include <cassert>
#include <stdexcept>

#include "sim/schedule/schedule_races.h"

namespace qdt::sim {
namespace {

using Sleeper = ChoicePolicy::Sleeper;

// One point of the current path.
struct Node {
  std::vector<uint64_t> ready;
  std::vector<Sleeper> sleep;  // on arrival
  std::vector<Sleeper> done;   // choices whose subtree is explored, with their step's footprint
  uint64_t chosen = 0;
  Footprint chosen_footprint;
  // With the reduction, the fibers to explore here (Source-DPOR's backtrack
  // set: the first choice, then what race analysis adds); done and chosen
  // are in it. Without, every ready fiber is.
  std::vector<uint64_t> backtrack;
};

bool has(const std::vector<uint64_t>& set, uint64_t fiber) { return std::find(set.begin(), set.end(), fiber) != set.end(); }

bool contains(const std::vector<Sleeper>& set, uint64_t fiber) {
  return std::any_of(set.begin(), set.end(), [&](const Sleeper& s) { return s.fiber == fiber; });
}

std::string choices_text(const std::vector<uint64_t>& choices) {
  std::string out;
  for (size_t i = 0; i < choices.size() && i < 32; ++i) out += (i ? "," : "") + std::to_string(choices[i]);
  return out + (choices.size() > 32 ? ",..." : "");
}

// Moves the path to its next unexplored branch; false when the tree is done.
bool backtrack(std::vector<Node>& path, bool reduce, uint64_t& pruned) {
  while (!path.empty()) {
    Node& n = path.back();
    n.done.push_back({n.chosen, n.chosen_footprint});
    for (uint64_t f : n.ready) {  // ascending: the lowest untried goes next
      if (contains(n.done, f) || (reduce && (contains(n.sleep, f) || !has(n.backtrack, f)))) continue;
      n.chosen = f;
      return true;
    }
    if (reduce) {
      for (uint64_t f : n.ready) pruned += contains(n.done, f) ? 0 : 1;
    }
    path.pop_back();
  }
  return false;
}

}  // namespace

TreeEstimate estimate_schedules(const ScheduleRun& run, uint64_t probes, uint64_t seed) {
  TreeEstimate e;
  Rng rng(seed);
  double sum = 0;
  for (uint64_t i = 0; i < probes; ++i) {
    ChoicePolicy policy({});
    policy.extend_randomly(&rng);
    run(policy);
    double product = 1;
    for (const auto& p : policy.points()) product *= static_cast<double>(p.ready.size());
    sum += product;
    e.schedules_min = i == 0 ? product : std::min(e.schedules_min, product);
    e.schedules_max = std::max(e.schedules_max, product);
    e.choice_points_max = std::max<uint64_t>(e.choice_points_max, policy.points().size());
    ++e.probes;
  }
  e.schedules = probes ? sum / static_cast<double>(probes) : 0;
  return e;
}

ScheduleSearchReport search_schedules(const ScheduleRun& run, const ScheduleSearchOptions& options,
                                      const std::function<void(const ScheduleSearchReport&)>& progress) {
  assert(options.max_schedules >= 1);
  ScheduleSearchReport report;
  std::vector<Node> path;
  for (;;) {
    if (report.runs >= options.max_schedules) break;  // the bound is hit
    std::vector<uint64_t> prefix;
    std::vector<Sleeper> branch_sleep;
    for (const Node& n : path) prefix.push_back(n.chosen);
    if (options.reduce && !path.empty()) {
      branch_sleep = path.back().sleep;
      branch_sleep.insert(branch_sleep.end(), path.back().done.begin(), path.back().done.end());
    }
    ChoicePolicy policy(prefix, branch_sleep);
    const ScheduleVerdict verdict = run(policy);
    ++report.runs;

    const auto& points = policy.points();
    if (!policy.error().empty() || points.size() < prefix.size()) {
      throw std::logic_error("schedule search: run " + std::to_string(report.runs) + " did not replay its prefix " +
                             choices_text(prefix) + ": " +
                             (policy.error().empty() ? "fewer choice points than recorded" : policy.error()));
    }
    for (size_t j = 0; j < prefix.size(); ++j) {
      if (points[j].ready != path[j].ready) {
        throw std::logic_error("schedule search: run " + std::to_string(report.runs) + " met other ready fibers at choice " +
                               std::to_string(j) + " than the run that recorded it: the system is not deterministic");
      }
    }
    if (!path.empty()) path.back().chosen_footprint = points[prefix.size() - 1].chosen_footprint;
    for (size_t j = prefix.size(); j < points.size(); ++j) {
      const auto& p = points[j];
      path.push_back({p.ready, options.reduce ? p.sleep : std::vector<Sleeper>{}, {}, p.chosen, p.chosen_footprint,
                      {p.chosen}});
    }
    if (options.reduce) {
      // Steps before the branch's were analysed by the run that first took them.
      size_t from = 0;
      if (!prefix.empty()) {
        const auto& steps = policy.steps();
        while (from < steps.size() && steps[from].point != prefix.size() - 1) ++from;
        if (from == steps.size()) from = 0;
      }
      for (const Reversal& r : find_reversals(policy.steps(), from)) {
        Node& n = path[r.point];
        if (std::any_of(r.initials.begin(), r.initials.end(), [&](uint64_t f) { return has(n.backtrack, f); })) continue;
        // One initial suffices (Source-DPOR); prefer one that is awake there.
        uint64_t pick = 0;
        bool found = false;
        for (uint64_t f : r.initials) {
          if (!has(n.ready, f)) continue;
          if (!found) pick = f;
          found = true;
          if (!contains(n.sleep, f)) {
            pick = f;
            break;
          }
        }
        if (!found) {
          // No initial is ready there: cannot happen if readying is
          // recorded faithfully; explore every ready fiber, to stay sound.
          ++report.analysis_fallbacks;
          for (uint64_t f : n.ready) {
            if (!has(n.backtrack, f)) n.backtrack.push_back(f);
          }
          continue;
        }
        n.backtrack.push_back(pick);
      }
    }

    if (report.runs == 1) report.first_path = points;
    if (policy.blocked()) ++report.redundant_runs;
    else ++report.schedules;
    report.choice_points_max = std::max(report.choice_points_max, policy.choice_points());
    report.depth_max = std::max<uint64_t>(report.depth_max, path.size());
    report.trace_hashes.insert(verdict.trace_hash);
    report.outcomes[verdict.outcome]++;
    if (!verdict.passed) {
      ++report.failed_runs;
      if (report.failures.size() < options.failures_kept) {
        report.failures.push_back({report.runs, policy.taken(), verdict});
      }
    }

    const bool more = backtrack(path, options.reduce, report.pruned);
    if (progress) progress(report);
    if (!more) {
      report.exhausted = true;
      break;
    }
  }
  return report;
}

}  // namespace qdt::sim
