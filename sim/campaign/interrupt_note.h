#pragma once
// Ctrl-C during a campaign: the first SIGINT asks every worker to stop once
// the seed it is running is finished and journaled, so the campaign ends
// cleanly (exit 130) with the one command line that runs the rest (qdt check
// --resume DIR and the engine's flags); a second SIGINT ends it at once.
#include <cstdint>
#include <optional>
#include <string>

#include "sim/campaign/campaign_options.h"

namespace qdt::sim {

// "qdt check --resume DIR" with the flags that choose the engine and SQL
// again, shell-quoted; --pg-url is left to the user (it may hold a password).
std::string resume_command(const CampaignOptions& options);

// In the calling process, before the workers fork: the first SIGINT sets a
// stop request in memory this process shares with every worker it forks
// after (so a SIGINT sent to this process alone stops them too) and says so
// on stderr; the second goes on as the signal's previous handling would (the
// throwaway server's clean-up, or the default end). Nothing when SIGINT was
// ignored when qdt started (a script's background job keeps running).
void stop_on_interrupt();
// Puts back the handling stop_on_interrupt found.
void end_stop_on_interrupt();
// Whether a SIGINT asked the campaign to stop (in the caller or the worker's parent).
bool stop_requested();

// What a campaign stopped by Ctrl-C prints on stderr after `ran` seeds of
// this run (unknown when a worker was ended before it could say): with a
// journal, the resume command alone on the last line.
std::string interrupted_note(const CampaignOptions& options, std::optional<uint64_t> ran);

}  // namespace qdt::sim
