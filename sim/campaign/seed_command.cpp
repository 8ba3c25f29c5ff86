#include "sim/campaign/seed_command.h"

#include <filesystem>

#include "sim/base/shell_word.h"
#include "sim/world/pg_sql_choice.h"

namespace qdt::sim {

namespace {

// The flags every command a campaign prints shares with the campaign.
std::string campaign_flags(const CampaignOptions& options, const std::string& variant) {
  std::string out;
  if (variant != "none") out += " --variant " + shell_word(variant);
  if (options.interleave) out += std::string(" --interleave ") + (*options.interleave ? "on" : "off");
  out += options.schedule_flags;
  out += storage_flags(options.engine);
  return out;
}

// A folder of its own below the campaign's: a run with --out starts a fresh
// journal there, which must never be the campaign's.
std::string own_out(const CampaignOptions& options, const std::string& folder) {
  return " --out " + shell_word((std::filesystem::path(options.out_dir) / folder).string());
}

}  // namespace

std::string seed_command(const CampaignOptions& options, const std::string& variant, const std::string& profile,
                         uint64_t seed) {
  return "qdt check --profile " + shell_word(profile) + " --seed " + std::to_string(seed) + " --seeds 1" +
         campaign_flags(options, variant) + own_out(options, "seed-" + profile + "-" + std::to_string(seed));
}

std::string profile_command(const CampaignOptions& options, const std::string& variant, const std::string& profile,
                            uint64_t seeds) {
  return "qdt check --profile " + shell_word(profile) + " --seeds " + std::to_string(seeds) +
         campaign_flags(options, variant) + own_out(options, "profile-" + profile);
}

}  // namespace qdt::sim
