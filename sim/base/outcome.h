#pragma once
// What a campaign, a merge, a study or a sweep concluded. Libraries return
// it; only the command line (sim/cli/) ends the process. The values are the
// exit statuses the command line gives them, so a document that reports one
// agrees with the process that wrote it.
namespace qdt::sim {

enum class Outcome : int {
  held = 0,       // everything held
  failed = 1,     // a property or an expectation failed
  bad_input = 2,  // bad input or usage: nothing was run
  interrupted = 130,  // stopped by Ctrl-C (128 + SIGINT, as a shell reports it); what finished is journaled
};

constexpr int status_number(Outcome outcome) { return static_cast<int>(outcome); }

}  // namespace qdt::sim
