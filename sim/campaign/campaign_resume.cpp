#include "sim/campaign/campaign_resume.h"

#include <algorithm>
#include <iostream>
#include <utility>

#include "reports/display_text.h"
#include "sim/campaign/campaign_jobs.h"
#include "sim/campaign/campaign_journal.h"
#include "sim/scenario/engine_support.h"
#include "sim/world/cache_module_choice.h"
#include "sim/world/pg_sql_choice.h"

namespace qdt::sim {

using json = nlohmann::json;

namespace {

// Why the SQL this command names is not the SQL the journaled campaign ran
// (nullopt: it is), compared by content.
std::optional<std::string> sql_mismatch(const JournalState& state) {
  std::string named;
  try {
    named = chosen_sql_content_hash();
  } catch (const std::exception& e) {
    return e.what();
  }
  if (named == state.sql_content_hash) return std::nullopt;
  if (state.sql_content_hash.empty()) {
    return "the campaign ran on qdt's own SQL, not the SQL this command names (omit --sql-dir and --sql)";
  }
  // The journal's words are shown, never run: control and bidi characters go.
  const std::string flags = reports::terminal_text(state.sql_named_as);
  return "the campaign ran on SQL with content xxh128 " + state.sql_content_hash +
         (named.empty() ? ", which this command does not name: qdt loads only the SQL its command line names"
                        : ", not the SQL this command names (xxh128 " + named + ")") +
         "; the journal says it was named with:" + flags;
}

// Why the cache module this command names is not the one the journaled
// campaign ran (nullopt: it is), by content and caller.
std::optional<std::string> cache_mismatch(const JournalState& state) {
  const CacheModule* named = chosen_cache_module();
  const std::string hash = named ? named->content_hash : "";
  const std::string caller = named ? impl::cache_caller_name(named->caller) : "";
  if (hash == state.cache_content_hash && caller == state.cache_caller) return std::nullopt;
  if (state.cache_content_hash.empty()) {
    return std::string("the campaign ran on qdt's own cache, not the cache module this command names (omit --cache-impl and --cache-lib)");
  }
  // The journal's words are shown, never run: control and bidi characters go.
  const std::string flags = reports::terminal_text(state.cache_named_as);
  return "the campaign ran on the cache module with content xxh128 " + state.cache_content_hash + " driven by the " +
         reports::terminal_text(state.cache_caller) + " caller" +
         (named ? ", not the module and caller this command names (xxh128 " + hash + ", " + caller + ")"
                : ", which this command does not name: qdt loads only the module its command line names") +
         "; the journal says it was named with:" + flags;
}

}  // namespace

Outcome resume_campaign(CampaignOptions a, uint64_t jobs, const WallClock& wall, json* summary,
                        impl::Variant* variant_out, std::optional<StorageEngineKind> engine) {
  std::string error;
  std::optional<JournalState> state = read_journal(a.out_dir, &error);
  if (!state) {
    std::cerr << "error: --resume " << a.out_dir << ": " << error << "\nnothing was run (exit 2)\n";
    return Outcome::bad_input;
  }
  // Trace hashes differ between the engines: the other engine's seeds would
  // not make this campaign's digest.
  if (engine && *engine != state->options.engine) {
    std::cerr << "error: --resume " << a.out_dir << ": the campaign ran on " << storage_engine_name(state->options.engine)
              << ", --storage " << storage_engine_name(*engine) << " cannot continue it (omit --storage)\nnothing was run (exit 2)\n";
    return Outcome::bad_input;
  }
  // The SQL is the campaign's too, but only the command line names code to
  // load: the journal's record of it (by content) can only refuse a mismatch.
  if (const std::optional<std::string> mismatch = sql_mismatch(*state)) {
    std::cerr << "error: --resume " << a.out_dir << ": " << *mismatch << "\nnothing was run (exit 2)\n";
    return Outcome::bad_input;
  }
  if (const std::optional<std::string> mismatch = cache_mismatch(*state)) {
    std::cerr << "error: --resume " << a.out_dir << ": " << *mismatch << "\nnothing was run (exit 2)\n";
    return Outcome::bad_input;
  }
  // The campaign is the journal's; only how it runs (jobs, output, time budget) comes from the command line.
  CampaignOptions resumed = state->options;
  resumed.as_json = a.as_json;
  resumed.quiet = a.quiet;
  resumed.progress_terminal = a.progress_terminal;
  resumed.time_budget_s = a.time_budget_s;
  resumed.checked_mode = a.checked_mode;  // --unchecked: how it runs, not what (same digest)
  resumed.pg_url = a.pg_url;              // where it runs, not what
  resumed.journal = true;
  resumed.journal_run = state->run + 1;
  resumed.skip = std::move(state->done);
  resumed.max_shrinks = std::max(0, state->options.max_shrinks - static_cast<int>(state->failure_files));
  if (auto e = mark_run(a.out_dir, resumed.journal_run)) {
    std::cerr << "error: --resume " << a.out_dir << ": " << *e << "\nnothing was run (exit 2)\n";
    return Outcome::bad_input;
  }
  if (!a.quiet) {
    std::cerr << "resuming " << a.out_dir << ": " << resumed.skip.size() << " seeds journaled in "
              << state->parts.size() << " parts, run " << resumed.journal_run << "\n";
  }
  if (variant_out) *variant_out = state->variant;
  return run_campaign(resumed, state->variant, jobs, wall, summary, state->parts);
}

}  // namespace qdt::sim
