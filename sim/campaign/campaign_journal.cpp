#include "sim/campaign/campaign_journal.h"

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "sim/base/atomic_file.h"
#include "sim/base/content_hash.h"
#include "sim/base/json_input.h"
#include "sim/campaign/campaign_jobs.h"
#include "sim/campaign/campaign_merge.h"
#include "sim/campaign/campaign_schemas.h"
#include "sim/campaign/shard_set.h"
#include "sim/campaign/workload.h"
#include "sim/scenario/engine_support.h"
#include "sim/schedule/schedule_config.h"
#include "sim/world/cache_module_choice.h"

namespace qdt::sim {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

// 3 records the SQL by content; 2 recorded it by path.
constexpr const char* kJournalFormat = "qdt-campaign-journal-3";
constexpr const char* kJournalFormatByPath = "qdt-campaign-journal-2";

std::optional<json> read_json(const fs::path& path, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (error) *error = path.string() + ": cannot open the file";
    return std::nullopt;
  }
  std::ostringstream text;
  text << in.rdbuf();
  json doc = json::parse(text.str(), nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) {
    if (error) *error = path.string() + ": /: not a journal file (not a JSON object)";
    return std::nullopt;
  }
  return doc;
}

// A part's checksum: of its campaign's key and its content as nlohmann
// prints it (sorted keys, shortest numbers), so the reader recomputes it from
// the manifest and the parsed part alone.
std::string content_checksum(const json& content, const std::string& key) {
  return content_hash_hex(key + "\n" + content.dump());
}

// A part's name: part-rRUN-wWORKER-SEQUENCE.json, the run no later than the
// journal's (a later one is a part no run of this journal wrote).
bool part_name_fits(const std::string& name, uint64_t run) {
  unsigned long long r = 0, w = 0, n = 0;
  int used = 0;
  if (std::sscanf(name.c_str(), "part-r%4llu-w%2llu-%6llu.json%n", &r, &w, &n, &used) != 3) return false;
  char canonical[64];
  std::snprintf(canonical, sizeof canonical, "part-r%04llu-w%02llu-%06llu.json", r, w, n);
  return static_cast<size_t>(used) == name.size() && name == canonical && r <= run;
}

// A part's write that never finished: write_file_atomically's temporary
// (NAME.tmp-PID) left by a worker killed before its rename. Never a part,
// so never read, and never deleted either.
bool unfinished_part(const std::string& name) {
  const size_t tmp = name.find(".json.tmp-");
  if (tmp == std::string::npos) return false;
  const std::string pid = name.substr(tmp + 10);
  return !pid.empty() && pid.size() <= 10 && pid.find_first_not_of("0123456789") == std::string::npos &&
         part_name_fits(name.substr(0, tmp + 5), UINT64_MAX);
}

// campaign.json read as any input is (bounded, a regular file, strict JSON),
// then checked against the journal schema (campaign_schemas.h), so that the
// reader below may read the fields it names.
std::optional<json> read_manifest(const fs::path& path, std::string* error) {
  std::string reason;
  const std::optional<std::string> text = read_input_file(path.string(), reason);
  if (!text) {
    if (error) *error = path.string() + ": cannot open the file (" + reason + ")";
    return std::nullopt;
  }
  JsonInput parsed = parse_json_input(*text);
  if (!parsed.doc) {
    if (error) *error = path.string() + ": " + parsed.path + ": " + parsed.reason + ": not a journal file";
    return std::nullopt;
  }
  if (const std::vector<LoadError> errors = journal_schema_errors(*parsed.doc, path.string()); !errors.empty()) {
    if (error) *error = errors.front().to_string() + ": not a campaign this qdt can resume";
    return std::nullopt;
  }
  return std::move(*parsed.doc);
}

// Why a part cannot be believed (as "/json/path: reason"), or nullopt. Its
// shape is a campaign summary's, checked by the merge's reader; beyond that
// its checksum must match its content and its every seed must belong to the
// campaign, once in seeds_done and once in seed_hashes.
std::optional<std::string> part_fault(json& part, const CampaignOptions& campaign, const std::string& key) {
  const auto sum = part.find("checksum");
  if (sum == part.end() || !sum->is_string()) return "/checksum: missing (not a part this qdt wrote)";
  const std::string written = sum->get<std::string>();
  part.erase("checksum");
  if (content_checksum(part, key) != written) {
    return "/checksum: does not match the part's content and campaign.json (edited, damaged, or another campaign's)";
  }
  const std::optional<Shard> shard = parse_shard(campaign.shard);
  assert(shard);
  auto in_campaign = [&](const std::string& profile, uint64_t seed) {
    const bool profile_ok = campaign.profile == "all" ? is_profile(profile) : profile == campaign.profile;
    return profile_ok && seed >= campaign.first_seed && seed - campaign.first_seed < campaign.seeds &&
           seed % shard->count == shard->index;
  };
  const json& done = part["seeds_done"];
  const json& hashes = part["seed_hashes"];
  if (!done.is_array()) return "/seeds_done: expected an array";
  if (done.size() != hashes.size() || done.size() != part["seeds_run"].get<uint64_t>()) {
    return "/seeds_done: " + std::to_string(done.size()) + " seeds, but " + std::to_string(hashes.size()) +
           " seed_hashes and seeds_run " + std::to_string(part["seeds_run"].get<uint64_t>());
  }
  std::set<std::pair<std::string, uint64_t>> seen;
  for (size_t i = 0; i < done.size(); ++i) {
    const std::string where = "/seeds_done/" + std::to_string(i);
    const json& d = done[i];
    if (!d.is_array() || d.size() != 2 || !d[0].is_string() || !d[1].is_number_unsigned()) {
      return where + ": expected [profile, seed]";
    }
    const std::string profile = d[0].get<std::string>();
    const uint64_t seed = d[1].get<uint64_t>();
    if (!in_campaign(profile, seed)) {
      return where + ": seed '" + profile + " " + std::to_string(seed) + "' is not in this campaign (profile " +
             campaign.profile + ", seeds " + std::to_string(campaign.first_seed) + " to " +
             std::to_string(campaign.first_seed + campaign.seeds - 1) + ", shard " +
             (campaign.shard.empty() ? "0/1" : campaign.shard) + ")";
    }
    if (!seen.emplace(profile, seed).second) {
      return where + ": seed '" + profile + " " + std::to_string(seed) + "' is journaled twice in this part";
    }
    // The digest is made of these lines: "profile seed" and a 32-digit trace hash.
    const std::string prefix = profile + " " + std::to_string(seed) + " ";
    const std::string line = hashes[i].get<std::string>();
    if (line.size() != prefix.size() + 32 || line.compare(0, prefix.size(), prefix) != 0 ||
        line.find_first_not_of("0123456789abcdef", prefix.size()) != std::string::npos) {
      return "/seed_hashes/" + std::to_string(i) + ": expected \"" + prefix + "\" and a 32-digit trace hash";
    }
  }
  const json& failures = part["failures"];
  if (failures.size() != part["failed"].get<uint64_t>()) return "/failed: not the number of failures";
  for (size_t i = 0; i < failures.size(); ++i) {
    if (!seen.count({failures[i]["profile"].get<std::string>(), failures[i]["seed"].get<uint64_t>()})) {
      return "/failures/" + std::to_string(i) + ": a seed this part did not run";
    }
  }
  return std::nullopt;
}

}  // namespace

std::string journal_dir(const std::string& out_dir) { return (fs::path(out_dir) / "journal").string(); }

bool is_journal_dir(const std::string& dir) {
  fs::path folder = fs::path(dir).lexically_normal();
  if (folder.filename().empty()) folder = folder.parent_path();  // "DIR/journal/"
  if (folder.filename() != "journal") return false;
  const fs::path manifest = folder / "campaign.json";
  // Read as any input is (bounded, regular files only): the folder may be anyone's.
  std::string reason;
  const std::optional<std::string> text = read_input_file(manifest.string(), reason);
  if (!text) return false;
  const JsonInput parsed = parse_json_input(*text);
  if (!parsed.doc || !parsed.doc->is_object()) return false;
  const json& doc = *parsed.doc;
  return doc.value("format", json()).is_string() &&
         doc["format"].get<std::string>().rfind("qdt-campaign-journal-", 0) == 0;
}

std::string campaign_key(const CampaignOptions& o, impl::Variant variant, const std::string& sql_content_hash,
                         const std::string& cache_content_hash, const std::string& cache_caller) {
  json key = {{"seeds", o.seeds},
              {"first_seed", o.first_seed},
              {"profile", o.profile},
              {"shard", o.shard},
              {"variant", impl::variant_name(variant)},
              {"engine", storage_engine_name(o.engine)},
              {"sql_content_xxh128", sql_content_hash},
              {"interleave", o.interleave ? json(*o.interleave) : json()},
              {"schedule", o.schedule}};
  // Only campaigns on a foreign cache name one (the keys of older journals' parts stay as they were).
  if (!cache_content_hash.empty()) key["cache_module"] = {{"content_xxh128", cache_content_hash}, {"caller", cache_caller}};
  return key.dump();
}

json campaign_manifest(const CampaignOptions& o, impl::Variant variant) {
  json m = {{"format", kJournalFormat},
            {"seeds", o.seeds},
            {"first_seed", o.first_seed},
            {"profile", o.profile},
            {"shard", o.shard},
            {"variant", impl::variant_name(variant)},
            {"max_shrinks", o.max_shrinks},
            {"engine", storage_engine_name(o.engine)},
            {"run", 0}};
  if (o.interleave) m["interleave"] = *o.interleave;
  if (!o.schedule.is_null()) m["schedule"] = o.schedule;
  // By content, never by path: a resume loads only the SQL its own command line names.
  if (o.engine == StorageEngineKind::postgres && pg_sql_choice().foreign()) {
    m["sql"] = {{"content_xxh128", chosen_sql_content_hash()}, {"named_as", storage_flags(o.engine)}};
  }
  if (const CacheModule* module = chosen_cache_module()) {
    m["cache"] = {{"content_xxh128", module->content_hash},
                  {"caller", impl::cache_caller_name(module->caller)},
                  {"named_as", cache_module_flags()}};
  }
  return m;
}

std::optional<std::string> start_journal(const CampaignOptions& o, impl::Variant variant) {
  const fs::path dir = journal_dir(o.out_dir);
  std::string manifest;
  try {
    manifest = campaign_manifest(o, variant).dump(2) + "\n";
  } catch (const std::exception& e) {
    return dir.string() + ": cannot record the campaign: " + e.what();
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::create_directories(dir, ec);
  if (ec) return dir.string() + ": cannot create the journal folder: " + ec.message();
  std::string error;
  if (!write_file_atomically((dir / "campaign.json").string(), manifest, &error)) return error;
  return std::nullopt;
}

std::optional<std::string> mark_run(const std::string& out_dir, uint64_t run) {
  const fs::path file = fs::path(journal_dir(out_dir)) / "campaign.json";
  std::string error;
  std::optional<json> m = read_json(file, &error);
  if (!m) return error;
  (*m)["run"] = run;
  if (!write_file_atomically(file.string(), m->dump(2) + "\n", &error)) return error;
  return std::nullopt;
}

std::optional<JournalState> read_journal(const std::string& out_dir, std::string* error) {
  const fs::path dir = journal_dir(out_dir);
  std::optional<json> m = read_manifest(dir / "campaign.json", error);
  if (!m) return std::nullopt;
  JournalState s;
  try {
    const std::string format = m->value("format", std::string());
    if (format != kJournalFormat && format != kJournalFormatByPath) throw std::runtime_error("/format");
    // The code rules on top of the journal schema.
    if (!m->at("first_seed").is_number_unsigned()) throw std::runtime_error("/first_seed");
    if (m->contains("schedule")) {
      ScheduleConfig schedule;
      if (!parse_schedule(m->at("schedule"), "/schedule", schedule).empty()) throw std::runtime_error("/schedule");
    }
    s.options.out_dir = out_dir;
    s.options.seeds = m->at("seeds").get<uint64_t>();
    s.options.first_seed = m->at("first_seed").get<uint64_t>();
    s.options.profile = m->at("profile").get<std::string>();
    s.options.shard = m->at("shard").get<std::string>();
    s.options.max_shrinks = m->at("max_shrinks").get<int>();
    if (m->contains("interleave")) s.options.interleave = m->at("interleave").get<bool>();
    if (m->contains("schedule")) s.options.schedule = m->at("schedule");
    // Journals written before the engine was recorded ran on SQLite.
    if (m->contains("engine") || format == kJournalFormat) {
      const std::optional<StorageEngineKind> engine = parse_storage_engine(m->at("engine").get<std::string>());
      if (!engine) throw std::runtime_error("/engine");
      s.options.engine = *engine;
    }
    if (m->contains("sql")) {
      // The older format named the SQL by path, which a resume would have to load to match.
      if (format == kJournalFormatByPath) {
        throw std::runtime_error("/sql: names its SQL by path only, and qdt never loads what a journal names; "
                                 "start the campaign again");
      }
      s.sql_content_hash = m->at("sql").at("content_xxh128").get<std::string>();
      if (!is_content_hash_hex(s.sql_content_hash)) throw std::runtime_error("/sql/content_xxh128");
      s.sql_named_as = m->at("sql").at("named_as").get<std::string>();
      if (s.options.engine != StorageEngineKind::postgres) throw std::runtime_error("/sql");
    }
    if (m->contains("cache")) {
      s.cache_content_hash = m->at("cache").at("content_xxh128").get<std::string>();
      if (!is_content_hash_hex(s.cache_content_hash)) throw std::runtime_error("/cache/content_xxh128");
      s.cache_caller = m->at("cache").at("caller").get<std::string>();
      if (!impl::parse_cache_caller(s.cache_caller)) throw std::runtime_error("/cache/caller");
      s.cache_named_as = m->at("cache").at("named_as").get<std::string>();
    }
    const std::optional<impl::Variant> v = impl::parse_variant(m->at("variant").get<std::string>());
    if (!v) throw std::runtime_error("/variant");
    s.variant = *v;
    s.run = m->at("run").get<uint64_t>();
    // A later run's parts would be named past what part names hold, or reuse an earlier run's names.
    if (s.run >= kJournalRunsMax - 1) {
      throw std::runtime_error("/run: " + std::to_string(s.run) + " runs, a journal resumes at most " +
                               std::to_string(kJournalRunsMax - 1) + " times");
    }
    if (s.options.profile != "all" && !is_profile(s.options.profile)) throw std::runtime_error("/profile");
    if (!parse_shard(s.options.shard)) throw std::runtime_error("/shard");
    if (s.options.seeds == 0 || s.options.first_seed + (s.options.seeds - 1) < s.options.first_seed) {
      throw std::runtime_error("/seeds");
    }
  } catch (const std::exception& e) {
    if (error) *error = (dir / "campaign.json").string() + ": " + e.what() + ": not a campaign this qdt can resume";
    return std::nullopt;
  }
  const std::string key = campaign_key(s.options, s.variant, s.sql_content_hash, s.cache_content_hash, s.cache_caller);
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("part-", 0) != 0 || unfinished_part(name)) continue;
    if (!part_name_fits(name, s.run)) {
      if (error) {
        *error = entry.path().string() + ": not a part name this journal's runs (0 to " + std::to_string(s.run) +
                 ") wrote: expected part-rRUN-wWORKER-SEQUENCE.json";
      }
      return std::nullopt;
    }
    files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  std::vector<std::string> names;
  for (const fs::path& f : files) {
    std::string reason;
    const std::optional<std::string> text = read_input_file(f.string(), reason);
    if (!text) {
      if (error) *error = f.string() + ": /: " + reason;
      return std::nullopt;
    }
    // The shape of a campaign summary, checked as --merge checks shards.
    auto read = read_summary_text(*text, f.string());
    if (const auto* e = std::get_if<LoadError>(&read)) {
      if (error) *error = e->to_string() + " (not a journal part)";
      return std::nullopt;
    }
    json part = std::move(std::get<json>(read));
    if (const std::optional<std::string> fault = part_fault(part, s.options, key)) {
      if (error) *error = f.string() + ": " + *fault;
      return std::nullopt;
    }
    for (const json& d : part["seeds_done"]) s.done.emplace(d[0].get<std::string>(), d[1].get<uint64_t>());
    for (const json& failure : part["failures"]) s.failure_files += failure.contains("file") ? 1 : 0;
    s.parts.push_back(std::move(part));
    names.push_back(f.string());
  }
  // A part copied under a second name holds seeds another part holds: as --merge refuses a shard twice.
  const ShardCoverage split = shard_coverage(s.parts, names);
  if (split.duplicate_seed) {
    if (error) {
      *error = split.second_file + ": " + split.duplicate_path + ": seed '" + *split.duplicate_seed +
               "' is also journaled in " + split.first_file + " (a part copied, or a seed run twice)";
    }
    return std::nullopt;
  }
  return s;
}

json empty_share() {
  return {{"seeds_run", 0},         {"failed", 0},     {"pushes", 0},           {"virtual_ms", 0},
          {"out_of_time", false},   {"failures", json::array()}, {"seed_hashes", json::array()},
          {"metrics", json::object()}, {"seeds_done", json::array()}, {"coverage", json::object()}};
}

JournalWriter::JournalWriter(std::string out_dir, uint64_t run, uint64_t worker, const WallClock& wall,
                             std::string campaign_key)
    : dir_(out_dir.empty() ? "" : journal_dir(out_dir)),
      key_(std::move(campaign_key)),
      run_(run),
      worker_(worker),
      wall_(wall),
      delta_(empty_share()) {
  assert(run_ < kJournalRunsMax);
  last_s_ = wall_();
}

void JournalWriter::checkpoint(bool now) {
  if (dir_.empty() || delta_["seeds_run"].get<uint64_t>() == 0) return;
  if (!now && wall_() - last_s_ < 1.0) return;
  char name[64];
  std::snprintf(name, sizeof name, "part-r%04llu-w%02llu-%06llu.json", static_cast<unsigned long long>(run_),
                static_cast<unsigned long long>(worker_), static_cast<unsigned long long>(sequence_++));
  std::string error;
  json part = delta_;
  part["checksum"] = content_checksum(delta_, key_);
  // A journal that cannot be written loses resumability, not results: say so
  // and go on. An earlier part is never replaced.
  const fs::path path = fs::path(dir_) / name;
  std::error_code exists_error;
  if (fs::exists(path, exists_error)) {
    std::fprintf(stderr, "warning: journal: %s exists already: not replaced\n", path.string().c_str());
  } else if (!write_file_atomically(path.string(), part.dump() + "\n", &error)) {
    std::fprintf(stderr, "warning: journal: %s\n", error.c_str());
  }
  delta_ = empty_share();
  last_s_ = wall_();
}

}  // namespace qdt::sim
