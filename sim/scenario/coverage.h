#pragma once
// Coverage of the reachability points (impl/reached.h, sim/scenario/reach_points.h):
// the points one run reached; how many seeds of each profile reached each
// point over a campaign; and the checked-in list of points a campaign must
// reach (sim/scenario/coverage_required.txt, qdt check --require-coverage).
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "impl/reached.h"

#include "sim/scenario/reach_points.h"

namespace qdt::sim {

// The largest count a campaign summary may carry: summing a thousand
// shards' counts cannot overflow.
inline constexpr uint64_t kMaxSummaryCount = uint64_t{1} << 50;

// Installed for the lifetime of one run (restores the previous observer).
// A name outside the catalogue is a bug in the code that marks it: abort.
class RunReach : public impl::ReachObserver {
 public:
  RunReach();
  ~RunReach() override;
  RunReach(const RunReach&) = delete;
  RunReach& operator=(const RunReach&) = delete;
  void reached(std::string_view point) noexcept override;
  // The names reached, in catalogue order.
  std::vector<std::string> names() const;
  // Marks from now on come from reading the history, not from the run: they
  // have no scheduler pick to fork at.
  void run_ended() { run_ended_ = true; }
  // Each point the run itself reached -> the scheduler picks made before it
  // was first reached (a fork at that many picks reaches it again).
  std::vector<std::pair<std::string, uint64_t>> first_picks() const;

 private:
  std::vector<bool> hit_;
  std::vector<int64_t> first_pick_;  // -1: not reached during the run
  uint64_t picks_base_ = 0;
  bool run_ended_ = false;
  std::unordered_map<const void*, size_t> by_address_;  // marks pass literals: look each up once
  impl::ReachObserver* previous_ = nullptr;
};

// A campaign's coverage as summaries carry it (merged by adding):
//   {"PROFILE": {"seeds": N, "points": {"NAME": seeds that reached it}}}
void add_run_coverage(nlohmann::json& coverage, const std::string& profile, const nlohmann::json& reached);
void merge_coverage(nlohmann::json& into, const nlohmann::json& part);
// The first fault of a summary's coverage, as (JSON path below it, reason).
std::optional<std::pair<std::string, std::string>> coverage_fault(const nlohmann::json& coverage);

// Every catalogue point with its seeds, overall and per profile:
//   {"points": N, "reached": n, "never_reached": [names],
//    "cannot_happen": [{"name", "why"}],
//    "profiles": {"PROFILE": seeds}, "by_point": [{"name", "means", "seeds", "by_profile": {…}}]}
// Points that cannot happen in `context` count in neither `points` nor
// `never_reached`; their rows carry "cannot_happen": why.
nlohmann::json coverage_report(const nlohmann::json& coverage, const ReachContext& context = {});
// One line (points reached, names never reached); with `table`, a row per point.
void print_coverage(std::ostream& out, const nlohmann::json& report, bool table);

// A required-points list: one name per line, '#' starts a comment. Every
// name must be in the catalogue; nullopt with `error` ("line N: …") otherwise.
std::optional<std::vector<std::string>> parse_required_points(const std::string& text, std::string& error);
// The required names the report's campaign never reached.
std::vector<std::string> missing_points(const nlohmann::json& report, const std::vector<std::string>& required);
// sim/scenario/coverage_required.txt as it was when qdt was built.
const std::string& required_points_text();

}  // namespace qdt::sim
