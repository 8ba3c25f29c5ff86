#pragma once
// Every run starts from empty tables (docs/semantics.md §9.1): a database per worker,
// reset in place between runs in one transaction, which is two orders of
// magnitude cheaper than a database per run.
#include <string>
#include <vector>

#include "impl/storage/postgres/pg_connection.h"

namespace qdt::impl::postgres {

// The tables qdt's own queen-log-v1 SQL writes, as "schema.table".
const std::vector<std::string>& own_interface_tables();

// Empties `tables` ("schema.table", referencing tables first) and sets the
// virtual clock to zero, in one transaction. No other session of the
// database may hold a lock on them. DELETE, not TRUNCATE: on tables this
// small a TRUNCATE's new files cost far more than the rows; `truncate`
// drops the dead rows DELETE leaves (autovacuum is off), so callers pass it
// now and then.
void reset_database(PGconn* conn, const std::vector<std::string>& tables, bool truncate = false);

// Resets one database between runs, truncating every `truncate_every`-th time.
class DatabaseReset {
 public:
  explicit DatabaseReset(std::vector<std::string> tables, int64_t truncate_every = 256);
  void operator()(PGconn* conn);
  int64_t resets() const { return resets_; }

 private:
  std::vector<std::string> tables_;
  int64_t truncate_every_;
  int64_t resets_ = 0;
};

}  // namespace qdt::impl::postgres
