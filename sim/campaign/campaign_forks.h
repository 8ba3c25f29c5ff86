#pragma once
// Forking at rare states (qdt check --fork-rare SHARE [--forks N]): when a
// passing seed is the first of its campaign worker to reach a reachability point
// that fewer than SHARE of the worker's seeds so far have reached, the seed
// is re-run N times, forked at that point (world.schedule mode "fork",
// sim/schedule/fork_policy.h): the same picks up to the one after which it was first
// reached, then fresh ones, so what follows the rare state is explored N
// more times. Fork runs are judged like seeds; a failing fork is shrunk and
// written like a seed's failure (its file replays the fork). Seeds, their
// trace hashes and the campaign digest are untouched: forks are extra runs,
// reported apart (the summary's "forking").
//
// Which points count as rare depends on the seeds a worker has seen, so the
// forks taken (not the seeds' results) depend on --jobs. Forks are not
// journaled: a resumed campaign forks only among the seeds it runs.
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "impl/variant.h"
#include "sim/campaign/campaign.h"

namespace qdt::sim {

struct ForkOutcome {
  std::string point;  // the rare point the fork started from
  uint64_t fork = 0;  // 0..N-1
  SeedOutcome run;    // its scenario carries the fork schedule
};

class RareForker {
 public:
  RareForker(double rare_share, uint64_t forks, impl::Variant variant,
             StorageEngineKind engine = StorageEngineKind::sqlite)
      : rare_share_(rare_share), forks_(forks), variant_(variant), engine_(engine) {}
  bool enabled() const { return rare_share_ > 0 && forks_ > 0; }
  // After seed `o` of the worker ran: forks it at each point it made rare
  // and first, adds the counts to `forking` (the share's "forking" object)
  // and returns every fork run (the caller handles the failing ones).
  std::vector<ForkOutcome> after_seed(const SeedOutcome& o, nlohmann::json& forking);

 private:
  double rare_share_;
  uint64_t forks_;
  impl::Variant variant_;
  StorageEngineKind engine_;  // the seeds' engine: a fork runs where its seed ran
  uint64_t seeds_ = 0;
  std::map<std::string, uint64_t> seeds_reaching_;  // point -> this worker's seeds that reached it
  std::set<std::string> forked_;                    // points already forked at
};

// An empty share "forking" object, and the merge of several (summed).
nlohmann::json empty_forking();
void merge_forking(nlohmann::json& into, const nlohmann::json& part);
// The points fork runs reached that no seed reached (`coverage` as in
// sim/scenario/coverage.h), in name order.
std::vector<std::string> points_only_forks_reached(const nlohmann::json& forking, const nlohmann::json& coverage);

}  // namespace qdt::sim
