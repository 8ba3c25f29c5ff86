#pragma once
// Every run starts from the state the SQL left after loading (docs/semantics.md
// §9.1, §9.4): a database per worker, reset in place between runs in one
// transaction, which is two orders of magnitude cheaper than a database per
// run. What a reset restores is discovered from the catalog, never from a
// list of the interface's table names: a user's checkout holds other
// features' tables, with foreign keys to the interface's, and any of them
// may be written by a run (triggers, cascades).
#include <string>
#include <vector>

#include "impl/storage/postgres/pg_connection.h"

namespace qdt::impl::postgres {

// How to bring a database back to the state it had when the plan was made.
struct ResetPlan {
  // Every ordinary or partitioned table outside the system's and qdt's
  // clock's schemas, quoted "schema"."table", referencing tables first.
  std::vector<std::string> tables;
  // A cycle of foreign keys: DELETE in any order fails, so every reset is
  // one TRUNCATE of all tables.
  bool foreign_key_cycle = false;
  // Tables that held rows when the plan was made (a checkout's seed data):
  // restored from a copy after they are emptied, referenced tables first.
  std::vector<std::string> restore_statements;
  // Statements that put every sequence back where it was.
  std::vector<std::string> sequence_statements;
};

// Reads the catalog of the database `conn` is connected to and copies the
// rows a reset must put back into schema qdt_reset. Call it once, on a
// database no run has written yet.
ResetPlan plan_reset(PGconn* conn);

// Restores what `plan` describes, sets the virtual clock to zero and
// restarts qdt's gen_random_uuid() numbering (clock.sql), in one
// transaction. No other session of the database may hold a lock on the
// tables. DELETE, not TRUNCATE: on tables this small a TRUNCATE's new files
// cost far more than the rows; `truncate` drops the dead rows DELETE leaves
// (autovacuum is off), so callers pass it now and then.
void reset_database(PGconn* conn, const ResetPlan& plan, bool truncate = false);

// Resets one database between runs, truncating every `truncate_every`-th time.
class DatabaseReset {
 public:
  explicit DatabaseReset(ResetPlan plan, int64_t truncate_every = 256);
  void operator()(PGconn* conn);
  int64_t resets() const { return resets_; }
  const ResetPlan& plan() const { return plan_; }

 private:
  ResetPlan plan_;
  int64_t truncate_every_;
  int64_t resets_ = 0;
};

}  // namespace qdt::impl::postgres
