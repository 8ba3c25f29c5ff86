#pragma once
// `qdt bench --storage postgres`: the two storage engines side by side in
// one run and one process (docs/semantics.md §9): seeds per second of every
// profile PostgreSQL can run, and pushes per second of the items workload
// at batch 1 and 10, each on SQLite and on PostgreSQL with the ratio; on
// PostgreSQL also statements per second and the share of wall time spent
// waiting for the server (sim/world/pg_process.h, pg_server_totals).
// The server is started before (sim/world/pg_process.h).
#include "sim/bench/bench_context.h"

namespace qdt::sim {

void engines_group(Bench& b);

}  // namespace qdt::sim
