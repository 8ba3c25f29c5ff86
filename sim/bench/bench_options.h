#pragma once
// What `qdt bench` was asked to measure, as its command line set it.
#include <string>
#include <vector>

#include "sim/world/world_config.h"

namespace qdt::sim {

struct BenchOptions {
  bool quick = false;    // a short run: fewer seeds and pushes, growth to 10 000 rows
  bool as_json = false;
  std::string only;      // one group, or "" for all
  // --only items narrowed: these cases only (empty: all), this many rounds
  // including the cold first one (0: the default).
  std::vector<std::string> item_cases;
  int item_rounds = 0;
  std::string out_dir;   // "" writes no files
  std::string program = "qdt";      // how the user named qdt, for the commands printed
  std::string gnuplot = "gnuplot";  // QDT_GNUPLOT, or gnuplot on PATH
  // --storage postgres: the engines group alone (bench_command.h); --pg-url its server.
  StorageEngineKind engine = StorageEngineKind::sqlite;
  std::string pg_url;
};

}  // namespace qdt::sim
