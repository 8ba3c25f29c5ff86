#include "impl/storage/postgres/interface_check.h"

#include <algorithm>
#include <cassert>

namespace qdt::impl::postgres {
namespace {

struct Expected {
  const char* name;
  std::vector<std::string> types;  // as regtype prints them
};

// One function of schema queen as the catalog describes it.
struct Candidate {
  std::vector<std::string> types;
  std::vector<std::string> names;
  int required = 0;  // arguments without a default
};

std::vector<std::string> split_array(std::string text) {
  // "{a,"b c"}" as text[] output: elements with spaces or commas are quoted.
  std::vector<std::string> out;
  if (text.size() < 2) return out;
  text = text.substr(1, text.size() - 2);
  std::string current;
  bool quoted = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') {
      quoted = !quoted;
    } else if (c == '\\' && quoted && i + 1 < text.size()) {
      current += text[++i];
    } else if (c == ',' && !quoted) {
      out.push_back(current);
      current.clear();
    } else {
      current += c;
    }
  }
  if (!text.empty()) out.push_back(current);
  return out;
}

std::vector<Candidate> candidates(PGconn* conn, const std::string& name) {
  const char* values[] = {name.c_str()};
  PgResultPtr r(PQexecParams(conn,
                             "SELECT array_to_string(p.proargtypes::regtype[], ','), coalesce(p.proargnames, '{}'), "
                             "p.pronargs - p.pronargdefaults "
                             "FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace "
                             "WHERE n.nspname = 'queen' AND p.proname = $1 ORDER BY p.oid",
                             1, nullptr, values, nullptr, nullptr, 0));
  if (PQresultStatus(r.get()) != PGRES_TUPLES_OK) {
    throw ClusterError(std::string("postgres: reading the catalog: ") + PQerrorMessage(conn));
  }
  std::vector<Candidate> out;
  for (int i = 0; i < PQntuples(r.get()); ++i) {
    // oidvector is 0-based, so its array text carries bounds: join it instead.
    std::vector<std::string> types;
    const std::string joined = PQgetvalue(r.get(), i, 0);
    for (size_t start = 0; !joined.empty() && start <= joined.size();) {
      const size_t comma = std::min(joined.find(',', start), joined.size());
      types.push_back(joined.substr(start, comma - start));
      start = comma + 1;
    }
    out.push_back({std::move(types), split_array(PQgetvalue(r.get(), i, 1)),
                   std::stoi(PQgetvalue(r.get(), i, 2))});
  }
  return out;
}

// A candidate callable with `types` positionally, if any.
const Candidate* callable(const std::vector<Candidate>& all, const std::vector<std::string>& types) {
  for (const Candidate& c : all) {
    if (c.types.size() < types.size() || c.required > static_cast<int>(types.size())) continue;
    bool same = true;
    for (size_t i = 0; i < types.size() && same; ++i) same = c.types[i] == types[i];
    if (same) return &c;
  }
  return nullptr;
}

bool takes(const Candidate& c, const std::string& argument, const std::string& type) {
  for (size_t i = 0; i < c.names.size() && i < c.types.size(); ++i) {
    if (c.names[i] == argument && c.types[i] == type) return true;
  }
  return false;
}

std::string signature(const Expected& e) {
  std::string out = std::string("queen.") + e.name + "(";
  for (size_t i = 0; i < e.types.size(); ++i) out += (i ? ", " : "") + e.types[i];
  return out + ")";
}

}  // namespace

const std::vector<std::string>& adapter_function_names() {
  static const std::vector<std::string> names = {
      "log_push_one_v1",       "log_push_multi_v1",     "log_segment_at_v1",    "log_txns_purge_step_v1",
      "log_retention_step_v1", "log_ack_by_hash_v1",    "qdt_read_segments_v1", "qdt_read_txns_v1",
  };
  return names;
}

const std::vector<std::string>& interface_tables() {
  static const std::vector<std::string> tables{"queen.queues", "queen.log_partitions", "queen.log_segments",
                                               "queen.log_txns", "queen.log_consumers"};
  return tables;
}

InterfaceCheck check_interface(PGconn* conn) {
  const std::string ts = "timestamp with time zone";
  const std::vector<Expected> required = {
      {"log_push_one_v1", {"text", "text", "integer", "bytea", "bigint", "bytea", "uuid", "integer"}},
      {"log_push_multi_v1", {"text[]", "text[]", "integer[]", "bytea[]", "bigint[]", "bytea[]"}},
      {"log_segment_at_v1", {"uuid", "bigint"}},
      {"log_txns_purge_step_v1", {"uuid", ts, "integer"}},
      {"log_retention_step_v1", {"uuid", ts, ts, "integer"}},
      {"log_ack_by_hash_v1", {"uuid", "text", "text", "bytea[]", "text[]"}},
  };
  InterfaceCheck out;
  for (const Expected& e : required) {
    const std::vector<Candidate> all = candidates(conn, e.name);
    const Candidate* found = callable(all, e.types);
    if (!found) {
      out.missing_required.push_back(signature(e));
      continue;
    }
    if (std::string(e.name) == "log_push_one_v1") out.window_guard_one = takes(*found, "p_window_assumed", "integer");
    if (std::string(e.name) == "log_push_multi_v1") {
      out.window_guard_multi = takes(*found, "p_windows_assumed", "integer[]");
    }
  }
  // Only what the contract says and the SQL cannot hear is named, with what
  // it switches off; qdt's own helper functions are not the interface's.
  if (!out.window_guard_one || !out.window_guard_multi) {
    out.missing_optional.push_back(
        std::string("no window guard (") +
        (!out.window_guard_one ? "log_push_one_v1 takes no p_window_assumed" : "") +
        (!out.window_guard_one && !out.window_guard_multi ? ", " : "") +
        (!out.window_guard_multi ? "log_push_multi_v1 takes no p_windows_assumed" : "") +
        "): storage cannot refuse a watermark the broker computed with a stale window (docs/semantics.md §2.11), "
        "so the window-guard variant's protection is off");
  }
  const Expected read_segments{"qdt_read_segments_v1", {"uuid", "bigint", "integer"}};
  const Expected read_txns{"qdt_read_txns_v1", {"uuid", "bigint", ts}};
  out.qdt_reads = true;
  for (const Expected& e : {read_segments, read_txns}) {
    // Without them the adapter reads the interface's tables instead: nothing is lost.
    if (!callable(candidates(conn, e.name), e.types)) out.qdt_reads = false;
  }
  for (const std::string& table : interface_tables()) {
    const char* values[] = {table.c_str()};
    PgResultPtr r(PQexecParams(conn, "SELECT pg_catalog.to_regclass($1) IS NOT NULL", 1, nullptr, values, nullptr,
                               nullptr, 0));
    if (PQresultStatus(r.get()) != PGRES_TUPLES_OK) {
      throw ClusterError(std::string("postgres: reading the catalog: ") + PQerrorMessage(conn));
    }
    if (PQgetvalue(r.get(), 0, 0)[0] == 't') out.tables_present.push_back(table);
  }
  return out;
}

}  // namespace qdt::impl::postgres
