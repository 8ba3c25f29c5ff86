#pragma once
// The schedule one world run is under (world.schedule, or the schedule
// search's policy): builds the policy the scheduler consults, writes the
// trace line that records a non-random mode, and reports how it went.
// Random builds nothing and writes nothing, so random traces are unchanged.
#include <memory>
#include <nlohmann/json.hpp>

#include "sim/schedule/choice_policy.h"
#include "sim/schedule/fork_policy.h"
#include "sim/schedule/pct_policy.h"
#include "sim/base/rng.h"
#include "sim/schedule/schedule_config.h"
#include "sim/schedule/scheduler.h"
#include "sim/base/trace.h"

namespace qdt::sim {

class WorldSchedule {
 public:
  // `external` (the search's), when set, wins over `config`. PCT draws from
  // `rng`, the world's scheduler sub-seed, as random picks do.
  WorldSchedule(const ScheduleConfig& config, Rng& rng, SchedulePolicy* external);

  SchedulePolicy* policy() const { return policy_; }
  // At time `now_ms`, before any fiber runs. A search's run and the replay
  // of the choices it took write the same line, so a failing schedule
  // written out replays to the same hash.
  void record(Trace& trace, int64_t now_ms) const;
  // After the run: null for random.
  nlohmann::json report() const;

 private:
  const ScheduleConfig& config_;
  std::unique_ptr<PctPolicy> pct_;
  std::unique_ptr<ChoicePolicy> choices_;
  std::unique_ptr<ForkPolicy> fork_;
  SchedulePolicy* policy_ = nullptr;
  bool external_ = false;
};

}  // namespace qdt::sim
