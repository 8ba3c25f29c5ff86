#pragma once
// qdt mutants: the campaign against every design variant of the catalogue
// (sim/study/mutants.h), its options, and --report BASE, the catalogue
// written as BASE.json, BASE.md and BASE.html once it is complete. Lives in
// the qdt executable, beside main.cpp.
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "sim/study/mutants.h"

namespace qdt::sim {

struct MutantsCommand {
  MutantsOptions options;  // main sets the storage engine and --pg-url, shared with other commands
  std::string report;      // --report BASE; "" writes no report
};

// Registers `mutants` on `app`, its --profile one of `profile_choices`;
// fills `command` when parsed.
CLI::App* add_mutants(CLI::App& app, MutantsCommand& command, const std::vector<std::string>& profile_choices);

// Runs the catalogue; the report records `command_line` and the commit in
// QDT_COMMIT, and draws its charts with QDT_GNUPLOT (default gnuplot).
// Exit code as exit_codes.h; 2 when the report cannot be written.
int run_mutants_command(MutantsCommand& command, const std::string& command_line, const WallClock& wall);

}  // namespace qdt::sim
