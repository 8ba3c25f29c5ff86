#include "sim/campaign_journal.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "sim/atomic_file.h"

namespace qdt::sim {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

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

}  // namespace

std::string journal_dir(const std::string& out_dir) { return (fs::path(out_dir) / "journal").string(); }

json campaign_manifest(const CampaignOptions& o, impl::Variant variant) {
  json m = {{"format", "qdt-campaign-journal-1"},
            {"seeds", o.seeds},
            {"first_seed", o.first_seed},
            {"profile", o.profile},
            {"shard", o.shard},
            {"variant", impl::variant_name(variant)},
            {"max_shrinks", o.max_shrinks},
            {"run", 0}};
  if (o.interleave) m["interleave"] = *o.interleave;
  if (!o.schedule.is_null()) m["schedule"] = o.schedule;
  return m;
}

std::optional<std::string> start_journal(const CampaignOptions& o, impl::Variant variant) {
  const fs::path dir = journal_dir(o.out_dir);
  std::error_code ec;
  fs::remove_all(dir, ec);
  fs::create_directories(dir, ec);
  if (ec) return dir.string() + ": cannot create the journal folder: " + ec.message();
  std::string error;
  if (!write_file_atomically((dir / "campaign.json").string(), campaign_manifest(o, variant).dump(2) + "\n", &error)) {
    return error;
  }
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
  std::optional<json> m = read_json(dir / "campaign.json", error);
  if (!m) return std::nullopt;
  JournalState s;
  try {
    if (m->value("format", std::string()) != "qdt-campaign-journal-1") throw std::runtime_error("/format");
    s.options.out_dir = out_dir;
    s.options.seeds = m->at("seeds").get<uint64_t>();
    s.options.first_seed = m->at("first_seed").get<uint64_t>();
    s.options.profile = m->at("profile").get<std::string>();
    s.options.shard = m->at("shard").get<std::string>();
    s.options.max_shrinks = m->at("max_shrinks").get<int>();
    if (m->contains("interleave")) s.options.interleave = m->at("interleave").get<bool>();
    if (m->contains("schedule")) s.options.schedule = m->at("schedule");
    const std::optional<impl::Variant> v = impl::parse_variant(m->at("variant").get<std::string>());
    if (!v) throw std::runtime_error("/variant");
    s.variant = *v;
    s.run = m->at("run").get<uint64_t>();
  } catch (const std::exception& e) {
    if (error) *error = (dir / "campaign.json").string() + ": " + e.what() + ": not a campaign this qdt can resume";
    return std::nullopt;
  }
  std::vector<fs::path> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("part-", 0) == 0 && entry.path().extension() == ".json") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  for (const fs::path& f : files) {
    std::optional<json> part = read_json(f, error);
    if (!part || !part->contains("seeds_done") || !part->contains("seed_hashes")) {
      if (error && part) *error = f.string() + ": /seeds_done: not a journal part";
      return std::nullopt;
    }
    try {
      for (const json& d : part->at("seeds_done")) s.done.emplace(d.at(0).get<std::string>(), d.at(1).get<uint64_t>());
      for (const json& failure : part->at("failures")) s.failure_files += failure.contains("file") ? 1 : 0;
    } catch (const std::exception&) {
      if (error) *error = f.string() + ": /seeds_done: not a journal part";
      return std::nullopt;
    }
    s.parts.push_back(std::move(*part));
  }
  return s;
}

json empty_share() {
  return {{"seeds_run", 0},         {"failed", 0},     {"pushes", 0},           {"virtual_ms", 0},
          {"out_of_time", false},   {"failures", json::array()}, {"seed_hashes", json::array()},
          {"metrics", json::object()}, {"seeds_done", json::array()}, {"coverage", json::object()}};
}

JournalWriter::JournalWriter(std::string out_dir, uint64_t run, uint64_t worker, const WallClock& wall)
    : dir_(out_dir.empty() ? "" : journal_dir(out_dir)), run_(run), worker_(worker), wall_(wall), delta_(empty_share()) {
  last_s_ = wall_();
}

void JournalWriter::checkpoint(bool now) {
  if (dir_.empty() || delta_["seeds_run"].get<uint64_t>() == 0) return;
  if (!now && wall_() - last_s_ < 1.0) return;
  char name[64];
  std::snprintf(name, sizeof name, "part-r%04llu-w%02llu-%06llu.json", static_cast<unsigned long long>(run_),
                static_cast<unsigned long long>(worker_), static_cast<unsigned long long>(sequence_++));
  std::string error;
  // A journal that cannot be written loses resumability, not results: say so and go on.
  if (!write_file_atomically((fs::path(dir_) / name).string(), delta_.dump() + "\n", &error)) {
    std::fprintf(stderr, "warning: journal: %s\n", error.c_str());
  }
  delta_ = empty_share();
  last_s_ = wall_();
}

}  // namespace qdt::sim
