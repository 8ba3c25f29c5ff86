#pragma once
// The PostgreSQL backend of this process (docs/semantics.md §9.1): one server
// per qdt process, one database per process that runs worlds, reset in place
// by every world (PgBackend::begin_run).
//
// The command line starts it before anything runs, so a server problem is
// an exit 2 with its reason, not a failed run. A forked campaign worker
// (sim/base/fork_pool.h) must not use its parent's backend: the libpq
// sockets are the parent's, and closing them would end the parent's
// sessions. The child leaves that object untouched, never destroyed, and
// makes its own at first use, attached to the parent's server as an
// external one (so it never stops it: only the process that started a
// cluster stops it, impl/storage/postgres/cluster.h).
//
// One process, one thread: campaign workers are processes.
#include <cstdint>
#include <string>

#include "impl/storage/postgres/pg_backend.h"

namespace qdt::sim {

struct PgProcessOptions {
  std::string pg_url;  // --pg-url; empty: a throwaway local cluster
  // Processes that will run worlds on the server at once (campaign workers),
  // for the server's max_connections.
  int64_t processes = 1;
};

// Starts (or attaches to) the server and makes this process's database.
// Throws impl::postgres::ClusterError with the reason. Once per process.
void start_pg_process(const PgProcessOptions& options);

// This process's backend: the one start_pg_process() made, or in a forked
// worker, its own attached to the same server, made now. Throws
// std::logic_error when start_pg_process() never ran in this process tree.
impl::postgres::PgBackend& pg_process_backend();

}  // namespace qdt::sim
