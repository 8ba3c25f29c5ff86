#pragma once
// One storage client's libpq connection in non-blocking mode, stepped as
// PostgreSQL's isolation tester steps its sessions (docs/semantics.md §9.2).
//
// A statement is sent asynchronously; wait_until_done_or_blocked() then
// waits, in real time and outside virtual time, until the statement has
// returned or the LockProbe sees it waiting for a lock held by another
// session of the run. Blocked is a state, not an end: once some other
// session commits or rolls back, the world calls wait_until_done_or_blocked()
// again to let this one settle. Nothing here reads a clock that enters the
// trace: real time only paces the socket polls and bounds a hang.
//
// Not thread-safe: one fiber drives a session at a time.
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <variant>
#include <vector>

#include "impl/storage/postgres/lock_probe.h"
#include "impl/storage/postgres/pg_connection.h"
#include "impl/storage/storage_types.h"

namespace qdt::impl::postgres {

// A statement parameter: NULL without a value; `binary` sends the bytes as
// they are (bytea), else the value is text the server parses.
struct Param {
  std::optional<std::string> value;
  bool binary = false;
  static Param null() { return {}; }
  static Param text(std::string v) { return {std::move(v), false}; }
  static Param bytes(std::string v) { return {std::move(v), true}; }
};

// What a statement returned: rows in text format, or the server's error.
struct StatementOutcome {
  bool ok = false;
  std::string sqlstate;  // error only, e.g. "40P01"
  std::string message;   // error only
  std::vector<std::vector<std::optional<std::string>>> rows;
  const std::string& value(size_t row, size_t column) const;  // asserts not NULL
};

enum class Progress : uint8_t { returned, blocked };

struct WaitOptions {
  int64_t first_check_us = 200;     // the first lock probe after the send
  // The first probe when no other session of the run is in a transaction or
  // running a statement (PgRun::wait): none holds a lock then but a
  // session-level one, which qdt's own SQL never takes, so a probe after
  // first_check_us would only cost the server time the statement needs.
  int64_t first_check_us_others_idle = 5'000;
  int64_t check_interval_us_max = 10'000;
  int64_t hang_ms = 20'000;         // neither returned nor blocked by then: a hang
};

class Session {
 public:
  // Connects to `dbname` on the server named by `base`, in non-blocking mode.
  // `name` is the client's name (the trace's, never the backend pid).
  Session(const std::string& base, const std::string& dbname, std::string name);
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  const std::string& name() const { return name_; }
  int backend_pid() const { return backend_pid_; }
  // A connection that ended (another client may end a backend) carries no
  // statement, whatever was sent on it.
  bool in_flight() const { return in_flight_ && !closed(); }
  // Inside a transaction block (or a statement is running); a closed
  // connection is in none (the server rolled it back).
  bool in_transaction() const { return !closed() && PQtransactionStatus(conn_.get()) != PQTRANS_IDLE; }
  // The server closed the connection and libpq knows it.
  bool closed() const { return PQstatus(conn_.get()) == CONNECTION_BAD; }
  // The connection ended under a statement, seen by whichever fiber drained
  // it (another fiber's settle may be the one that saw it).
  bool lost() const { return lost_ || closed(); }

  // Sends one parameterised statement, or without parameters a simple query
  // that may hold several (a BEGIN with its settings). Throws StorageError when it cannot be
  // sent: on a connection already closed, a plain one (the statement never
  // left, and the server rolled back the transaction when its backend
  // ended); StorageError::connection_lost when the connection breaks while
  // sending.
  // A statement prepared before runs prepared; `may_prepare` false sends a
  // new one unprepared (see prepare()).
  void send(const std::string& sql, const std::vector<Param>& params = {}, bool may_prepare = true);

  // With no statement in flight, after the server ended the backend: reads
  // the connection until libpq sees it closed (the server's farewell is
  // dropped). Throws StorageError after `hang_ms`.
  void await_closed(int64_t hang_ms);

  // docs/semantics.md §9.2's loop: drain the socket (PQconsumeInput; PQgetResult only while
  // the connection is not busy); else wait on the socket until the next lock
  // probe, the first after first_check_us, then doubling up to
  // check_interval_us_max. No probe when `pids_of_run` names no other
  // backend: nothing of the run can block the statement then. Throws
  // StorageError on a hang or a lost connection (the statement may still
  // run: cancel() it).
  Progress wait_until_done_or_blocked(LockProbe& probe, const std::vector<int>& pids_of_run,
                                      const WaitOptions& options = {});

  // The outcome of the statement that returned; in_flight() becomes false.
  StatementOutcome take_outcome();

  // Asks the server to cancel the running statement (PQcancel); the statement
  // then returns with SQLSTATE 57014 at the next wait.
  void cancel();

  // send() + wait, for a statement no other session of the run can block;
  // throws StorageError on an error outcome or a block.
  StatementOutcome run(LockProbe& probe, const std::string& sql, const std::vector<Param>& params = {},
                       bool may_prepare = true);

 private:
  void drain_ready_results();
  // Prepares `sql` on this connection on its first use: a campaign sends the
  // same few statements thousands of times, and planning them again each time
  // is most of a simple statement's cost. Parsing takes a share lock on each
  // table named, so the caller prepares only while no other client of the run
  // is inside a transaction (none can hold a lock parsing waits for). The
  // statement's name, or the server's error as the statement's outcome.
  std::variant<const std::string*, StatementOutcome> prepare(const std::string& sql, int parameter_count);
  // Before conn_: the notice receiver reads it until the connection is closed.
  std::string statement_label_;  // what the server's notices on it are attributed to
  PgConnPtr conn_;
  std::string name_;
  int backend_pid_ = 0;
  bool in_flight_ = false;
  bool returned_ = false;
  bool lost_ = false;
  StatementOutcome outcome_;
  std::unordered_map<std::string, std::string> prepared_;
};

// What this process's storage clients asked of the server so far: statements
// sent by sessions, and the wall time spent waiting for the server (a
// session's wait_until_done_or_blocked, lock probes included, and the run's
// clock writes and resets, ServerWait). Read by qdt bench only: real time,
// so nothing that enters a trace, a hash or a decision may read it.
struct SessionTotals {
  uint64_t statements = 0;
  uint64_t transaction_bounds = 0;  // of them BEGIN, COMMIT and ROLLBACK
  uint64_t inspections = 0;         // of them the recorder's readings (the session named "inspector")
  double wait_s = 0;
};
SessionTotals session_totals();

// Adds the wall time from its construction to its destruction to
// session_totals().wait_s.
class ServerWait {
 public:
  ServerWait();
  ~ServerWait();
  ServerWait(const ServerWait&) = delete;
  ServerWait& operator=(const ServerWait&) = delete;

 private:
  int64_t start_ns_;
};

// The StorageError a failed statement becomes: deadlock, cancel and
// serialization failures as SQLITE_BUSY (5), the rest as SQLITE_ERROR (1),
// with the SQLSTATE in the text; a 40P01 is StorageError::deadlock.
StorageError storage_error(const StatementOutcome& outcome, const std::string& context);

// Bytes of a bytea in text format ("\x..." hex).
std::string decode_bytea(const std::string& text);

}  // namespace qdt::impl::postgres
