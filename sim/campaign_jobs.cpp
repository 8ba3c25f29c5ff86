#include "sim/campaign_jobs.h"

#include <algorithm>
#include <cassert>
#include <iostream>
#include <utility>

#include "sim/campaign.h"
#include "sim/campaign_merge.h"
#include "sim/exit_codes.h"
#include "sim/failure_file.h"
#include "sim/fork_pool.h"
#include "sim/workload.h"

namespace qdt::sim {

using json = nlohmann::json;

std::optional<Shard> parse_shard(const std::string& text) {
  if (text.empty()) return Shard{};
  const auto slash = text.find('/');
  Shard shard;
  try {
    shard.index = std::stoull(text.substr(0, slash));
    shard.count = std::stoull(text.substr(slash + 1));
  } catch (...) {
    return std::nullopt;
  }
  if (slash == std::string::npos || shard.count == 0 || shard.index >= shard.count) return std::nullopt;
  return shard;
}

json run_share(const CampaignOptions& a, impl::Variant variant, uint64_t worker, uint64_t workers,
               const WallClock& wall) {
  const std::optional<Shard> shard = parse_shard(a.shard);
  assert(shard && "run_campaign validates the shard");
  assert(worker < workers);
  const uint64_t shard_index = shard->index, shard_count = shard->count;
  std::vector<std::string> profiles;
  if (a.profile == "all") profiles = profile_names();
  else profiles.push_back(a.profile);

  const double start = wall();
  auto elapsed_s = [&] { return wall() - start; };
  const uint64_t total = a.seeds * profiles.size();
  uint64_t done = 0, failed = 0, pushes = 0, virtual_ms = 0, shrinks = 0;
  bool out_of_time = false;
  json failures = json::array();
  std::vector<std::string> seed_hashes;
  json totals = json::object();
  double last_progress = 0;
  for (const std::string& profile : profiles) {
    for (uint64_t i = 0; i < a.seeds && !out_of_time; ++i) {
      const uint64_t seed = a.first_seed + i;
      if (seed % shard_count != shard_index || (seed / shard_count) % workers != worker) continue;
      SeedOutcome o = check_seed(seed, profile, variant, a.interleave);
      ++done;
      seed_hashes.push_back(profile + " " + std::to_string(seed) + " " + o.result.value("trace_hash", std::string("-")));
      pushes += o.result["metrics"].value("storage_pushes", 0);
      add_metrics(totals, o.result["metrics"]);
      virtual_ms += o.result["metrics"].value("virtual_duration_ms", 0);
      if (!o.passed) {
        ++failed;
        json f = {{"profile", profile}, {"seed", seed}, {"property", o.signature},
                  {"detail", o.result["failures"][0].value("detail", std::string())}};
        if (shrinks < static_cast<uint64_t>(a.max_shrinks)) {
          ++shrinks;
          const FailureFile file = write_failure_file(o, profile, variant, a.out_dir);
          if (!file.written) f["file_error"] = file.path;
          f["file"] = file.path;
          f["steps"] = file.steps;
          f["shrink_runs"] = file.shrink_runs;
          f["replay"] = file.replay;
          if (!a.as_json) {
            std::cout << "FAIL " << profile << " seed " << seed << ": " << o.signature << " — "
                      << f["detail"].get<std::string>() << "\n  shrunk to " << f["steps"] << " steps in "
                      << file.shrink_runs << " replays: " << file.path << "\n  replay: " << file.replay << "\n";
          }
        }
        failures.push_back(std::move(f));
      }
      if (!a.quiet && worker == 0 && (elapsed_s() - last_progress > 1.0 || done * workers * shard_count >= total)) {
        last_progress = elapsed_s();
        // Worker 0 speaks for all: its share times the workers approximates the whole.
        const double rate = done * workers / std::max(elapsed_s(), 1e-9);
        std::cerr << "[" << done * workers << "/" << total / shard_count << "] failures " << failed << ", "
                  << static_cast<int64_t>(rate) << " seeds/s, ~"
                  << static_cast<int64_t>((static_cast<double>(total / shard_count) - done * workers) /
                                          std::max(rate, 1e-9))
                  << " s left\n";
      }
      if (a.time_budget_s > 0 && elapsed_s() > a.time_budget_s) out_of_time = true;
    }
  }
  return {{"seeds_run", done},
          {"failed", failed},
          {"pushes", pushes},
          {"virtual_ms", virtual_ms},
          {"out_of_time", out_of_time},
          {"failures", failures},
          {"seed_hashes", seed_hashes},
          {"metrics", totals}};
}

int run_campaign(const CampaignOptions& a, impl::Variant variant, uint64_t jobs, const WallClock& wall,
                 json* summary) {
  if (!parse_shard(a.shard)) {
    std::cerr << "error: --shard: expected I/N with 0 <= I < N, got " << a.shard << "\n";
    return kExitBadInput;
  }
  const double start = wall();
  std::vector<json> parts;
  if (jobs <= 1) {
    parts.push_back(run_share(a, variant, 0, 1, wall));
  } else {
    std::optional<std::vector<json>> workers =
        run_forked(jobs, jobs, [&](size_t j) { return run_share(a, variant, j, jobs, wall); });
    if (!workers) {
      std::cerr << "error: a campaign worker failed\n";
      return kExitBadInput;
    }
    parts = std::move(*workers);
  }
  const double wall_s = std::max(wall() - start, 1e-9);
  return report_campaign(parts, a, impl::variant_name(variant), jobs, wall_s, summary);
}

}  // namespace qdt::sim
