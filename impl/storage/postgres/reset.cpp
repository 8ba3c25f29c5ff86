#include "impl/storage/postgres/reset.h"

#include <cassert>
#include <map>
#include <set>

namespace qdt::impl::postgres {
namespace {

// Schemas a run never writes, or that qdt resets itself (the clock).
constexpr const char* kOwnSchemas =
    "n.nspname NOT IN ('pg_catalog', 'information_schema', 'qdt_clock', 'qdt_reset') "
    "AND n.nspname NOT LIKE 'pg\\_toast%' AND n.nspname NOT LIKE 'pg\\_temp\\_%'";

PgResultPtr rows(PGconn* conn, const std::string& sql) {
  PgResultPtr r(PQexec(conn, sql.c_str()));
  if (PQresultStatus(r.get()) != PGRES_TUPLES_OK) {
    throw ClusterError(std::string("postgres: reading the catalog for the reset: ") + PQerrorMessage(conn));
  }
  return r;
}

struct Table {
  std::string quoted;
  std::set<std::string> referenced;  // oids of the tables its foreign keys point at (itself excluded)
};

// Referencing tables before the tables they reference (depth-first, by oid
// order so the plan is the same on every run); false on a cycle.
bool order_referencing_first(const std::map<std::string, Table>& tables, std::vector<std::string>* out) {
  std::map<std::string, int> state;  // 1 visiting, 2 done
  std::vector<std::string> referenced_first;
  bool cycle = false;
  auto visit = [&](auto& self, const std::string& oid) -> void {
    int& s = state[oid];
    if (s == 2) return;
    if (s == 1) {
      cycle = true;
      return;
    }
    s = 1;
    for (const std::string& next : tables.at(oid).referenced) {
      if (tables.count(next)) self(self, next);
    }
    state[oid] = 2;
    referenced_first.push_back(oid);
  };
  for (const auto& [oid, table] : tables) visit(visit, oid);
  for (auto it = referenced_first.rbegin(); it != referenced_first.rend(); ++it) out->push_back(tables.at(*it).quoted);
  return !cycle;
}

}  // namespace

ResetPlan plan_reset(PGconn* conn) {
  std::map<std::string, Table> tables;
  {
    // Oids as zero-padded text keep the map in oid order.
    PgResultPtr r = rows(conn, std::string("SELECT lpad(c.oid::text, 10, '0'), pg_catalog.quote_ident(n.nspname) || '.' || "
                                           "pg_catalog.quote_ident(c.relname) FROM pg_catalog.pg_class c "
                                           "JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
                                           "WHERE c.relkind IN ('r', 'p') AND NOT c.relispartition AND ") +
                                   kOwnSchemas);
    for (int i = 0; i < PQntuples(r.get()); ++i) tables[PQgetvalue(r.get(), i, 0)].quoted = PQgetvalue(r.get(), i, 1);
  }
  {
    PgResultPtr r = rows(conn,
                         "SELECT lpad(conrelid::text, 10, '0'), lpad(confrelid::text, 10, '0') "
                         "FROM pg_catalog.pg_constraint WHERE contype = 'f' AND conrelid <> confrelid");
    for (int i = 0; i < PQntuples(r.get()); ++i) {
      auto it = tables.find(PQgetvalue(r.get(), i, 0));
      if (it != tables.end()) it->second.referenced.insert(PQgetvalue(r.get(), i, 1));
    }
  }
  ResetPlan plan;
  plan.foreign_key_cycle = !order_referencing_first(tables, &plan.tables);
  // A checkout's seed rows (a default tenant, a config row) are part of the
  // state a run starts from: copy them aside, restore them after each reset.
  exec_blocking(conn, "CREATE SCHEMA IF NOT EXISTS qdt_reset", "making the reset's schema");
  int copies = 0;
  for (auto it = plan.tables.rbegin(); it != plan.tables.rend(); ++it) {
    PgResultPtr any = rows(conn, "SELECT EXISTS (SELECT 1 FROM " + *it + ")");
    if (PQgetvalue(any.get(), 0, 0)[0] != 't') continue;
    // Generated columns cannot be written: name the others.
    const std::string copy = "qdt_reset.copy_" + std::to_string(copies++);
    exec_blocking(conn, "CREATE TABLE " + copy + " AS SELECT * FROM " + *it, "copying a table's seed rows");
    PgResultPtr columns = rows(conn,
                               "SELECT string_agg(pg_catalog.quote_ident(attname), ', ' ORDER BY attnum) "
                               "FROM pg_catalog.pg_attribute WHERE attrelid = '" +
                                   *it + "'::regclass AND attnum > 0 AND NOT attisdropped AND attgenerated = ''");
    const std::string list = PQgetvalue(columns.get(), 0, 0);
    plan.restore_statements.push_back("INSERT INTO " + *it + " (" + list + ") OVERRIDING SYSTEM VALUE SELECT " +
                                      list + " FROM " + copy);
  }
  PgResultPtr sequences =
      rows(conn,
           "SELECT pg_catalog.quote_literal(pg_catalog.quote_ident(schemaname) || '.' || "
           "pg_catalog.quote_ident(sequencename)), coalesce(last_value, start_value), last_value IS NOT NULL "
           "FROM pg_catalog.pg_sequences WHERE schemaname NOT IN ('pg_catalog', 'information_schema', "
           "'qdt_clock', 'qdt_reset') ORDER BY 1");
  for (int i = 0; i < PQntuples(sequences.get()); ++i) {
    plan.sequence_statements.push_back(std::string("SELECT pg_catalog.setval(") + PQgetvalue(sequences.get(), i, 0) +
                                       ", " + PQgetvalue(sequences.get(), i, 1) + ", " +
                                       (PQgetvalue(sequences.get(), i, 2)[0] == 't' ? "true" : "false") + ")");
  }
  return plan;
}

void reset_database(PGconn* conn, const ResetPlan& plan, bool truncate) {
  std::string sql = "BEGIN; ";
  if (!plan.tables.empty()) {
    if (truncate || plan.foreign_key_cycle) {
      sql += "TRUNCATE ";
      for (size_t i = 0; i < plan.tables.size(); ++i) sql += (i ? ", " : "") + plan.tables[i];
      sql += "; ";
    } else {
      for (const std::string& table : plan.tables) sql += "DELETE FROM " + table + "; ";
    }
  }
  for (const std::string& s : plan.restore_statements) sql += s + "; ";
  for (const std::string& s : plan.sequence_statements) sql += s + "; ";
  sql += "UPDATE qdt_clock.clock SET now_us = 0; SELECT pg_catalog.setval('qdt_clock.uuid_seq', 1, false); COMMIT";
  exec_blocking(conn, sql, "resetting the database");
}

DatabaseReset::DatabaseReset(ResetPlan plan, int64_t truncate_every)
    : plan_(std::move(plan)), truncate_every_(truncate_every) {
  assert(truncate_every_ >= 1);
}

void DatabaseReset::operator()(PGconn* conn) {
  ++resets_;
  reset_database(conn, plan_, resets_ % truncate_every_ == 0);
}

}  // namespace qdt::impl::postgres
