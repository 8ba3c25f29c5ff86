#pragma once
// The PostgreSQL backend of this process (docs/semantics.md §9.1): one server
// per qdt process, one database per process that runs worlds, one run that
// every world of the process resets in place, and the run's sessions kept
// open from one world to the next.
//
// Why sessions are kept: opening one costs a server process (tens of
// milliseconds here), several per world. Why results cannot depend on it: a
// session carries no state between transactions (unnamed statements only),
// a world's sessions are named by its shape (admin-0, b0-1, ...) and the run
// settles only sessions with a statement in flight, in name order; every
// world starts with PgRun::reset_rows() (empty tables, the clock at zero).
// A session left inside a transaction is closed, not kept; one whose
// backend a fault ended reopens itself at its next use (PgStorage). A kept session
// reaches its world's clock and gate through forwarders rebound at every
// lease, as a pooled SQLite connection does (sim/world/storage_pool.h).
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
// On a cluster of its own, the process's thread and its backends are kept
// on one CPU, and forked workers running at once on different CPUs
// (impl/storage/postgres/cpu_placement.h): real time only.
//
// One process, one thread, one world on PostgreSQL at a time.
#include <cstdint>
#include <optional>
#include <string>

#include "impl/storage/engine.h"
#include "impl/storage/postgres/pg_backend.h"
#include "impl/storage/postgres/pg_connection.h"

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
// Whether start_pg_process() ran in this process tree.
bool pg_process_started();
// start_pg_process(), a server problem returned as its reason (nullopt: started),
// for the commands that turn it into an exit 2 before anything runs.
std::optional<std::string> start_pg_process_problem(const PgProcessOptions& options);

// The process's run, emptied for a new world (no session of it may be
// leased). Throws std::logic_error when start_pg_process() never ran in this
// process tree, ClusterError when a forked worker cannot reach the server.
// The database holds the SQL of `variant` (PgBackend::use_variant).
impl::postgres::PgRun& begin_pg_world(impl::Variant variant);

// A session of the run named `name`, its statements crossing `gate` and
// reading `clock`: a kept one rebound, or a new one. Give it back with
// give_back_pg_session() (StorageReturn does).
impl::StorageEngine* lease_pg_session(const std::string& name, impl::StorageClock& clock, impl::StatementGate* gate,
                                      const impl::postgres::PgStorageOptions& options);
void give_back_pg_session(impl::StorageEngine* session);

// Statements this process's storage clients sent and the wall time it waited for the
// server so far (impl/storage/postgres/session.h): for qdt bench, never for a
// trace, a hash or a decision.
impl::postgres::SessionTotals pg_server_totals();

// What the server said besides answers on this process's connections so far
// (NOTICEs, WARNINGs, each attributed to a file and line or a statement),
// and what the loaded SQL cannot express (the interface's missing parts):
// the run's data, for summaries and pages, never echoed raw.
const impl::postgres::ServerNotices& pg_server_messages();
std::vector<std::string> pg_sql_cannot_express();

// A connection of qdt bench's own to this process's throwaway cluster, its
// backend on the calling thread's CPU as the run's are, that sends a
// prepared `SELECT 1` one round trip at a time: what a statement costs the
// server and the client when it does nothing. Throws
// impl::postgres::ClusterError; std::logic_error without a throwaway cluster.
class BareStatements {
 public:
  BareStatements();
  // `count` statements, each waited for; throws ClusterError if one fails.
  void run(int count);

 private:
  impl::postgres::PgConnPtr conn_;
};

// The server's first process when this process started it (the throwaway
// cluster), for qdt bench to read the server's CPU time; nullopt for a
// --pg-url server or a forked worker.
std::optional<int> pg_server_pid();

}  // namespace qdt::sim
