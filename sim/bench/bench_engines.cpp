#include "sim/bench/bench_engines.h"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <optional>
#include <string>

#include "sim/bench/bench_machine.h"
#include "sim/bench/bench_workloads.h"
#include "sim/campaign/campaign.h"
#include "sim/campaign/campaign_jobs.h"
#include "sim/campaign/workload.h"
#include "sim/world/pg_process.h"
#include "sim/world/pg_sql_choice.h"

namespace qdt::sim {
namespace {

constexpr double kPostgresOverSqliteSeedsTarget = 0.1;

using Steady = std::chrono::steady_clock;

// What one measured stretch cost: wall seconds, and the server's share of
// it (PostgreSQL only: statements sent and wall time waited).
struct Stretch {
  double wall_s = 0;
  uint64_t statements = 0;
  uint64_t transaction_bounds = 0;
  uint64_t inspections = 0;
  double wait_s = 0;
  double qdt_cpu_s = 0;                   // this process, every thread
  std::optional<double> server_cpu_s;     // the throwaway cluster's processes; nullopt for --pg-url
};

// CPU seconds of the throwaway cluster's processes so far (nullopt: a
// --pg-url server, whose processes qdt does not see).
std::optional<double> server_cpu_s() {
  const std::optional<int> pid = pg_server_pid();
  return pid ? process_tree_cpu_s(*pid) : std::nullopt;
}

template <typename F>
Stretch measure(F&& body) {
  const impl::postgres::SessionTotals before = pg_server_totals();
  const std::optional<double> server_before = server_cpu_s();
  const double cpu_before = self_cpu_s();
  const Steady::time_point start = Steady::now();
  body();
  Stretch out;
  out.wall_s = std::max(std::chrono::duration<double>(Steady::now() - start).count(), 1e-9);
  out.qdt_cpu_s = self_cpu_s() - cpu_before;
  const std::optional<double> server_after = server_cpu_s();
  if (server_before && server_after) out.server_cpu_s = std::max(*server_after - *server_before, 0.0);
  const impl::postgres::SessionTotals after = pg_server_totals();
  assert(after.statements >= before.statements && after.wait_s >= before.wait_s);
  out.statements = after.statements - before.statements;
  out.transaction_bounds = after.transaction_bounds - before.transaction_bounds;
  out.inspections = after.inspections - before.inspections;
  out.wait_s = after.wait_s - before.wait_s;
  return out;
}

std::string engine_suffix(StorageEngineKind engine) {
  return engine == StorageEngineKind::postgres ? "_postgres" : "_sqlite";
}

std::string percent(uint64_t part, uint64_t whole) {
  return std::to_string(whole == 0 ? 0 : (100 * part + whole / 2) / whole) + "%";
}

// The figures only PostgreSQL has: statements per second, where they go
// (so a reader sees where a PostgreSQL seed's time goes: nearly all of it
// is the server's, statement by statement) and the server's share of wall
// time. `seeds`: per-seed figures too.
void server_figures(Bench& b, const std::string& what, const Stretch& s, const std::string& cmd, const std::string& note,
                    uint64_t seeds = 0) {
  const std::string split = "of them " + percent(s.transaction_bounds, s.statements) + " BEGIN, COMMIT or ROLLBACK, " +
                            percent(s.inspections, s.statements) + " the recorder's inspector readings, " +
                            percent(s.statements - s.transaction_bounds - s.inspections, s.statements) +
                            " the work (interface calls and reads)";
  b.add(bench_figure("statements_per_s." + what + "_postgres", static_cast<double>(s.statements) / s.wall_s,
                     "statements/s", cmd, 0, 0, note + "; " + std::to_string(s.statements) + " statements, " + split));
  if (seeds > 0) {
    b.add(bench_figure("statements_per_seed." + what + "_postgres", static_cast<double>(s.statements) / seeds,
                       "statements", cmd, 0, 0, split));
  }
  b.add(bench_figure("server_wait_share." + what + "_postgres", s.wait_s / s.wall_s, "share", cmd, 0, 0,
                     "wall time spent waiting for the server (statements, lock probes, clock writes, resets) over "
                     "the wall time of the same run"));
  // With statements_per_seed, what a seed costs: one round trip per statement.
  b.add(bench_figure("server_wait_us_per_statement." + what + "_postgres",
                     s.wait_s * 1e6 / static_cast<double>(std::max<uint64_t>(s.statements, 1)), "us", cmd, 0, 0,
                     "the same wait over the statements sent: a round trip to the server and its work"));
}

// Where a seed's wall time goes, as CPU time: SQLite's seed (one process
// does it all), and a PostgreSQL seed split into qdt's own share and the
// server's (its processes, on the throwaway cluster only). The ceiling is
// the ratio PostgreSQL would reach if the server cost nothing: the SQLite
// seed's wall time over qdt's own CPU time per PostgreSQL seed.
// With the bare statement's cost on the server (`bare_server_s`, nullopt for
// a --pg-url server), a second ceiling: the ratio if every statement the
// seed sends cost the server no more than a `SELECT 1`.
void cpu_figures(Bench& b, const std::string& profile, const Stretch& lite, uint64_t lite_seeds, const Stretch& pg,
                 uint64_t pg_seeds, const std::string& cmd, std::optional<double> bare_server_s) {
  const double lite_wall_per_seed_s = lite.wall_s / static_cast<double>(lite_seeds);
  const double qdt_per_seed_s = pg.qdt_cpu_s / static_cast<double>(pg_seeds);
  b.add(bench_figure("cpu_ms_per_seed." + profile + "_sqlite", lite.qdt_cpu_s * 1e3 / static_cast<double>(lite_seeds),
                     "ms", cmd, 0, 0, "this process's CPU time over the SQLite seeds"));
  b.add(bench_figure("cpu_ms_per_seed." + profile + "_postgres_qdt", qdt_per_seed_s * 1e3, "ms", cmd, 0, 0,
                     "this process's CPU time over the PostgreSQL seeds: the world, the checkers, libpq and its system calls"));
  if (pg.server_cpu_s) {
    b.add(bench_figure("cpu_ms_per_seed." + profile + "_postgres_server",
                       *pg.server_cpu_s * 1e3 / static_cast<double>(pg_seeds), "ms", cmd, 0, 0,
                       "the throwaway cluster's processes' CPU time over the same seeds"));
  }
  b.add(bench_figure("postgres_over_sqlite.ceiling_" + profile, lite_wall_per_seed_s / std::max(qdt_per_seed_s, 1e-9),
                     "x", cmd, 0, 0,
                     "derived: the ratio if the server took no time, SQLite's wall time per seed over qdt's own CPU time "
                     "per PostgreSQL seed"));
  if (bare_server_s) {
    const double floor_s =
        qdt_per_seed_s + static_cast<double>(pg.statements) / static_cast<double>(pg_seeds) * *bare_server_s;
    b.add(bench_figure("postgres_over_sqlite.ceiling_bare_" + profile, lite_wall_per_seed_s / std::max(floor_s, 1e-9),
                       "x", cmd, 0, 0,
                       "derived: the ratio if each statement of the seed cost the server what a prepared SELECT 1 "
                       "costs it, over qdt's own CPU time per PostgreSQL seed plus that"));
  }
}

// What one statement costs when it does nothing: a prepared SELECT 1 on a
// connection of the bench's own, one round trip at a time, the server's CPU
// time and this process's (nullopt for a --pg-url server).
std::optional<double> bare_statement_figures(Bench& b, const std::string& cmd) {
  if (!pg_server_pid()) return std::nullopt;
  const int count = b.options.quick ? 500 : 5000;
  b.progress("engines: " + std::to_string(count) + " bare statements (SELECT 1)");
  BareStatements bare;
  bare.run(count / 10);  // warm: the statement planned, the caches filled
  const Stretch s = measure([&] { bare.run(count); });
  if (!s.server_cpu_s) return std::nullopt;
  const double server_s = *s.server_cpu_s / count;
  const std::string note = std::to_string(count) + " prepared SELECT 1, one round trip each, on a connection whose "
                           "backend shares the bench's CPU";
  b.add(bench_figure("server_cpu_us_per_bare_statement_postgres", server_s * 1e6, "us", cmd, 0, 0,
                     note + ": the server's processes' CPU time per statement"));
  b.add(bench_figure("qdt_cpu_us_per_bare_statement_postgres", s.qdt_cpu_s / count * 1e6, "us", cmd, 0, 0,
                     note + ": this process's CPU time per statement (libpq and its system calls)"));
  return server_s;
}

// `seeds` seeds of `profile` on `engine`, one after the other in this
// process, each judged as a campaign judges it (check_seed).
Stretch run_seeds(Bench& b, const std::string& profile, uint64_t seeds, StorageEngineKind engine) {
  return measure([&] {
    for (uint64_t seed = 1; seed <= seeds; ++seed) {
      const SeedOutcome o = check_seed(seed, profile, impl::Variant::none, std::nullopt, nullptr, true, engine);
      if (!o.passed) {
        std::cerr << "[bench] " << profile << " seed " << seed << " failed " << o.signature << " on "
                  << (engine == StorageEngineKind::postgres ? "postgres" : "sqlite") << ": its figures are void\n";
        b.void_run = true;
      }
    }
  });
}

Stretch run_pushes(Bench& b, int batch, int requests, StorageEngineKind engine) {
  PushWorkload w;
  w.batch = batch;
  w.requests = requests;
  w.checked_mode = false;  // a throughput figure, as the items group's
  w.engine = engine;
  PushFigures figures;
  Stretch s = measure([&] { figures = run_push_workload(w); });
  if (figures.failures > 0) {
    std::cerr << "[bench] the push workload at batch " << batch << " failed a property: its figures are void\n";
    b.void_run = true;
  }
  s.wall_s = std::max(figures.run_wall_s, 1e-9);  // the run alone, not the checkers over its history
  return s;
}

}  // namespace

void engines_group(Bench& b) {
  const std::string cmd = b.options.program + " bench" + storage_flags(StorageEngineKind::postgres) + (b.options.quick ? " --quick" : "");
  // PostgreSQL runs a seed hundreds of times slower than SQLite: SQLite's
  // seeds are more (the same first seeds and more), so its rate is not a few
  // milliseconds' reading.
  const uint64_t pg_seeds = b.options.quick ? 2 : 20;
  const uint64_t sqlite_seeds = b.options.quick ? 30 : 300;
  // A first seed on each engine, not reported: PostgreSQL's connections open
  // (a server process each) and both engines' caches fill.
  b.progress("engines: warming both engines up with default seed 1");
  run_seeds(b, "default", 1, StorageEngineKind::sqlite);
  run_seeds(b, "default", 1, StorageEngineKind::postgres);
  const std::optional<double> bare_server_s = bare_statement_figures(b, cmd);
  for (const std::string& profile : profile_names()) {
    if (const auto refusal = engine_refuses_campaign(StorageEngineKind::postgres, profile, impl::Variant::none)) {
      b.progress("engines: " + profile + " left out: " + *refusal);
      continue;
    }
    b.progress("engines: " + profile + ", " + std::to_string(sqlite_seeds) + " seeds on SQLite, " +
               std::to_string(pg_seeds) + " on PostgreSQL");
    const Stretch lite = run_seeds(b, profile, sqlite_seeds, StorageEngineKind::sqlite);
    const Stretch pg = run_seeds(b, profile, pg_seeds, StorageEngineKind::postgres);
    const double lite_rate = static_cast<double>(sqlite_seeds) / lite.wall_s;
    const double pg_rate = static_cast<double>(pg_seeds) / pg.wall_s;
    const std::string note = "one process, seeds 1.." + std::to_string(pg_seeds) + " judged as a campaign judges them";
    b.add(bench_figure("seeds_per_s." + profile + "_sqlite", lite_rate, "seeds/s", cmd, 0, 0,
                       "one process, seeds 1.." + std::to_string(sqlite_seeds) + " judged as a campaign judges them"));
    b.add(bench_figure("seeds_per_s." + profile + "_postgres", pg_rate, "seeds/s", cmd, 0, 0, note));
    // The goal PostgreSQL campaigns are held to (docs/benchmarks.md): a tenth of SQLite's seeds/s.
    b.add(bench_figure("postgres_over_sqlite.seeds_per_s_" + profile, pg_rate / std::max(lite_rate, 1e-9), "x", cmd,
                       '>', kPostgresOverSqliteSeedsTarget));
    server_figures(b, profile, pg, cmd, note, pg_seeds);
    cpu_figures(b, profile, lite, sqlite_seeds, pg, pg_seeds, cmd, bare_server_s);
  }
  // The items workload (8 producers, 8 partitions, cache on, checked mode
  // off), fewer requests than the items group: PostgreSQL's pushes cost
  // milliseconds. A first small run of each engine warms it (connections
  // opened, caches filled) and is not reported.
  const int requests = b.options.quick ? 10 : 50;
  for (const int batch : {1, 10}) {
    const std::string name = "batch" + std::to_string(batch);
    b.progress("engines: push workload " + name + ", " + std::to_string(requests) + " requests per producer, each engine");
    for (const StorageEngineKind engine : {StorageEngineKind::sqlite, StorageEngineKind::postgres}) {
      run_pushes(b, batch, 2, engine);
    }
    const Stretch lite = run_pushes(b, batch, requests, StorageEngineKind::sqlite);
    const Stretch pg = run_pushes(b, batch, requests, StorageEngineKind::postgres);
    const double pushes = 8.0 * requests;  // PushWorkload's producers
    const std::string note = "8 producers x " + std::to_string(requests) + " requests of " + std::to_string(batch) +
                             " items, cache on, checked mode off; the world's run, not the checkers";
    for (const auto& [engine, s] : {std::pair{StorageEngineKind::sqlite, lite}, std::pair{StorageEngineKind::postgres, pg}}) {
      b.add(bench_figure("pushes_per_s." + name + engine_suffix(engine), pushes / s.wall_s, "pushes/s", cmd, 0, 0, note));
    }
    b.add(bench_figure("postgres_over_sqlite.pushes_per_s_" + name, lite.wall_s / pg.wall_s, "x", cmd));
    server_figures(b, name, pg, cmd, note);
  }
}

}  // namespace qdt::sim
