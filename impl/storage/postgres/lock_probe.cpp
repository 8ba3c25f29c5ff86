#include "impl/storage/postgres/lock_probe.h"

#include <cassert>
#include <string>

namespace qdt::impl::postgres {
namespace {
constexpr const char* kStatementName = "qdt_is_blocked";
}

LockProbe::LockProbe(PgConnPtr conn) : conn_(std::move(conn)) {
  assert(conn_ && PQstatus(conn_.get()) == CONNECTION_OK);
  PgResultPtr prepared(PQprepare(conn_.get(), kStatementName,
                                 "SELECT b, CASE WHEN b THEN (SELECT pg_catalog.string_agg(pg_catalog.concat_ws('/', l.locktype, "
                                 "l.database, l.relation, l.page, l.tuple, l.virtualxid, l.transactionid, l.classid, "
                                 "l.objid, l.objsubid, l.mode), ';') FROM pg_catalog.pg_locks l "
                                 "WHERE l.pid = $1::int AND NOT l.granted) END "
                                 "FROM pg_catalog.pg_isolation_test_session_is_blocked($1::int, $2::int[]) b", 2,
                                 nullptr));
  if (!prepared || PQresultStatus(prepared.get()) != PGRES_COMMAND_OK) {
    throw ClusterError(std::string("postgres: cannot prepare the lock probe: ") + PQerrorMessage(conn_.get()));
  }
}

bool LockProbe::is_blocked(int pid, const std::vector<int>& pids_of_run) {
  assert(pid > 0);
  const std::string pid_text = std::to_string(pid);
  std::string array = "{";
  for (size_t i = 0; i < pids_of_run.size(); ++i) {
    if (i) array += ',';
    array += std::to_string(pids_of_run[i]);
  }
  array += '}';
  const char* values[] = {pid_text.c_str(), array.c_str()};
  PgResultPtr result(PQexecPrepared(conn_.get(), kStatementName, 2, values, nullptr, nullptr, 0));
  ++checks_;
  if (!result || PQresultStatus(result.get()) != PGRES_TUPLES_OK || PQntuples(result.get()) != 1) {
    throw ClusterError(std::string("postgres: the lock probe failed: ") + PQerrorMessage(conn_.get()));
  }
  const bool blocked = PQgetvalue(result.get(), 0, 0)[0] == 't';
  last_wait_ = blocked ? std::string(PQgetvalue(result.get(), 0, 1)) : std::string();
  return blocked;
}

}  // namespace qdt::impl::postgres
