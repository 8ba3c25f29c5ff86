#pragma once
// The control connection of docs/semantics.md §9.2: qdt's own session, holding no locks,
// that asks the server whether a session of the run waits for a lock held by
// another session of the run (pg_isolation_test_session_is_blocked, as
// PostgreSQL's isolation tester does). The only way a statement is judged
// blocked: slowness never is.
#include <string>
#include <vector>

#include "impl/storage/postgres/pg_connection.h"

namespace qdt::impl::postgres {

class LockProbe {
 public:
  // Takes a connection of its own (no other statement may run on it).
  explicit LockProbe(PgConnPtr conn);
  // Whether backend `pid` waits for a lock held by one of `pids_of_run`
  // (which may include `pid` itself). Throws ClusterError when the control
  // connection fails.
  bool is_blocked(int pid, const std::vector<int>& pids_of_run);
  // After is_blocked() said true: the lock the backend waits for, as
  // pg_locks names it (a backend waits for one lock at a time). A statement
  // granted one lock and then waiting for another waits for a different one.
  const std::string& last_wait() const { return last_wait_; }
  uint64_t checks() const { return checks_; }

 private:
  PgConnPtr conn_;
  uint64_t checks_ = 0;
  std::string last_wait_;
};

}  // namespace qdt::impl::postgres
