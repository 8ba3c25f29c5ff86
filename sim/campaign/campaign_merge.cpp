#include "sim/campaign/campaign_merge.h"

#include <xxhash.h>

#include <algorithm>
#include <tuple>
#include <cstdio>
#include <iostream>
#include <map>
#include <optional>
#include <ostream>
#include <utility>
#include <vector>

#include "reports/display_text.h"
#include "sim/base/json_input.h"
#include "sim/base/outcome.h"
#include "sim/base/rate_text.h"
#include "sim/campaign/campaign_forks.h"
#include "sim/campaign/campaign_schemas.h"
#include "sim/campaign/judged_counts.h"
#include "sim/campaign/seed_command.h"
#include "sim/campaign/shard_set.h"
#include "sim/campaign/triage.h"
#include "sim/scenario/coverage.h"
#include "sim/scenario/engine_support.h"
#include "sim/scenario/variant_reach.h"
#include "sim/world/cache_module_choice.h"
#include "sim/world/pg_process.h"
#include "sim/world/pg_sql_choice.h"

namespace qdt::sim {

using json = nlohmann::json;
using reports::terminal_text;

void add_metrics(json& totals, const json& metrics) {
  static const char* kSummed[] = {"requests", "items", "queued", "duplicates", "zero_id_duplicates", "errors",
                                  "timeouts", "retries", "storage_pushes", "probes_run", "probes_skipped",
                                  "sidecar_rows_scanned", "fused_segments", "storage_statements",
                                  "storage_busy_waits", "storage_faults_injected", "storage_push_failures", "repeats_stored",
                                  "double_writes", "acks", "acks_answered", "server_notices", "server_warnings"};
  for (const char* key : kSummed) totals[key] = totals.value(key, int64_t{0}) + metrics.value(key, int64_t{0});
  for (const auto& [key, value] : metrics.items()) {
    if (key.rfind("evidence.", 0) == 0) totals[key] = totals.value(key, int64_t{0}) + value.get<int64_t>();
  }
  static const char* kCache[] = {"answers", "vouched", "hits", "hydrations_full", "hydrations_span",
                                 "evictions", "suppressed_partitions", "rebuilds"};
  for (const char* key : kCache) {
    const int64_t v = metrics.contains("cache") ? metrics["cache"].value(key, int64_t{0}) : 0;
    totals["cache_" + std::string(key)] = totals.value("cache_" + std::string(key), int64_t{0}) + v;
  }
  // Only runs on a foreign cache count its calls, so a built-in campaign's totals keep their keys.
  if (metrics.contains("cache") && metrics["cache"].contains("foreign_calls")) {
    totals["cache_foreign_calls"] = totals.value("cache_foreign_calls", int64_t{0}) + metrics["cache"]["foreign_calls"].get<int64_t>();
  }
}

namespace {

// Which SQL a PostgreSQL campaign ran and what it could not express, and
// what the server said while this process loaded it; a merge of shards'
// summaries keeps the first shard's.
json sql_block(const std::vector<json>& parts) {
  for (const json& part : parts) {
    if (part.contains("sql") && !pg_process_started()) return part["sql"];
  }
  json lines = json::array();
  for (const std::string& line : pg_server_messages().first) lines.push_back(line);
  return {{"named_as", pg_sql_choice().foreign() ? storage_flags(StorageEngineKind::postgres) : std::string()},
          {"content_xxh128", chosen_sql_content_hash()},
          {"cannot_express", pg_sql_cannot_express()},
          {"server_messages", lines}};
}

void print_sql_block(std::ostream& out, const json& sql, const json& totals) {
  const std::string named = sql.value("named_as", std::string());
  out << "  sql: " << (named.empty() ? std::string("qdt's own") : terminal_text(named.substr(named.find_first_not_of(' '))))
      << (sql.value("content_xxh128", std::string()).empty() ? "" : " (xxh128 " + sql["content_xxh128"].get<std::string>() + ")");
  for (const json& m : sql.value("cannot_express", json::array())) out << "; cannot express: " << terminal_text(m.get<std::string>());
  out << "\n";
  const int64_t notices = totals.value("server_notices", int64_t{0});
  const int64_t warnings = totals.value("server_warnings", int64_t{0});
  const json lines = sql.value("server_messages", json::array());
  if (notices + warnings > 0 || !lines.empty()) {
    out << "  server: " << notices << " notices and " << warnings << " warnings during the runs";
    if (!lines.empty()) out << "; while loading the SQL, first: " << terminal_text(lines[0].get<std::string>());
    out << " (all in --json: sql.server_messages)\n";
  }
}

// The summary's record of the foreign cache module this process chose; null for qdt's own.
json chosen_cache_record() {
  const CacheModule* module = chosen_cache_module();
  if (!module) return nullptr;
  return {{"path", module->named},
          {"content_xxh128", module->content_hash},
          {"caller", impl::cache_caller_name(module->caller)}};
}

// What ran, for a refusal: the module by content and caller (its path may differ between machines).
std::string cache_identity(const json& record) {
  if (record.is_null()) return "qdt's own cache";
  return "cache module xxh128 " + record["content_xxh128"].get<std::string>() + " with the " +
         record["caller"].get<std::string>() + " caller";
}

}  // namespace

Outcome report_campaign(const std::vector<json>& parts, const CampaignOptions& a, const std::string& variant_text,
                    uint64_t jobs, double wall, json* summary_out) {
  uint64_t done = 0, failed = 0, pushes = 0, virtual_ms = 0;
  bool out_of_time = false;
  json failures = json::array();
  std::vector<std::string> hashes;
  json totals = json::object();
  json coverage = json::object();
  json forking = nullptr;
  json fork_failures = json::array();
  for (const auto& p : parts) {
    if (p.contains("coverage")) merge_coverage(coverage, p["coverage"]);
    if (p.contains("forking")) merge_forking(forking, p["forking"]);
    if (p.contains("fork_failures")) {
      for (const auto& f : p["fork_failures"]) fork_failures.push_back(f);
    }
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
  std::sort(failures.begin(), failures.end(), [](const json& x, const json& y) {
    return std::make_pair(x["profile"].get<std::string>(), x["seed"].get<uint64_t>()) <
           std::make_pair(y["profile"].get<std::string>(), y["seed"].get<uint64_t>());
  });
  for (json& f : failures) {
    // A merged shard's command stands: it names the cache module and --out that shard ran with.
    if (!f.contains("file") && !f.contains("check")) f["check"] = seed_command(a, variant_text, f["profile"], f["seed"].get<uint64_t>());
    f["cause"] = failure_cause(f);  // what the page groups by, as the terminal does
  }
  std::string joined;
  for (const auto& h : hashes) joined += h + "\n";
  const XXH128_hash_t digest = XXH3_128bits(joined.data(), joined.size());
  char digest_hex[33];
  std::snprintf(digest_hex, sizeof digest_hex, "%016llx%016llx", static_cast<unsigned long long>(digest.high64),
                static_cast<unsigned long long>(digest.low64));

  json summary = {{"profile", a.profile},
                  {"variant", variant_text},
                  {"engine", storage_engine_name(a.engine)},
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
                  {"metrics", totals},
                  {"coverage", coverage}};
  const json report =
      coverage_report(coverage, {a.engine == StorageEngineKind::postgres, chosen_cache_module() != nullptr});
  const std::vector<std::string> missing =
      a.require_coverage ? missing_points(report, a.required_points) : std::vector<std::string>{};
  summary["coverage_report"] = report;
  if (!forking.is_null()) {
    forking["points_only_forks_reached"] = points_only_forks_reached(forking, coverage);
    summary["forking"] = forking;
    std::sort(fork_failures.begin(), fork_failures.end(), [](const json& x, const json& y) {
      return std::make_tuple(x["profile"].get<std::string>(), x["seed"].get<uint64_t>(), x.dump()) <
             std::make_tuple(y["profile"].get<std::string>(), y["seed"].get<uint64_t>(), y.dump());
    });
    summary["fork_failures"] = fork_failures;
  }
  const json cache_record = a.merged_cache_module ? *a.merged_cache_module : chosen_cache_record();
  if (!cache_record.is_null()) summary["cache_module"] = cache_record;
  if (a.require_coverage) summary["coverage_missing"] = missing;
  const std::vector<std::string> unjudged = hollow_properties(totals);
  if (!unjudged.empty()) summary["unjudged"] = unjudged;
  summary["judged"] = judged_counts(totals);
  std::string untested;  // a caught variant was exercised, whatever the points say
  if (const auto variant = impl::parse_variant(variant_text); variant && *variant != impl::Variant::none) {
    summary["variant_exercise"] = variant_exercise(*variant, coverage);
    if (failed == 0) untested = variant_untested_text(*variant, summary["variant_exercise"], done);
    if (!untested.empty()) summary["untested"] = untested;
  }
  if (a.engine == StorageEngineKind::postgres) summary["sql"] = sql_block(parts);
  if (a.as_json) {
    std::cout << summary.dump(2) << "\n";
  } else {
    std::cout << done << " seeds (" << terminal_text(a.profile) << ", variant " << terminal_text(variant_text) << ", " << jobs
              << " jobs): " << done - failed << " passed, " << failed << " failed; "
              << rate_text(done / wall) << " seeds/s, " << static_cast<int64_t>(pushes / wall)
              << " simulated pushes/s, " << static_cast<int64_t>(virtual_ms / 1000.0 / wall)
              << " virtual s per wall s; digest " << digest_hex << (out_of_time ? " (stopped by --time-budget)" : "")
              << "\n";
    print_triage(std::cout, failures, a.max_shrinks);
    const int64_t flushes = std::max<int64_t>(1, totals.value("storage_pushes", int64_t{0}));
    std::cout << "  probes run " << totals.value("probes_run", 0) << ", skipped by a watermark "
              << totals.value("probes_skipped", 0) << ", sidecar rows scanned per push "
              << static_cast<double>(totals.value("sidecar_rows_scanned", int64_t{0})) / static_cast<double>(flushes)
              << "; ";
    if (cache_record.is_null()) {
      std::cout << "cache: " << totals.value("cache_vouched", 0) << " vouched of " << totals.value("cache_answers", 0)
                << " answers, " << totals.value("cache_hydrations_full", 0) << " full + "
                << totals.value("cache_hydrations_span", 0) << " span hydrations, " << totals.value("cache_evictions", 0)
                << " evictions, " << totals.value("cache_suppressed_partitions", 0) << " suppressed\n";
    } else {
      // A foreign cache keeps its evictions and memory to itself: what the broker asked and was answered.
      std::cout << "foreign cache: " << totals.value("cache_foreign_calls", 0) << " calls, "
                << totals.value("cache_vouched", 0) << " vouched of " << totals.value("cache_answers", 0) << " answers, "
                << totals.value("cache_hits", 0) << " local duplicates, " << totals.value("cache_hydrations_full", 0)
                << " hydrations\n";
      std::cout << "  ran on the cache module " << terminal_text(cache_record["path"].get<std::string>()) << " (xxh128 "
                << cache_record["content_xxh128"].get<std::string>() << "), "
                << cache_record["caller"].get<std::string>() << " caller\n";
    }
    std::cout << "  storage: " << totals.value("storage_statements", 0) << " statements, "
              << totals.value("storage_busy_waits", 0) << " waits for a lock ("
              << (a.engine == StorageEngineKind::sqlite ? "SQLITE_BUSY" : "a row lock held by another client") << "), "
              << totals.value("storage_faults_injected", 0) << " faults injected, "
              << totals.value("storage_push_failures", 0) << " failed push transactions; acks judged "
              << totals.value("acks_answered", 0) << " of " << totals.value("acks", 0) << "\n";
    if (summary.contains("sql")) print_sql_block(std::cout, summary["sql"], totals);
    if (const std::string text = unjudged_text(totals); !text.empty()) {
      std::cout << "  not judged (the call failed): " << text << "\n";
    }
    if (const std::string text = idle_properties_text(totals); !text.empty()) {
      std::cout << "  judged no event: " << text << "\n";
    }
    if (!untested.empty()) {
      std::cout << "  " << untested << ":\n    "
                << profile_command(a, variant_text, summary["variant_exercise"]["profile"].get<std::string>(), done)
                << "\n";
    }
    // The page and --json always carry coverage; the terminal shows it when asked.
    if (a.coverage_table) print_coverage(std::cout, report, true);
    if (!forking.is_null()) {
      std::cout << "  forking: " << forking["runs"].get<uint64_t>() << " fork runs at " << forking["forked_at"].size()
                << " rare points, " << fork_failures.size() << " failed; points only forks reached:";
      for (const json& name : forking["points_only_forks_reached"]) std::cout << " " << terminal_text(name.get<std::string>());
      if (forking["points_only_forks_reached"].empty()) std::cout << " none";
      std::cout << "\n";
    }
  }
  for (const std::string& line : unjudged) {
    // On stderr too, so --json users see why the exit code is 1.
    std::cerr << "hollow: " << line << "\n";
  }
  // On stderr for --json users, so they see why the exit code is 1.
  if (!untested.empty() && a.as_json) std::cerr << untested << "\n";
  if (!missing.empty()) {
    // On stderr too, so --json users see why the exit code is 1.
    std::cerr << "coverage: " << missing.size() << " required point(s) never reached (--require-coverage):";
    for (const std::string& name : missing) std::cerr << " " << name;
    std::cerr << "\n";
  }
  if (summary_out) *summary_out = std::move(summary);
  return failed == 0 && missing.empty() && fork_failures.empty() && unjudged.empty() && untested.empty() ? Outcome::held
                                                                                     : Outcome::failed;
}

namespace {

// The code rules on top of the summary schema (sim/campaign/schema/summary.schema.json),
// on a document that matches it; the first fault, or nullopt.
std::optional<LoadError> summary_rule_fault(const json& s, const std::string& file) {
  if (s["failed"].get<uint64_t>() > s["seeds_run"].get<uint64_t>()) return LoadError{file, "/failed", "more than seeds_run"};
  if (s.contains("coverage")) {
    if (auto f = coverage_fault(s["coverage"])) return LoadError{file, "/coverage" + f->first, f->second};
  }
  return std::nullopt;
}

}  // namespace

std::variant<json, LoadError> read_summary_text(const std::string& text, const std::string& file) {
  JsonInput parsed = parse_json_input(text);
  if (!parsed.doc) return LoadError{file, parsed.path, parsed.reason};
  // The schema first: print_triage, report_campaign and the campaign page read its fields unchecked.
  if (const std::vector<LoadError> errors = summary_schema_errors(*parsed.doc, file); !errors.empty()) {
    return errors.front();
  }
  if (std::optional<LoadError> fault = summary_rule_fault(*parsed.doc, file)) return std::move(*fault);
  return std::move(*parsed.doc);
}

Outcome merge_summaries(const std::vector<std::string>& files, const CampaignOptions& a, json* summary) {
  std::vector<json> parts;
  std::string variant_text, engine_text;
  json cache_record;  // the first shard's foreign cache module; null for qdt's own
  double wall = 0;
  if (files.empty() || files.size() > kMaxMergeFiles) {
    std::cerr << "error: --merge takes 1 to " << kMaxMergeFiles << " summaries\n";
    return Outcome::bad_input;
  }
  for (const std::string& file : files) {
    std::string reason;
    const std::optional<std::string> text = read_input_file(file, reason);
    if (!text) {
      std::cerr << "error: " << file << ": /: " << reason << "\n";
      return Outcome::bad_input;
    }
    auto read = read_summary_text(*text, file);
    if (const auto* error = std::get_if<LoadError>(&read)) {
      std::cerr << "error: " << error->to_string() << "\n";
      return Outcome::bad_input;
    }
    const json part = std::move(std::get<json>(read));
    const std::string v = part.value("variant", std::string("none"));
    if (!variant_text.empty() && v != variant_text) {
      std::cerr << "error: " << terminal_text(file + ": /variant: " + v + " differs from " + variant_text) << "\n";
      return Outcome::bad_input;
    }
    variant_text = v;
    // Trace hashes differ between the engines: one digest never mixes them.
    // A summary without the field ran on SQLite, as a journal without it did.
    const std::string e = part.value("engine", std::string("sqlite"));
    const std::optional<StorageEngineKind> kind = parse_storage_engine(e);
    if (!kind || (!engine_text.empty() && e != engine_text)) {
      std::cerr << "error: "
                << terminal_text(file + ": /engine: " + e +
                                 (kind ? " differs from " + engine_text + " (a digest never mixes engines)"
                                       : ": not an engine (sqlite or postgres)"))
                << "\n";
      return Outcome::bad_input;
    }
    engine_text = e;
    // Trace hashes differ between cache modules and callers too: one digest never mixes them.
    const json module = part.contains("cache_module") ? part["cache_module"] : json(nullptr);
    if (!parts.empty() && cache_identity(module) != cache_identity(cache_record)) {
      std::cerr << "error: "
                << terminal_text(file + ": /cache_module: ran " + cache_identity(module) + ", " + files.front() +
                                 " ran " + cache_identity(cache_record) + " (a digest never mixes cache modules)")
                << "\n";
      return Outcome::bad_input;
    }
    cache_record = module;
    wall = std::max(wall, part.value("wall_s", 0.0));  // shards ran side by side
    parts.push_back(part);
  }
  const ShardCoverage split = shard_coverage(parts, files);
  if (split.duplicate_seed) {
    std::cerr << "error: " << split.second_file << ": " << split.duplicate_path << ": seed '"
              << terminal_text(*split.duplicate_seed) << "' is also in " << split.first_file
              << " (a shard merged twice, or shards of overlapping splits); nothing merged\n";
    return Outcome::bad_input;
  }
  if (split.missing_count > 0) {
    // Not an error: a partial merge is a smaller campaign. Said on stderr so
    // that a lost array task is seen, and kept in the JSON.
    std::cerr << "warning: " << split.missing_count << " of " << split.shard_count << " shards absent:";
    for (uint64_t i : split.missing_shards) std::cerr << " " << i << "/" << split.shard_count;
    if (split.missing_count > split.missing_shards.size()) std::cerr << " …";
    std::cerr << "\n";
  }
  if (const json named = chosen_cache_record(); !named.is_null() && cache_identity(named) != cache_identity(cache_record)) {
    std::cerr << "error: "
              << terminal_text("the command line names " + cache_identity(named) + ", the shards (" + files.front() +
                               ") ran " + cache_identity(cache_record))
              << "\n";
    return Outcome::bad_input;
  }
  CampaignOptions merged = a;
  merged.merged_cache_module = cache_record;
  merged.engine = *parse_storage_engine(engine_text);
  merged.profile = parts.front().value("profile", a.profile);
  merged.first_seed = parts.front().value("first_seed", a.first_seed);
  // "merged", or "merged 3 of 4 shards" for an I/N split (complete or not).
  merged.shard = split.shard_count == 0 ? "merged"
                                        : "merged " + std::to_string(split.shard_count - split.missing_count) + " of " +
                                              std::to_string(split.shard_count) + " shards";
  return report_campaign(parts, merged, variant_text, parts.size(), std::max(wall, 1e-9), summary);
}

}  // namespace qdt::sim
