#include "sim/campaign/seed_command.h"

#include <filesystem>

#include "sim/base/shell_word.h"
#include "sim/world/pg_sql_choice.h"

namespace qdt::sim {

std::string seed_command(const CampaignOptions& options, const std::string& variant, const std::string& profile,
                         uint64_t seed) {
  std::string out = "qdt check --profile " + shell_word(profile) + " --seed " + std::to_string(seed) + " --seeds 1";
  if (variant != "none") out += " --variant " + shell_word(variant);
  if (options.interleave) out += std::string(" --interleave ") + (*options.interleave ? "on" : "off");
  out += options.schedule_flags;
  out += storage_flags(options.engine);
  // A folder of its own below the campaign's: a run with --out starts a
  // fresh journal there, which must never be the campaign's.
  const std::filesystem::path own = std::filesystem::path(options.out_dir) / ("seed-" + profile + "-" + std::to_string(seed));
  out += " --out " + shell_word(own.string());
  return out;
}

}  // namespace qdt::sim
