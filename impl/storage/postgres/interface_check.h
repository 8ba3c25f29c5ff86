#pragma once
// What the queen-log-v1 adapter checks at start (docs/semantics.md §9.4): every function it
// calls exists in schema `queen` and can be called with the argument types
// it passes; which optional parts are there (qdt's trailing window-guard
// parameters, qdt's own read functions); which of the interface's tables
// exist.
#include <string>
#include <vector>

#include "impl/storage/postgres/pg_connection.h"

namespace qdt::impl::postgres {

struct InterfaceCheck {
  // "queen.log_segment_at_v1(uuid, bigint)" for each function that is
  // missing or cannot be called with these types. Non-empty: the adapter
  // cannot run (exit 2).
  std::vector<std::string> missing_required;
  // Parts of qdt's contract the SQL cannot hear, each with what that
  // switches off, for the start-up note (qdt's own helpers never appear).
  std::vector<std::string> missing_optional;
  bool window_guard_one = false;    // log_push_one_v1 takes p_window_assumed
  bool window_guard_multi = false;  // log_push_multi_v1 takes p_windows_assumed
  bool qdt_reads = false;           // qdt_read_segments_v1 and qdt_read_txns_v1
  // The interface's tables that exist (interface_tables()); none: the SQL
  // is not an implementation at all.
  std::vector<std::string> tables_present;
};

InterfaceCheck check_interface(PGconn* conn);

// Every function of schema queen the adapter calls, required or optional:
// a foreign statement that fails to load while defining anything else is a
// warning, not an error (sql_loader.h).
const std::vector<std::string>& adapter_function_names();

// The tables of queen-log-v1 (docs/semantics.md §9.3), as "schema.table".
const std::vector<std::string>& interface_tables();

}  // namespace qdt::impl::postgres
