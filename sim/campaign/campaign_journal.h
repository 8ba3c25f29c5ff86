#pragma once
// A campaign's progress journal (qdt check --out DIR, --resume DIR), so that a
// campaign killed at any moment (SIGKILL, a preempted machine) loses no
// failure it reported and resumes without running a journaled seed again.
//
// DIR/journal/ holds campaign.json (the options that define the campaign:
// seeds, profile, shard, variant, ...) and part files, each written
// atomically (temporary file, fsync, rename, fsync of the folder): a part is
// a share summary of the seeds finished since the previous part, in the
// shape run_share returns, so resuming merges the journal's parts with the
// new run's exactly as workers' summaries merge (campaign_merge.h), and the
// campaign_digest is the one an uninterrupted run prints.
//
// A worker writes a part before it reports a failure (after the failure file
// itself is on disk) and otherwise at most once a second, so a kill loses at
// most the last second of passing seeds, which the resumed run runs again.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "impl/variant.h"
#include "sim/campaign/campaign_options.h"
#include "sim/world/pg_sql_choice.h"

namespace qdt::sim {

std::string journal_dir(const std::string& out_dir);

// Whether `dir` is a campaign's journal (a folder named journal whose
// campaign.json carries the journal format), so that replaying a campaign's
// --out folder can skip it: its files are the campaign's, not scenarios.
bool is_journal_dir(const std::string& dir);

// What defines a campaign: resuming takes these from the journal, not from
// the command line.
nlohmann::json campaign_manifest(const CampaignOptions& options, impl::Variant variant);

// What binds a journal part to its campaign: the options that define it (not
// the run count, nor --max-shrinks, which a resume lowers by the shrinks done), the variant, the engine, the SQL's content hash
// and a foreign cache module's (its content hash and caller; both empty for qdt's own cache). A
// part's checksum covers it, so a part of another campaign (another engine,
// SQL or variant) or a campaign.json relabelled after its parts were written
// fails the check.
std::string campaign_key(const CampaignOptions& options, impl::Variant variant, const std::string& sql_content_hash,
                         const std::string& cache_content_hash = "", const std::string& cache_caller = "");

// The highest run number a journal may hold: part names carry it.
inline constexpr uint64_t kJournalRunsMax = 9999;

// Starts a fresh journal for a new campaign: removes DIR/journal and writes
// campaign.json. The reason when it cannot.
std::optional<std::string> start_journal(const CampaignOptions& options, impl::Variant variant);

// A journal read back for --resume.
struct JournalState {
  CampaignOptions options;  // out_dir, seeds, first_seed, profile, shard, interleave, schedule, max_shrinks, engine
  impl::Variant variant = impl::Variant::none;
  // The SQL a PostgreSQL campaign loaded, by content (chosen_sql_content_hash;
  // empty: qdt's own), and the flags that named it, shown to the user only:
  // a journal is data and never chooses the code a resume loads.
  std::string sql_content_hash;
  std::string sql_named_as;
  // The same for a foreign cache module (chosen_cache_content_hash; empty:
  // qdt's own cache), the caller that drove it, and the flags that named it.
  std::string cache_content_hash;
  std::string cache_caller;
  std::string cache_named_as;
  uint64_t run = 0;                   // runs so far (the first is 0); part names carry it
  std::vector<nlohmann::json> parts;  // every part written, in name order
  std::set<std::pair<std::string, uint64_t>> done;  // (profile, seed) of every journaled seed
  uint64_t failure_files = 0;         // failures journaled with a file (counted against --max-shrinks)
};

// Reads DIR/journal; the reason (naming the file) when there is none or it is
// damaged. A part file that is not complete JSON cannot exist (parts are
// renamed into place), so a damaged one is an error rather than skipped.
std::optional<JournalState> read_journal(const std::string& out_dir, std::string* error);

// Marks the start of run `run` in campaign.json (so parts of a resumed run
// never reuse a name).
std::optional<std::string> mark_run(const std::string& out_dir, uint64_t run);

// One worker's writer: collects the seeds it finished since its last part.
class JournalWriter {
 public:
  // An empty `out_dir` journals nothing (the writer only keeps the totals).
  // `campaign_key`: campaign_key() of the campaign the parts belong to.
  JournalWriter(std::string out_dir, uint64_t run, uint64_t worker, const WallClock& wall, std::string campaign_key);

  // False for an empty `out_dir`: nothing to add to the delta (a campaign
  // without a journal kept a second copy of its every seed there).
  bool journaling() const { return !dir_.empty(); }
  // The delta since the last part, in run_share's shape; the caller adds to it.
  nlohmann::json& delta() { return delta_; }
  // Writes the delta as a part file when `now` or a second has passed since the last one.
  void checkpoint(bool now);

 private:
  std::string dir_;
  std::string key_;
  uint64_t run_ = 0, worker_ = 0, sequence_ = 0;
  WallClock wall_;
  double last_s_ = 0;
  nlohmann::json delta_;
};

// An empty share summary: what run_share returns for no seeds.
nlohmann::json empty_share();

}  // namespace qdt::sim
