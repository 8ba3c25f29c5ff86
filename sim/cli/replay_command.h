#pragma once
// qdt replay PATHS (docs/semantics.md §4): loads every scenario file (and every *.json
// below named folders, sorted) before running any, then runs each
// deterministically and prints PASS/FAIL lines, or --json an array of result objects;
// --trace, --html (one scenario), --report (Markdown). Exit codes as
// exit_codes.h: 2 and nothing run for bad input. Lives in the qdt executable,
// beside main.cpp.
#include <optional>
#include <string>
#include <vector>

#include "impl/variant.h"
#include "sim/cli/html_command.h"
#include "sim/schedule/schedule_config.h"
#include "sim/world/world_config.h"

namespace qdt::sim {

struct ReplayOptions {
  std::vector<std::string> paths;
  bool as_json = false;
  bool quiet = false;
  std::string trace_file;   // --trace FILE ("" none)
  std::string cache;        // --cache on|off ("" keeps the scenario's)
  std::string report_file;  // --report FILE ("" none)
  impl::Variant variant = impl::Variant::none;
  HtmlOutput html;
  std::optional<ScheduleConfig> schedule;  // --schedule flags, overriding world.schedule
  std::string schedule_flags;              // the same as command-line text, for replay lines
  StorageEngineKind engine = StorageEngineKind::sqlite;  // --storage
  std::string pg_url;                                     // --pg-url ("" a throwaway local cluster)
};

int run_replay(const ReplayOptions& options);

}  // namespace qdt::sim
