#pragma once
// qdt bench (docs/semantics.md §4): standard end-to-end workloads, each figure printed with
// the command that reproduces it, the commit and the machine; a table by
// default, the document with --json, and with --out DIR also DIR/bench.json
// and the push-cost chart DIR/push-cost.svg. Progress goes to stderr.
//
// Figure groups (--only GROUP runs one; a figure's command names its group):
//   items      simulated items per wall second, batch 1 and 10, cache on,
//              window 3600, checkers on (sim/bench/bench_workloads.h), and virtual
//              seconds per wall second;
//   floor      the storage floor (sim/bench/bench_floor.h): the items runs' and
//              default seeds' storage transactions replayed alone, a ceiling
//              for those figures, with the checkers' time beside it;
//   campaigns  seeds per second per profile, one process (`qdt check` run as
//              a child, its own --json figures), and checked mode's cost;
//   jobs       `qdt check --jobs 2` against --jobs 1;
//   window     one partition with a 10 000-row window: sidecar rows scanned
//              and pushes per second, cache on against off, checked mode off,
//              checked mode's cost, and cache bytes per resident hash;
//   growth     cost per push from 1 000 to 100 000 rows, cache on and off;
//   memory     peak resident memory of a campaign and of this process;
//   volume     a volume seed's cost per item beside an ordinary seed's;
//   cache      with --cache-impl or --cache-lib, a call into the module and
//              `default` campaigns on it beside qdt's own cache
//              (bench_cache.h; without a module the group adds nothing).
// With --storage postgres only the engines' comparison runs instead
// (sim/bench/bench_engines.h): the same figures on SQLite and PostgreSQL, their
// ratio, PostgreSQL's statements per second and its wait for the server.
// Benchmarks measure: nothing here fails on a slow figure. The exit code is
// 1 only when a workload's run failed a property (its figures are void).
// The document and its table: sim/bench/bench_report.h.
// Lives in the qdt executable, beside main.cpp: it joins sim and reports.
#include <CLI/CLI.hpp>

#include "sim/bench/bench_options.h"

#include <string>
#include <vector>

namespace qdt::sim {


const std::vector<std::string>& bench_groups();

// The `bench` subcommand and its flags, into `options`.
CLI::App* add_bench(CLI::App& app, BenchOptions& options);

// The exit code (exit_codes.h).
int run_bench(const BenchOptions& options);

}  // namespace qdt::sim
