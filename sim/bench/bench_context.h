#pragma once
// What every group of `qdt bench` shares while it runs: the options, the
// figures so far, the largest one-process campaign's peak memory, and
// whether a workload failed a property (its figures are then void).
#include <iostream>
#include <string>
#include <vector>

#include "sim/bench/bench_options.h"
#include "sim/bench/bench_report.h"

namespace qdt::sim {

struct Bench {
  const BenchOptions& options;
  std::vector<BenchFigure> figures;
  long child_peak_kb = 0;
  std::string child_peak_command;
  bool void_run = false;  // a workload failed a property

  std::string self_command(const std::string& group) const {
    return options.program + " bench --only " + group + (options.quick ? " --quick" : "");
  }
  void progress(const std::string& what) const { std::cerr << "[bench] " << what << "\n" << std::flush; }
  void add(BenchFigure f) { figures.push_back(std::move(f)); }
};

}  // namespace qdt::sim
