#pragma once
// The one command line that replays a scenario file as it was run. Every
// reproduction command qdt prints or writes (campaign failures, replay
// lines, pages, reports, explored schedules, the variant catalogue) comes
// from here, so each carries the run's variant, cache, storage, SQL and
// schedule flags and a path that pastes correctly (shell_word.h).
#include <string>

#include "impl/variant.h"
#include "sim/world/world_config.h"

namespace qdt::sim {

struct ReplayLine {
  std::string file;                                      // the scenario file, as the reader will paste it
  impl::Variant variant = impl::Variant::none;           // --variant, left out for none
  std::string cache;                                     // --cache on|off; "" keeps the scenario's
  StorageEngineKind engine = StorageEngineKind::sqlite;  // --storage and the SQL flags (pg_sql_choice.h)
  std::string schedule_flags;                            // schedule_flags_text(): each with a leading space
};

// "qdt replay 'my dir/x.json' --variant skip-probe --storage postgres".
std::string replay_command(const ReplayLine& line);

}  // namespace qdt::sim
