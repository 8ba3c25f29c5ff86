#pragma once
// qdt's own SQL, embedded at configure time so the binary needs no source
// tree: the virtual clock (clock.sql) and the queen-log-v1 implementation,
// laid out as a user's checkout of Queen's server/sql would be.
#include <string>
#include <vector>

namespace qdt::impl::postgres {

struct SqlFile {
  std::string name;  // relative to the sql folder: "schema.sql", "procedures/003_log_push.sql"
  std::string text;
};

// The qdt_clock schema: the virtual time and the functions that shadow
// clock_timestamp(), now(), statement_timestamp() and transaction_timestamp().
const SqlFile& clock_sql();
// schema.sql, then procedures/*.sql in file-name order.
const std::vector<SqlFile>& own_interface_sql();
// The lock design variants of qdt's own SQL (docs/semantics.md §7), each
// "variants/NAME.sql" replacing queen.qdt_lock_partition, NAME the
// variant's command-line name.
const std::vector<SqlFile>& own_variant_sql();

}  // namespace qdt::impl::postgres
