#pragma once
// qdt mutants (docs/semantics.md §4, 7): the campaign against every design variant, each
// stopped at its first failure, to say which variants the suite catches and
// within how many seeds. Per seed it reuses the campaign's core (check_seed,
// campaign.h) and, for the catching seed, its shrinking and failure file
// (failure_file.h); the report is mutants_report.h.
//
// Seeds run interleaved across profiles — seed 1 of every profile, then
// seed 2, ... — so "caught within N seeds" means the same for one profile or
// all. With jobs > 1 variants run in forked worker processes (at most `jobs`
// at a time, each variant in one process), so every result but wall time is
// the same for any number of jobs. Called from the main fiber of the command
// line's thread, before any world.
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "impl/variant.h"
#include "sim/campaign/campaign_options.h"
#include "sim/study/mutants_report.h"

namespace qdt::sim {

struct MutantsOptions {
  uint64_t seeds = 200;  // per profile
  uint64_t first_seed = 1;
  std::string profile = "all";           // a profile name, or "all"
  std::vector<std::string> variants;     // names; empty: every variant of the catalogue
  std::string out_dir = "reports/out/mutants";  // shrunk failures go to OUT_DIR/VARIANT/
  uint64_t jobs = 1;
  bool as_json = false;
  bool quiet = false;
  bool list = false;
  // --storage and --pg-url (docs/semantics.md §9). On PostgreSQL a named
  // variant it cannot run is refused; with none named, the catalogue's
  // variants it can run are run and the others named on stderr.
  StorageEngineKind engine = StorageEngineKind::sqlite;
  std::string pg_url;
  // When set, called with the document of --json (whether or not --json was
  // given) before the exit code is decided; false means it could not write
  // what it was asked to (qdt mutants --report), which is exit 2.
  std::function<bool(const nlohmann::json&)> on_document;
};

// The campaign against one variant, stopped at its first failure, which is
// shrunk and written below out_dir/VARIANT. `progress_prefix` starts the
// progress lines on stderr (none when options.quiet).
MutantResult run_mutant(const MutantsOptions& options, impl::Variant variant, const WallClock& wall,
                        const std::string& progress_prefix);

// The variants named by options.variants in catalogue order, duplicates
// dropped (every variant when none is named); an error message for an unknown
// name or `none`.
struct VariantSelection {
  std::vector<impl::Variant> variants;
  std::string error;
};
VariantSelection select_variants(const std::vector<std::string>& names);

// The whole of qdt mutants: validates, runs every selected variant (in
// options.jobs processes), prints the table or JSON and returns the exit code
// (sim/base/outcome.h).
Outcome run_mutants(const MutantsOptions& options, const WallClock& wall);

}  // namespace qdt::sim
