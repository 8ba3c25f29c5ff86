#include "impl/storage/postgres/session.h"

#include <poll.h>

#include <algorithm>
#include <cassert>
#include <chrono>

namespace qdt::impl::postgres {
namespace {

using Clock = std::chrono::steady_clock;

// One thread per process (session.h): plain counters.
SessionTotals totals;

StatementOutcome outcome_of(PGresult* result) {
  StatementOutcome out;
  const ExecStatusType status = PQresultStatus(result);
  if (status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK || status == PGRES_EMPTY_QUERY) {
    out.ok = true;
    const int rows = PQntuples(result);
    const int columns = PQnfields(result);
    out.rows.resize(rows);
    for (int r = 0; r < rows; ++r) {
      out.rows[r].reserve(columns);
      for (int c = 0; c < columns; ++c) {
        if (PQgetisnull(result, r, c)) {
          out.rows[r].emplace_back(std::nullopt);
        } else {
          out.rows[r].emplace_back(std::string(PQgetvalue(result, r, c), PQgetlength(result, r, c)));
        }
      }
    }
    return out;
  }
  const char* state = PQresultErrorField(result, PG_DIAG_SQLSTATE);
  const char* primary = PQresultErrorField(result, PG_DIAG_MESSAGE_PRIMARY);
  out.sqlstate = state ? state : "XX000";
  out.message = primary ? primary : PQresultErrorMessage(result);
  return out;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

SessionTotals session_totals() { return totals; }

ServerWait::ServerWait()
    : start_ns_(std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count()) {}

ServerWait::~ServerWait() {
  const int64_t end_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
  assert(end_ns >= start_ns_);
  totals.wait_s += static_cast<double>(end_ns - start_ns_) / 1e9;
}

const std::string& StatementOutcome::value(size_t row, size_t column) const {
  assert(row < rows.size() && column < rows[row].size());
  assert(rows[row][column].has_value());
  return *rows[row][column];
}

Session::Session(const std::string& base, const std::string& dbname, std::string name)
    : conn_(connect_blocking(base, dbname)), name_(std::move(name)) {
  backend_pid_ = PQbackendPID(conn_.get());
  assert(backend_pid_ > 0);
  attribute_notices(conn_.get(), &statement_label_);
  if (PQsetnonblocking(conn_.get(), 1) != 0) {
    throw ClusterError("postgres: cannot make session " + name_ + " non-blocking: " + PQerrorMessage(conn_.get()));
  }
}

namespace {

// What a notice during `sql` is attributed to: the interface function it
// calls ("queen.log_push_one_v1"), else its first word ("ROLLBACK").
std::string statement_label(const std::string& sql) {
  if (const size_t at = sql.find("queen."); at != std::string::npos) {
    const size_t end = sql.find_first_of("( ", at);
    return sql.substr(at, end == std::string::npos ? std::string::npos : end - at);
  }
  const size_t begin = sql.find_first_not_of(" \n");
  if (begin == std::string::npos) return "";
  const size_t end = sql.find_first_of(" ;\n", begin);
  return sql.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

}  // namespace

void Session::send(const std::string& sql, const std::vector<Param>& params, bool may_prepare) {
  assert(!in_flight());
  statement_label_ = statement_label(sql);
  if (closed()) {
    in_flight_ = false;
    throw StorageError("postgres: client " + name_ +
                           "'s connection was closed by the server before the statement was sent (the server "
                           "rolled its transaction back)",
                       10 /* SQLITE_IOERR */);
  }
  std::vector<const char*> values;
  std::vector<int> lengths;
  std::vector<int> formats;
  for (const Param& p : params) {
    values.push_back(p.value ? p.value->data() : nullptr);
    lengths.push_back(p.value ? static_cast<int>(p.value->size()) : 0);
    formats.push_back(p.binary ? 1 : 0);
  }
  const std::string* prepared = nullptr;
  if (auto known = prepared_.find(sql); known != prepared_.end()) {
    prepared = &known->second;
  } else if (!params.empty() && may_prepare) {
    auto named = prepare(sql, static_cast<int>(params.size()));
    if (auto* refused = std::get_if<StatementOutcome>(&named)) {
      // The statement is over before it ran: its outcome is the server's error.
      in_flight_ = true;
      returned_ = true;
      outcome_ = std::move(*refused);
      ++totals.statements;
      return;
    }
    prepared = std::get<const std::string*>(named);
  }
  const int sent = params.empty() ? PQsendQuery(conn_.get(), sql.c_str())
                   : prepared    ? PQsendQueryPrepared(conn_.get(), prepared->c_str(), static_cast<int>(params.size()),
                                                       values.data(), lengths.data(), formats.data(), 0)
                                 : PQsendQueryParams(conn_.get(), sql.c_str(), static_cast<int>(params.size()),
                                                     nullptr, values.data(), lengths.data(), formats.data(), 0);
  if (!sent) {
    throw StorageError::connection_lost("postgres: session " + name_ + " cannot send: " + PQerrorMessage(conn_.get()));
  }
  in_flight_ = true;
  returned_ = false;
  outcome_ = {};
  ++totals.statements;
  if (name_ == "inspector") {
    ++totals.inspections;
  } else if (sql.rfind("BEGIN", 0) == 0 || sql == "COMMIT" || sql.rfind("ROLLBACK", 0) == 0) {
    ++totals.transaction_bounds;
  }
  // A large statement may not fit the socket buffer at once.
  for (int flushed = PQflush(conn_.get()); flushed != 0; flushed = PQflush(conn_.get())) {
    if (flushed < 0) {
      in_flight_ = false;
      throw StorageError::connection_lost("postgres: session " + name_ + " cannot send: " +
                                          PQerrorMessage(conn_.get()));
    }
    pollfd fd{PQsocket(conn_.get()), POLLIN | POLLOUT, 0};
    poll(&fd, 1, 100);
    if ((fd.revents & POLLIN) && !PQconsumeInput(conn_.get())) {
      in_flight_ = false;
      throw StorageError::connection_lost("postgres: session " + name_ + " lost: " + PQerrorMessage(conn_.get()));
    }
  }
}

std::variant<const std::string*, StatementOutcome> Session::prepare(const std::string& sql, int parameter_count) {
  assert(!prepared_.contains(sql));
  std::string name = "qdt_" + std::to_string(prepared_.size());
  if (!PQsendPrepare(conn_.get(), name.c_str(), sql.c_str(), parameter_count, nullptr)) {
    throw StorageError::connection_lost("postgres: session " + name_ + " cannot send: " + PQerrorMessage(conn_.get()));
  }
  // No other client of the run holds a lock (see the header), so this wait
  // needs no lock probe; a connection outside the run (on a server of the
  // user's own) still may, which ends as a hang like a statement's.
  const int64_t hang_ms = WaitOptions{}.hang_ms;
  const auto deadline = Clock::now() + std::chrono::milliseconds(hang_ms);
  StatementOutcome refused;
  for (;;) {
    if (PQflush(conn_.get()) < 0 || !PQconsumeInput(conn_.get())) {
      throw StorageError::connection_lost("postgres: session " + name_ + " lost: " + PQerrorMessage(conn_.get()));
    }
    if (PQisBusy(conn_.get())) {
      if (Clock::now() > deadline) {
        throw StorageError("postgres: session " + name_ + ": preparing a statement took over " +
                           std::to_string(hang_ms) + " ms (hang; a lock held outside the run?)");
      }
      pollfd fd{PQsocket(conn_.get()), POLLIN, 0};
      poll(&fd, 1, 100);
      continue;
    }
    PGresult* raw = PQgetResult(conn_.get());
    if (!raw) break;
    PgResultPtr result(raw);
    if (PQresultStatus(raw) != PGRES_COMMAND_OK && refused.sqlstate.empty()) refused = outcome_of(raw);
  }
  if (!refused.sqlstate.empty()) return refused;
  return &prepared_.emplace(sql, std::move(name)).first->second;
}

// Collects every result that is complete; returned_ once PQgetResult says
// the statement is over (a null result).
void Session::drain_ready_results() {
  if (!PQconsumeInput(conn_.get())) {
    // The statement ended with its connection (another client may end a
    // backend): nothing is in flight any more, and the next send says closed.
    in_flight_ = false;
    returned_ = false;
    lost_ = true;
    throw StorageError::connection_lost("postgres: session " + name_ + " lost: " + PQerrorMessage(conn_.get()));
  }
  while (!PQisBusy(conn_.get())) {
    PGresult* raw = PQgetResult(conn_.get());
    if (!raw) {
      returned_ = true;
      return;
    }
    PgResultPtr result(raw);
    StatementOutcome next = outcome_of(raw);
    // The first error wins: a later result cannot undo it.
    if (outcome_.sqlstate.empty()) outcome_ = std::move(next);
  }
}

Progress Session::wait_until_done_or_blocked(LockProbe& probe, const std::vector<int>& pids_of_run,
                                             const WaitOptions& options) {
  assert(in_flight_);
  assert(options.first_check_us > 0 && options.check_interval_us_max >= options.first_check_us);
  const ServerWait waiting;
  const auto deadline = Clock::now() + std::chrono::milliseconds(options.hang_ms);
  // A backend never waits for a lock it holds itself.
  const bool others_in_run = std::any_of(pids_of_run.begin(), pids_of_run.end(),
                                         [&](int pid) { return pid != backend_pid_; });
  int64_t interval_us = others_in_run ? options.first_check_us : options.check_interval_us_max;
  auto next_check = Clock::now() + std::chrono::microseconds(interval_us);
  for (;;) {
    drain_ready_results();
    if (returned_) return Progress::returned;
    const auto now = Clock::now();
    if (now < next_check) {
      const auto wait_us = std::chrono::duration_cast<std::chrono::microseconds>(next_check - now).count();
      pollfd fd{PQsocket(conn_.get()), POLLIN, 0};
      // poll() counts milliseconds; ppoll() keeps the sub-millisecond first check.
      const timespec timeout{static_cast<time_t>(wait_us / 1'000'000), static_cast<long>((wait_us % 1'000'000) * 1000)};
      ppoll(&fd, 1, &timeout, nullptr);
      continue;  // readable or not, drain before judging
    }
    if (others_in_run && probe.is_blocked(backend_pid_, pids_of_run)) return Progress::blocked;
    if (now > deadline) {
      throw StorageError("postgres: session " + name_ + ": a statement neither returned nor waited for a lock in " +
                         std::to_string(options.hang_ms) + " ms (hang)");
    }
    interval_us = std::min(interval_us * 2, options.check_interval_us_max);
    next_check = Clock::now() + std::chrono::microseconds(interval_us);
  }
}

void Session::await_closed(int64_t hang_ms) {
  assert(!in_flight());
  // An idle connection hears the server's FATAL as a notice: counted, not
  // printed (connect_blocking's receiver).
  const auto deadline = Clock::now() + std::chrono::milliseconds(hang_ms);
  while (!closed()) {
    if (!PQconsumeInput(conn_.get())) break;  // end of stream: libpq marks it closed
    if (Clock::now() > deadline) {
      throw StorageError("postgres: client " + name_ + "'s connection stayed open " + std::to_string(hang_ms) +
                         " ms after its backend ended (hang)");
    }
    pollfd fd{PQsocket(conn_.get()), POLLIN, 0};
    poll(&fd, 1, 10);
  }
  assert(closed());
}

StatementOutcome Session::take_outcome() {
  assert(in_flight_ && returned_);
  in_flight_ = false;
  returned_ = false;
  return std::move(outcome_);
}

void Session::cancel() {
  PGcancel* handle = PQgetCancel(conn_.get());
  if (!handle) throw StorageError::connection_lost("postgres: session " + name_ + " cannot be cancelled");
  char error[256] = {};
  const int sent = PQcancel(handle, error, sizeof(error));
  PQfreeCancel(handle);
  if (!sent) throw StorageError(std::string("postgres: cancelling session ") + name_ + ": " + error);
}

StatementOutcome Session::run(LockProbe& probe, const std::string& sql, const std::vector<Param>& params,
                             bool may_prepare) {
  send(sql, params, may_prepare);
  if (wait_until_done_or_blocked(probe, {backend_pid_}) != Progress::returned) {
    throw StorageError("postgres: session " + name_ + " blocked where nothing may block it");
  }
  StatementOutcome out = take_outcome();
  if (!out.ok) throw storage_error(out, "session " + name_);
  return out;
}

StorageError storage_error(const StatementOutcome& outcome, const std::string& context) {
  assert(!outcome.ok);
  const std::string text = "postgres: " + context + ": " + outcome.message + " (SQLSTATE " + outcome.sqlstate + ")";
  // 08: connection exceptions; 57P01-57P03: the server ended the backend.
  if (outcome.sqlstate.rfind("08", 0) == 0 || outcome.sqlstate.rfind("57P0", 0) == 0) {
    return StorageError::connection_lost(text);
  }
  // PostgreSQL's own detector (only with a deadlock_timeout short enough to fire).
  if (outcome.sqlstate == "40P01") return StorageError::deadlock(text);
  const bool lock_conflict = outcome.sqlstate == "40P01" || outcome.sqlstate == "40001" ||
                             outcome.sqlstate == "57014" || outcome.sqlstate == "55P03";
  return StorageError(text, lock_conflict ? 5 /* SQLITE_BUSY */ : 1 /* SQLITE_ERROR */);
}

std::string decode_bytea(const std::string& text) {
  if (text.size() < 2 || text[0] != '\\' || text[1] != 'x' || text.size() % 2 != 0) {
    throw StorageError("postgres: a bytea value is not in hex format");
  }
  std::string out;
  out.reserve((text.size() - 2) / 2);
  for (size_t i = 2; i < text.size(); i += 2) {
    const int hi = hex_digit(text[i]);
    const int lo = hex_digit(text[i + 1]);
    if (hi < 0 || lo < 0) throw StorageError("postgres: a bytea value has a non-hex digit");
    out.push_back(static_cast<char>(hi * 16 + lo));
  }
  return out;
}

}  // namespace qdt::impl::postgres
