#pragma once
// What a person needs when a journaled campaign stops early: the one command
// line that runs the rest (qdt check --resume DIR and the engine's flags),
// printed when a seed fails the engine and on Ctrl-C.
#include <string>

#include "sim/campaign/campaign_options.h"

namespace qdt::sim {

// "qdt check --resume DIR" with the flags that choose the engine and SQL
// again, shell-quoted; --pg-url is left to the user (it may hold a password).
std::string resume_command(const CampaignOptions& options);

// In the calling process (not its forked workers), a SIGINT writes, on
// standard error, that the finished seeds are journaled and the resume
// command, then goes on as the signal's previous handling would (the
// throwaway server's clean-up, or the default end). Nothing when the
// campaign has no journal, or SIGINT was ignored when qdt started.
void print_resume_on_interrupt(const CampaignOptions& options);

}  // namespace qdt::sim
