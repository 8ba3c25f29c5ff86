#include "sim/cli/bench_campaigns.h"

#include <algorithm>
#include <cstdio>
#include <iostream>

#include "sim/bench/bench_machine.h"
#include "sim/cli/exit_codes.h"

namespace qdt::sim {

using json = nlohmann::json;

json campaign(Bench& b, const std::string& profile, uint64_t seeds, uint64_t jobs, bool unchecked,
              std::string& command, const std::vector<std::string>& extra) {
  std::vector<std::string> args = {"check", "--profile", profile, "--seeds", std::to_string(seeds),
                                   "--jobs", std::to_string(jobs), "--max-shrinks", "0", "--quiet", "--json"};
  if (unchecked) args.push_back("--unchecked");
  args.insert(args.end(), extra.begin(), extra.end());
  command = join_command(b.options.program, args);
  b.progress(command);
  const ChildRun run = run_self(args);
  if (run.peak_kb > b.child_peak_kb && jobs == 1) {
    b.child_peak_kb = run.peak_kb;
    b.child_peak_command = command;
  }
  json summary = json::parse(run.out, nullptr, false);
  if (run.exit_code != kExitOk || summary.is_discarded() || !summary.contains("seeds_per_s")) {
    std::cerr << "[bench] " << command << " exited " << run.exit_code << ": its figures are void\n";
    b.void_run = true;
    return json::object({{"seeds_per_s", 0.0}, {"virtual_s_per_wall_s", 0.0}, {"cpu_s", 0.0}});
  }
  summary["cpu_s"] = run.cpu_s;  // the bench's own reading, not a qdt check field
  return summary;
}

Alternated alternate(int turns, const std::function<json()>& run_a, const std::function<json()>& run_b) {
  Alternated out;
  auto add = [](std::string& list, const char* format, double v) {
    char text[32];
    std::snprintf(text, sizeof text, format, v);
    list += (list.empty() ? "" : ", ") + std::string(text);
  };
  auto take = [&](json& best, std::string& runs, const json& run) {
    const double rate = run["seeds_per_s"].get<double>();
    add(runs, "%.1f", rate);
    if (best.is_null() || rate > best["seeds_per_s"].get<double>()) best = run;
  };
  for (int turn = 0; turn < turns; ++turn) {
    json a, b;
    if (turn % 2 == 0) {
      a = run_a();
      b = run_b();
    } else {
      b = run_b();
      a = run_a();
    }
    take(out.a, out.a_runs, a);
    take(out.b, out.b_runs, b);
    add(out.turn_ratios, "%.2f", b["seeds_per_s"].get<double>() / std::max(a["seeds_per_s"].get<double>(), 1e-9));
  }
  return out;
}

}  // namespace qdt::sim
