#pragma once
// qdt explore SWEEP.json (docs/semantics.md §4): loads and checks the sweep, runs it
// (sim/study/sweep_run.h), and writes OUT/NAME.{json,md,html} (reports/sweep_report.h).
// Lives in the qdt executable, beside main.cpp: it joins sim and reports.
#include <cstdint>
#include <string>

#include "sim/campaign/campaign_options.h"

namespace qdt::sim {

struct ExploreOptions {
  std::string file;
  uint64_t jobs = 1;
  bool quiet = false;
  std::string out_dir = "reports/out";
  std::string commit;               // QDT_COMMIT, or ""
  std::string gnuplot = "gnuplot";  // QDT_GNUPLOT, or gnuplot on PATH
  std::string variant;              // --variant: overrides the sweep's "variant" ("" keeps it)
  bool no_expect = false;           // --no-expect: only the properties judge, over the sweep's "expectations"
  StorageEngineKind engine = StorageEngineKind::sqlite;  // --storage
  std::string pg_url;                                    // --pg-url
};

// The exit code (exit_codes.h): 2 and nothing written for a bad sweep.
int run_explore(const ExploreOptions& options, const WallClock& wall);

}  // namespace qdt::sim
