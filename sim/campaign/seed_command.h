#pragma once
// The command that runs one seed of a campaign again, with every flag that
// defines the campaign (variant, interleaving, schedule, storage and SQL),
// so a failure nobody shrank is one paste away from its shrunk file.
#include <cstdint>
#include <string>

#include "sim/campaign/campaign_options.h"

namespace qdt::sim {

// "qdt check --profile swarm --seed 214 --seeds 1 --variant no-row-lock
// --storage postgres --out reports/out/failures/seed-swarm-214": the shrunk
// file lands in a folder beside the campaign's journal, never over it;
// `variant` as the summary names it ("none" is left out).
std::string seed_command(const CampaignOptions& options, const std::string& variant, const std::string& profile,
                         uint64_t seed);

// "qdt check --profile reconfigure --seeds 50 --variant stale-window --out
// reports/out/profile-reconfigure": the campaign again on another profile,
// its journal in a folder of its own.
std::string profile_command(const CampaignOptions& options, const std::string& variant, const std::string& profile,
                            uint64_t seeds);

}  // namespace qdt::sim
