// qdt: the command line (SPEC 4). Exit codes: 0 everything held, 1 a property
// or expectation failed, 2 bad input or usage. The only wall-clock reading in
// qdt is here, to report wall time outside the trace.
#include <CLI/CLI.hpp>
#include <sys/wait.h>
#include <unistd.h>
#include <xxhash.h>

#include <cassert>
#include <cstdio>
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "reports/summary.h"
#include "sim/runner.h"
#include "sim/campaign.h"
#include "sim/scenario.h"
#include "sim/workload.h"

namespace fs = std::filesystem;
using qdt::sim::LoadError;
using qdt::sim::Scenario;

namespace {

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitBadInput = 2;

// Files named on the command line, and every *.json below named folders
// (except JSON Schema folders), sorted so the order never depends on the
// file system.
bool collect(const std::vector<std::string>& args, std::vector<std::string>& files, std::vector<LoadError>& errors) {
  for (const std::string& arg : args) {
    std::error_code ec;
    if (fs::is_directory(arg, ec)) {
      std::vector<std::string> found;
      for (auto it = fs::recursive_directory_iterator(arg, ec); !ec && it != fs::recursive_directory_iterator();
           it.increment(ec)) {
        if (it->is_directory() && it->path().filename() == "schema") {
          it.disable_recursion_pending();
          continue;
        }
        if (it->is_regular_file() && it->path().extension() == ".json") found.push_back(it->path().string());
      }
      std::sort(found.begin(), found.end());
      if (found.empty()) errors.push_back({arg, "/", "no scenario files (*.json) in this folder"});
      files.insert(files.end(), found.begin(), found.end());
    } else if (fs::is_regular_file(arg, ec)) {
      files.push_back(arg);
    } else {
      errors.push_back({arg, "/", "no such file or folder"});
    }
  }
  return errors.empty();
}

bool write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  return static_cast<bool>(out);
}

int replay(const std::vector<std::string>& args, bool as_json, const std::string& trace_file,
           const std::string& cache, const std::string& report_file, bool quiet, qdt::impl::Variant variant) {
  std::vector<std::string> files;
  std::vector<LoadError> errors;
  collect(args, files, errors);
  // Load and validate everything before running anything.
  std::vector<Scenario> scenarios;
  for (const std::string& file : files) {
    auto loaded = qdt::sim::load_scenario_file(file);
    if (loaded.scenario) scenarios.push_back(std::move(*loaded.scenario));
    errors.insert(errors.end(), loaded.errors.begin(), loaded.errors.end());
  }
  if (!trace_file.empty() && scenarios.size() + errors.size() != 1) {
    errors.push_back({trace_file, "/", "--trace takes exactly one scenario"});
  }
  if (!errors.empty()) {
    for (const LoadError& e : errors) std::cerr << "error: " << e.to_string() << "\n";
    std::cerr << "nothing was run (exit 2)\n";
    return kExitBadInput;
  }

  qdt::sim::RunOptions options;
  if (cache == "on") options.cache_enabled = true;
  if (cache == "off") options.cache_enabled = false;
  options.keep_trace_text = !trace_file.empty();
  options.variant = variant;

  std::vector<nlohmann::json> results;
  bool all_passed = true;
  const auto wall_start = std::chrono::steady_clock::now();
  for (size_t i = 0; i < scenarios.size(); ++i) {
    const Scenario& s = scenarios[i];
    if (!quiet && scenarios.size() > 1) std::cerr << "[" << i + 1 << "/" << scenarios.size() << "] " << s.name << "\n";
    const auto start = std::chrono::steady_clock::now();
    qdt::sim::RunOutcome outcome = qdt::sim::run_scenario(s, options);
    const auto wall_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    outcome.result["wall_ms"] = wall_ms;  // outside the trace: never hashed
    all_passed = all_passed && outcome.passed;
    if (!trace_file.empty() && !write_file(trace_file, outcome.trace_text)) {
      std::cerr << "error: " << trace_file << ": cannot write the trace\n";
      return kExitBadInput;
    }
    if (!as_json) {
      std::cout << (outcome.passed ? "PASS " : "FAIL ") << s.name << "  trace " << outcome.result["trace_hash"].get<std::string>()
                << "\n";
      for (const auto& f : outcome.result["failures"]) {
        std::cout << "  " << (f["property"].is_string() ? f["property"].get<std::string>() : "expectation")
                  << " at step " << f["step"].get<std::string>() << ": " << f["detail"].get<std::string>() << "\n";
      }
      if (!outcome.passed) {
        std::cout << "  replay: qdt replay " << s.file
                  << (variant == qdt::impl::Variant::none ? "" : " --variant " + qdt::impl::variant_name(variant))
                  << "\n";
      }
    }
    results.push_back(std::move(outcome.result));
  }
  const double total_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  if (as_json) {
    std::cout << (results.size() == 1 ? results[0] : nlohmann::json(results)).dump(2) << "\n";
  } else if (results.size() > 1) {
    std::cout << "\n" << qdt::reports::summary_table(results);
  }
  if (!quiet) std::cerr << results.size() << " scenarios in " << total_s << " s wall\n";
  if (!report_file.empty()) {
    std::error_code ec;
    if (fs::path(report_file).has_parent_path()) fs::create_directories(fs::path(report_file).parent_path(), ec);
    if (!write_file(report_file, qdt::reports::summary_markdown("qdt replay", results))) {
      std::cerr << "error: " << report_file << ": cannot write the report\n";
      return kExitBadInput;
    }
  }
  return all_passed ? kExitOk : kExitFailed;
}

struct CheckArgs {
  uint64_t seeds = 100;
  uint64_t first_seed = 1;
  std::string profile = "default";
  std::string out_dir = "qdt-failures";
  std::string shard;  // "I/N"
  double time_budget_s = 0;
  bool as_json = false;
  bool quiet = false;
  int max_shrinks = 3;
};

// Sums the integer metrics of SPEC 4 (and the cache's) over seeds.
void add_metrics(nlohmann::json& totals, const nlohmann::json& metrics) {
  static const char* kSummed[] = {"requests", "items", "queued", "duplicates", "zero_id_duplicates", "errors",
                                  "timeouts", "retries", "storage_pushes", "probes_run", "probes_skipped",
                                  "sidecar_rows_scanned", "fused_segments"};
  for (const char* key : kSummed) totals[key] = totals.value(key, int64_t{0}) + metrics.value(key, int64_t{0});
  static const char* kCache[] = {"answers", "vouched", "hits", "hydrations_full", "hydrations_span",
                                 "evictions", "suppressed_partitions", "rebuilds"};
  for (const char* key : kCache) {
    const int64_t v = metrics.contains("cache") ? metrics["cache"].value(key, int64_t{0}) : 0;
    totals["cache_" + std::string(key)] = totals.value("cache_" + std::string(key), int64_t{0}) + v;
  }
}

// One worker's share of a campaign: seeds of this shard whose
// (seed / shard_count) % workers == worker. Returns its summary, raw counters
// included, for the caller to merge.
nlohmann::json run_check(const CheckArgs& a, qdt::impl::Variant variant, uint64_t worker, uint64_t workers) {
  uint64_t shard_index = 0, shard_count = 1;
  if (!a.shard.empty()) {
    const auto slash = a.shard.find('/');
    try {
      shard_index = std::stoull(a.shard.substr(0, slash));
      shard_count = std::stoull(a.shard.substr(slash + 1));
    } catch (...) {
      shard_count = 0;
    }
    assert(slash != std::string::npos && shard_count > 0 && shard_index < shard_count);
  }
  std::vector<std::string> profiles;
  if (a.profile == "all") profiles = qdt::sim::profile_names();
  else profiles.push_back(a.profile);

  const auto start = std::chrono::steady_clock::now();
  auto elapsed_s = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  const uint64_t total = a.seeds * profiles.size();
  uint64_t done = 0, failed = 0, pushes = 0, virtual_ms = 0, shrinks = 0;
  bool out_of_time = false;
  nlohmann::json failures = nlohmann::json::array();
  std::vector<std::string> seed_hashes;
  nlohmann::json totals = nlohmann::json::object();
  double last_progress = 0;
  for (const std::string& profile : profiles) {
    for (uint64_t i = 0; i < a.seeds && !out_of_time; ++i) {
      const uint64_t seed = a.first_seed + i;
      if (seed % shard_count != shard_index || (seed / shard_count) % workers != worker) continue;
      qdt::sim::SeedOutcome o = qdt::sim::check_seed(seed, profile, variant);
      ++done;
      seed_hashes.push_back(profile + " " + std::to_string(seed) + " " + o.result.value("trace_hash", std::string("-")));
      pushes += o.result["metrics"].value("storage_pushes", 0);
      add_metrics(totals, o.result["metrics"]);
      virtual_ms += o.result["metrics"].value("virtual_duration_ms", 0);
      if (!o.passed) {
        ++failed;
        nlohmann::json f = {{"profile", profile}, {"seed", seed}, {"property", o.signature},
                            {"detail", o.result["failures"][0].value("detail", std::string())}};
        if (shrinks < static_cast<uint64_t>(a.max_shrinks)) {
          ++shrinks;
          qdt::sim::Shrunk shrunk = qdt::sim::shrink(o.scenario, variant, o.signature);
          nlohmann::json doc = qdt::sim::with_reference_expectations(shrunk.scenario);
          doc["name"] = profile + "-" + std::to_string(seed) + "-" + o.signature;
          doc["description"] = "Shrunk from qdt check --profile " + profile + " --seed " + std::to_string(seed) +
                               (variant == qdt::impl::Variant::none ? "" : " --variant " + qdt::impl::variant_name(variant)) +
                               ": fails " + o.signature + ". expect states what the reference implementation answers.";
          std::error_code ec;
          fs::create_directories(a.out_dir, ec);
          const std::string path = (fs::path(a.out_dir) / (doc["name"].get<std::string>() + ".json")).string();
          if (!write_file(path, doc.dump(2) + "\n")) {
            std::cerr << "error: cannot write " << path << "\n";
            f["file_error"] = path;
          }
          const std::string command = "qdt replay " + path +
                                      (variant == qdt::impl::Variant::none ? "" : " --variant " + qdt::impl::variant_name(variant));
          f["file"] = path;
          f["steps"] = qdt::sim::count_steps(doc);
          f["shrink_runs"] = shrunk.runs;
          f["replay"] = command;
          if (!a.as_json) {
            std::cout << "FAIL " << profile << " seed " << seed << ": " << o.signature << " — "
                      << f["detail"].get<std::string>() << "\n  shrunk to " << f["steps"] << " steps in "
                      << shrunk.runs << " replays: " << path << "\n  replay: " << command << "\n";
          }
        }
        failures.push_back(std::move(f));
      }
      if (!a.quiet && worker == 0 && (elapsed_s() - last_progress > 1.0 || done * workers * shard_count >= total)) {
        last_progress = elapsed_s();
        // Worker 0 speaks for all: its share times the workers approximates the whole.
        const double rate = done * workers / std::max(elapsed_s(), 1e-9);
        std::cerr << "[" << done * workers << "/" << total / shard_count << "] failures " << failed << ", " << static_cast<int64_t>(rate)
                  << " seeds/s, ~" << static_cast<int64_t>((static_cast<double>(total / shard_count) - done * workers) / std::max(rate, 1e-9))
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

// Merges worker or shard summaries (their raw counters and per-seed trace
// hashes) and prints the campaign summary. Exit code as SPEC 4.
int report_campaign(const std::vector<nlohmann::json>& parts, const CheckArgs& a, const std::string& variant_text,
                    uint64_t jobs, double wall) {
  uint64_t done = 0, failed = 0, pushes = 0, virtual_ms = 0;
  bool out_of_time = false;
  nlohmann::json failures = nlohmann::json::array();
  std::vector<std::string> hashes;
  nlohmann::json totals = nlohmann::json::object();
  for (const auto& p : parts) {
    done += p["seeds_run"].get<uint64_t>();
    failed += p["failed"].get<uint64_t>();
    pushes += p["pushes"].get<uint64_t>();
    virtual_ms += p["virtual_ms"].get<uint64_t>();
    out_of_time = out_of_time || p["out_of_time"].get<bool>();
    for (const auto& f : p["failures"]) failures.push_back(f);
    for (const auto& h : p["seed_hashes"]) hashes.push_back(h);
    if (p.contains("metrics")) {
      for (const auto& [key, value] : p["metrics"].items()) totals[key] = totals.value(key, int64_t{0}) + value.get<int64_t>();
    }
  }
  std::sort(hashes.begin(), hashes.end());
  std::sort(failures.begin(), failures.end(), [](const nlohmann::json& x, const nlohmann::json& y) {
    return std::make_pair(x["profile"].get<std::string>(), x["seed"].get<uint64_t>()) <
           std::make_pair(y["profile"].get<std::string>(), y["seed"].get<uint64_t>());
  });
  std::string joined;
  for (const auto& h : hashes) joined += h + "\n";
  const XXH128_hash_t digest = XXH3_128bits(joined.data(), joined.size());
  char digest_hex[33];
  std::snprintf(digest_hex, sizeof digest_hex, "%016llx%016llx", static_cast<unsigned long long>(digest.high64),
                static_cast<unsigned long long>(digest.low64));

  nlohmann::json summary = {{"profile", a.profile},
                            {"variant", variant_text},
                            {"first_seed", a.first_seed},
                            {"seeds_run", done},
                            {"passed", done - failed},
                            {"failed", failed},
                            {"shard", a.shard.empty() ? "0/1" : a.shard},
                            {"jobs", jobs},
                            {"out_of_time", out_of_time},
                            {"campaign_digest", digest_hex},
                            {"wall_s", wall},
                            {"seeds_per_s", done / wall},
                            {"simulated_pushes_per_s", pushes / wall},
                            {"virtual_s_per_wall_s", virtual_ms / 1000.0 / wall},
                            {"failures", failures},
                            // Raw parts, so shards' JSON outputs merge (qdt check --merge).
                            {"pushes", pushes},
                            {"virtual_ms", virtual_ms},
                            {"seed_hashes", hashes},
                            {"metrics", totals}};
  if (a.as_json) {
    std::cout << summary.dump(2) << "\n";
  } else {
    std::cout << done << " seeds (" << a.profile << ", variant " << variant_text << ", " << jobs
              << " jobs): " << done - failed << " passed, " << failed << " failed; "
              << static_cast<int64_t>(done / wall) << " seeds/s, " << static_cast<int64_t>(pushes / wall)
              << " simulated pushes/s, " << static_cast<int64_t>(virtual_ms / 1000.0 / wall)
              << " virtual s per wall s; digest " << digest_hex << (out_of_time ? " (stopped by --time-budget)" : "")
              << "\n";
    const int64_t flushes = std::max<int64_t>(1, totals.value("storage_pushes", int64_t{0}));
    std::cout << "  probes run " << totals.value("probes_run", 0) << ", skipped by a watermark "
              << totals.value("probes_skipped", 0) << ", sidecar rows scanned per push "
              << static_cast<double>(totals.value("sidecar_rows_scanned", int64_t{0})) / static_cast<double>(flushes)
              << "; cache: " << totals.value("cache_vouched", 0) << " vouched of " << totals.value("cache_answers", 0)
              << " answers, " << totals.value("cache_hydrations_full", 0) << " full + "
              << totals.value("cache_hydrations_span", 0) << " span hydrations, " << totals.value("cache_evictions", 0)
              << " evictions, " << totals.value("cache_suppressed_partitions", 0) << " suppressed\n";
  }
  return failed == 0 ? kExitOk : kExitFailed;
}

// Runs a campaign in `jobs` processes (fork), merges their summaries and
// prints them. The campaign digest (xxh3-128 of every seed's trace hash, in
// seed order) is the same whatever the number of jobs or shards' split.
int check(const CheckArgs& a, qdt::impl::Variant variant, uint64_t jobs) {
  if (!a.shard.empty()) {
    const auto slash = a.shard.find('/');
    uint64_t i = 0, n = 0;
    try {
      i = std::stoull(a.shard.substr(0, slash));
      n = std::stoull(a.shard.substr(slash + 1));
    } catch (...) {
      n = 0;
    }
    if (slash == std::string::npos || n == 0 || i >= n) {
      std::cerr << "error: --shard: expected I/N with 0 <= I < N, got " << a.shard << "\n";
      return kExitBadInput;
    }
  }
  const auto start = std::chrono::steady_clock::now();
  std::vector<nlohmann::json> parts;
  if (jobs <= 1) {
    parts.push_back(run_check(a, variant, 0, 1));
  } else {
    std::cout.flush();
    std::vector<std::pair<pid_t, int>> children;
    for (uint64_t j = 0; j < jobs; ++j) {
      int fds[2];
      if (pipe(fds) != 0) {
        std::cerr << "error: pipe failed\n";
        return kExitBadInput;
      }
      const pid_t pid = fork();
      if (pid == 0) {
        close(fds[0]);
        const std::string text = run_check(a, variant, j, jobs).dump();
        size_t off = 0;
        while (off < text.size()) {
          const ssize_t n = write(fds[1], text.data() + off, text.size() - off);
          if (n <= 0) _exit(kExitBadInput);
          off += static_cast<size_t>(n);
        }
        std::cout.flush();
        _exit(0);
      }
      close(fds[1]);
      children.emplace_back(pid, fds[0]);
    }
    for (const auto& [pid, fd] : children) {
      std::string text;
      char buf[65536];
      for (ssize_t n; (n = read(fd, buf, sizeof buf)) > 0;) text.append(buf, static_cast<size_t>(n));
      close(fd);
      int status = 0;
      waitpid(pid, &status, 0);
      const auto part = nlohmann::json::parse(text, nullptr, false);
      if (part.is_discarded() || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        std::cerr << "error: a campaign worker failed\n";
        return kExitBadInput;
      }
      parts.push_back(part);
    }
  }
  const double wall = std::max(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 1e-9);
  return report_campaign(parts, a, qdt::impl::variant_name(variant), jobs, wall);
}

int merge(const std::vector<std::string>& files, const CheckArgs& a) {
  std::vector<nlohmann::json> parts;
  std::string variant_text;
  double wall = 0;
  for (const std::string& file : files) {
    std::ifstream in(file);
    const auto part = nlohmann::json::parse(in, nullptr, false);
    if (part.is_discarded() || !part.is_object() || !part.contains("seed_hashes") || !part.contains("pushes")) {
      std::cerr << "error: " << file << ": /: not a qdt check --json summary\n";
      return kExitBadInput;
    }
    const std::string v = part.value("variant", std::string("none"));
    if (!variant_text.empty() && v != variant_text) {
      std::cerr << "error: " << file << ": /variant: " << v << " differs from " << variant_text << "\n";
      return kExitBadInput;
    }
    variant_text = v;
    wall = std::max(wall, part.value("wall_s", 0.0));  // shards ran side by side
    parts.push_back(part);
  }
  CheckArgs merged = a;
  merged.profile = parts.front().value("profile", a.profile);
  merged.first_seed = parts.front().value("first_seed", a.first_seed);
  merged.shard = "merged";
  return report_campaign(parts, merged, variant_text, parts.size(), std::max(wall, 1e-9));
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"qdt: a simulation and verification testbed for idempotent producers"};
  app.require_subcommand(1);

  auto* replay_cmd = app.add_subcommand("replay", "Run scenario files deterministically and check them");
  std::vector<std::string> paths;
  bool as_json = false, quiet = false;
  std::string trace_file, cache, report_file;
  replay_cmd->add_option("paths", paths, "Scenario files or folders (searched recursively)")->required();
  replay_cmd->add_flag("--json", as_json, "Print the result object(s) as JSON");
  replay_cmd->add_option("--trace", trace_file, "Write the canonical event log of the (single) scenario to FILE");
  replay_cmd->add_option("--cache", cache, "Override world.cache.enabled")->check(CLI::IsMember({"on", "off"}));
  replay_cmd->add_option("--report", report_file, "Write a Markdown summary report to FILE");
  replay_cmd->add_flag("--quiet", quiet, "No progress on stderr");

  std::string variant_name = "none";
  std::vector<std::string> variant_choices = qdt::impl::variant_names();
  variant_choices.push_back("none");
  replay_cmd->add_option("--variant", variant_name, "Run a design variant of the implementation (SPEC 7)")
      ->check(CLI::IsMember(variant_choices));

  auto* check_cmd = app.add_subcommand("check", "Random campaign: generated scenarios judged by every property; failures shrunk to files");
  CheckArgs check_args;
  check_cmd->add_option("--seeds", check_args.seeds, "Seeds per profile")->check(CLI::Range(uint64_t{1}, uint64_t{100'000'000}));
  check_cmd->add_option("--seed", check_args.first_seed, "First seed");
  check_cmd->add_option("--profile", check_args.profile, "Workload profile, or all")
      ->check(CLI::IsMember([] {
        auto names = qdt::sim::profile_names();
        names.push_back("all");
        return names;
      }()));
  check_cmd->add_option("--variant", variant_name, "Run against a design variant (SPEC 7)")
      ->check(CLI::IsMember(variant_choices));
  check_cmd->add_option("--out", check_args.out_dir, "Where shrunk failures are written");
  check_cmd->add_option("--shard", check_args.shard, "Run only seeds with seed % N == I (I/N), to split a campaign across machines");
  uint64_t jobs = 1;
  std::vector<std::string> merge_files;
  check_cmd->add_option("--merge", merge_files, "Merge the --json summaries of shards instead of running");
  check_cmd->add_option("--jobs", jobs, "Worker processes")->check(CLI::Range(uint64_t{1}, uint64_t{64}));
  check_cmd->add_option("--time-budget", check_args.time_budget_s, "Stop after this many wall seconds")->check(CLI::NonNegativeNumber);
  check_cmd->add_option("--max-shrinks", check_args.max_shrinks, "Shrink at most this many failures")->check(CLI::NonNegativeNumber);
  check_cmd->add_flag("--json", check_args.as_json, "Print the campaign summary as JSON");
  check_cmd->add_flag("--quiet", check_args.quiet, "No progress on stderr");

  // Commands of SPEC 4 that later work fills in; they say so rather than pretend.
  for (const auto& [name, what] : std::vector<std::pair<std::string, std::string>>{
           {"mutants", "Run the campaign against every design variant (not in this build yet)"},
           {"explore", "Parameter sweeps rendered as reports (not in this build yet)"}}) {
    auto* cmd = app.add_subcommand(name, what);
    cmd->allow_extras();
    cmd->callback([name = name] {
      std::cerr << "qdt " << name << ": not available in this build yet\n";
      std::exit(kExitBadInput);
    });
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? kExitOk : kExitBadInput;
  }
  const qdt::impl::Variant variant = *qdt::impl::parse_variant(variant_name);
  if (replay_cmd->parsed()) return replay(paths, as_json, trace_file, cache, report_file, quiet, variant);
  if (check_cmd->parsed() && !merge_files.empty()) return merge(merge_files, check_args);
  if (check_cmd->parsed()) return check(check_args, variant, jobs);
  return kExitBadInput;
}
