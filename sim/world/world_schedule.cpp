#include "sim/world/world_schedule.h"

#include <algorithm>

namespace qdt::sim {

WorldSchedule::WorldSchedule(const ScheduleConfig& config, Rng& rng, SchedulePolicy* external)
    : config_(config), policy_(external), external_(external != nullptr) {
  if (external_) return;
  if (config.mode == ScheduleMode::pct) {
    // The runner learns k when the scenario gives none (sim/scenario/runner.cpp).
    pct_ = std::make_unique<PctPolicy>(rng, config.pct_depth, std::max<uint64_t>(config.pct_steps, 1));
    policy_ = pct_.get();
  } else if (config.mode == ScheduleMode::choices) {
    choices_ = std::make_unique<ChoicePolicy>(config.choices);
    policy_ = choices_.get();
  } else if (config.mode == ScheduleMode::fork) {
    fork_ = std::make_unique<ForkPolicy>(rng, config.fork_after_picks, config.fork_seed);
    policy_ = fork_.get();
  }
}

void WorldSchedule::record(Trace& trace, int64_t now_ms) const {
  if (pct_) {
    trace.begin(now_ms, "schedule").field("mode", "pct").field("depth", config_.pct_depth)
        .field("steps", static_cast<int64_t>(config_.pct_steps)).end();
  } else if (fork_) {
    trace.begin(now_ms, "schedule").field("mode", "fork").field("after", static_cast<int64_t>(config_.fork_after_picks))
        .field("seed", std::to_string(config_.fork_seed)).end();
  } else if (choices_ || external_) {
    trace.begin(now_ms, "schedule").field("mode", "choices").end();
  }
}

nlohmann::json WorldSchedule::report() const {
  if (pct_) {
    return {{"mode", "pct"}, {"depth", config_.pct_depth}, {"steps", config_.pct_steps},
            {"steps_taken", pct_->steps_taken()}, {"fibers", pct_->fibers_seen()},
            {"change_points_hit", pct_->change_points_hit()}, {"bound", pct_->bound()}};
  }
  if (choices_) {
    nlohmann::json r = {{"mode", "choices"}, {"listed", config_.choices.size()},
                        {"choice_points", choices_->choice_points()}};
    if (!choices_->error().empty()) r["error"] = choices_->error();
    return r;
  }
  if (fork_) {
    return {{"mode", "fork"}, {"fork_after_picks", config_.fork_after_picks}, {"fork_seed", config_.fork_seed},
            {"picks", fork_->picks()}};
  }
  return nullptr;
}

}  // namespace qdt::sim
