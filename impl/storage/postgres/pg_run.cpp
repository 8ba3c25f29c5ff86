#include "impl/storage/postgres/pg_run.h"

#include "impl/storage/postgres/cpu_placement.h"
#include "impl/storage/postgres/pg_sql.h"

#include <algorithm>
#include <cassert>
#include <functional>

namespace qdt::impl::postgres {
namespace {
constexpr const char* kClockWriteName = "qdt_clock_write";
}

void prepare_clock_write(PGconn* control) {
  PgResultPtr prepared(PQprepare(control, kClockWriteName, "SELECT qdt_clock.set_us($1::bigint)", 1, nullptr));
  if (!prepared || PQresultStatus(prepared.get()) != PGRES_COMMAND_OK) {
    throw ClusterError(std::string("postgres: cannot prepare the clock write: ") + PQerrorMessage(control));
  }
}

PgRun::PgRun(PgRunShared shared, WaitOptions wait) : shared_(std::move(shared)), wait_(wait) {
  assert(shared_.probe && shared_.control && shared_.interface && shared_.reset);
}

bool PgRun::others_outside_transactions(const Session& session) const {
  for (const Member& m : members_) {
    if (m.session != &session && (m.session->in_flight() || m.session->in_transaction())) return false;
  }
  return true;
}

bool PgRun::another_blocked(const Session& session) const {
  for (const Member& m : members_) {
    if (m.session != &session && m.state == State::blocked) return true;
  }
  return false;
}

void PgRun::attach(Session& session) {
  for (const Member& m : members_) assert(m.session->name() != session.name() && "client names are unique in a run");
  Member m;
  m.session = &session;
  const auto at = std::lower_bound(members_.begin(), members_.end(), session.name(),
                                   [](const Member& a, const std::string& name) { return a.session->name() < name; });
  members_.insert(at, m);
  refresh_pids();
  if (shared_.cpu) place_process(session.backend_pid(), *shared_.cpu);
}

void PgRun::detach(Session& session) {
  members_.erase(std::remove_if(members_.begin(), members_.end(),
                                [&](const Member& m) { return m.session == &session; }),
                 members_.end());
  refresh_pids();
}

void PgRun::refresh_pids() {
  pids_.clear();
  for (const Member& m : members_) pids_.push_back(m.session->backend_pid());
}

PgRun::Member& PgRun::member(const Session& session) {
  for (Member& m : members_) {
    if (m.session == &session) return m;
  }
  assert(false && "the session is not attached to this run");
  __builtin_unreachable();
}

void PgRun::clock_before(const Session& session, const std::string& sql, bool reads_clock, int64_t now_ms) {
  bool others_running = false;
  for (const Member& m : members_) others_running |= m.session != &session && m.session->in_flight();
  if (others_running || (reads_clock && (!shared_.own_sql || sql::own_sql_may_read_clock(sql)))) {
    advance_clock(now_ms);
  } else {
    deferred_ms_ = std::max(deferred_ms_, now_ms);
  }
}

void PgRun::clock_before_inspection(const std::string& sql) {
  if (!shared_.own_sql || sql::own_sql_may_read_clock(sql)) advance_clock(deferred_ms_);
}

void PgRun::advance_clock(int64_t now_ms) {
  now_ms = std::max(now_ms, deferred_ms_);
  if (now_ms <= clock_ms_) return;
  const std::string now_us = std::to_string(now_ms * 1000);
  const char* values[] = {now_us.c_str()};
  const ServerWait waiting;
  PgResultPtr r(PQexecPrepared(shared_.control, kClockWriteName, 1, values, nullptr, nullptr, 0));
  if (!r || PQresultStatus(r.get()) != PGRES_TUPLES_OK) {
    throw StorageError::connection_lost(std::string("postgres: cannot write the virtual clock: ") +
                                        PQerrorMessage(shared_.control));
  }
  clock_ms_ = now_ms;
}

Progress PgRun::wait(Session& session) {
  Member& m = member(session);
  // Reachable from the server: a DBA (or a failover) may end the backend while
  // this fiber waited at the gate, and another fiber's settle saw it first.
  if (!session.in_flight() && session.lost()) {
    throw StorageError::connection_lost("postgres: session " + session.name() + " lost: the server ended its backend");
  }
  assert(session.in_flight());
  if (m.state == State::returned) return Progress::returned;
  WaitOptions options = wait_;
  if (others_outside_transactions(session)) {
    options.first_check_us = std::max(options.first_check_us,
                                      std::min(options.first_check_us_others_idle, options.check_interval_us_max));
  }
  const Progress p = session.wait_until_done_or_blocked(*shared_.probe, pids_, options);
  if (p == Progress::returned) {
    m.state = State::returned;
    return p;
  }
  const std::string& waiting_for = shared_.probe->last_wait();
  if (m.state != State::blocked || m.waiting_for != waiting_for) {
    m.state = State::blocked;
    m.waiting_for = waiting_for;
    m.blocked_seq = ++next_blocked_seq_;
    break_wait_cycle();
  }
  return m.state == State::returned ? Progress::returned : Progress::blocked;
}

void PgRun::taken(Session& session) { member(session).state = State::idle; }

void PgRun::settle(const Session* except) {
  for (Member& m : members_) {
    if (m.session == except || !m.session->in_flight() || m.state == State::returned) continue;
    wait(*m.session);
  }
}

bool PgRun::take_deadlock_victim(Session& session) {
  Member& m = member(session);
  const bool victim = m.victim;
  m.victim = false;
  return victim;
}

namespace {

// One row, one boolean column, on the blocking control connection.
bool control_bool(PGconn* control, const std::string& sql, const char* what) {
  PgResultPtr r(PQexec(control, sql.c_str()));
  if (!r || PQresultStatus(r.get()) != PGRES_TUPLES_OK || PQntuples(r.get()) != 1) {
    throw StorageError::connection_lost(std::string("postgres: cannot ") + what + ": " + PQerrorMessage(control));
  }
  return PQgetvalue(r.get(), 0, 0)[0] == 't';
}

}  // namespace

void PgRun::terminate_backend(Session& session) {
  Member& m = member(session);
  if (session.lost()) {
    throw StorageError::connection_lost("postgres: session " + session.name() +
                                        " lost before its fault: the server ended its backend");
  }
  assert(!session.in_flight() && m.state == State::idle);
  // Signalled only: the server's own wait for the exit sleeps in steps of
  // 100 ms. A backend closes its socket after it has rolled back and released
  // its locks, so the connection's end of stream is the exit that matters.
  const std::string sql = "SELECT pg_catalog.pg_terminate_backend(" + std::to_string(session.backend_pid()) + ")";
  if (!control_bool(shared_.control, sql, "terminate a backend")) {
    throw StorageError("postgres: client " + session.name() + "'s backend could not be signalled");
  }
  session.await_closed(wait_.hang_ms);
  // Whoever waited for its locks now holds them, or waits again.
  settle(&session);
}

void PgRun::cancel_lock_wait(Session& session) {
  Member& m = member(session);
  if (!session.in_flight() && session.lost()) {
    throw StorageError::connection_lost("postgres: session " + session.name() + " lost: the server ended its backend");
  }
  assert(session.in_flight() && m.state == State::blocked);
  const std::string sql = "SELECT pg_catalog.pg_cancel_backend(" + std::to_string(session.backend_pid()) + ")";
  if (!control_bool(shared_.control, sql, "cancel a statement")) {
    throw StorageError("postgres: client " + session.name() + "'s backend could not be signalled");
  }
  // Nothing else runs on the server meanwhile (every other client is idle
  // or waits), so the lock cannot be granted first: the statement returns
  // cancelled.
  while (session.wait_until_done_or_blocked(*shared_.probe, pids_, wait_) != Progress::returned) {
  }
  m.state = State::returned;
}

void PgRun::reset_rows() {
  for (const Member& m : members_) assert(!m.session->in_flight());
  const ServerWait waiting;
  (*shared_.reset)(shared_.control);
  clock_ms_ = 0;
  deferred_ms_ = 0;
}

std::vector<int> PgRun::blocking_pids(int pid) {
  const std::string sql = "SELECT unnest(pg_catalog.pg_blocking_pids(" + std::to_string(pid) + "))";
  const ServerWait waiting;
  PgResultPtr r(PQexec(shared_.control, sql.c_str()));
  if (!r || PQresultStatus(r.get()) != PGRES_TUPLES_OK) {
    throw StorageError::connection_lost(std::string("postgres: cannot read the wait-for graph: ") +
                                        PQerrorMessage(shared_.control));
  }
  std::vector<int> out;
  for (int i = 0; i < PQntuples(r.get()); ++i) out.push_back(std::stoi(PQgetvalue(r.get(), i, 0)));
  return out;
}

// Edges run between blocked sessions of the run only; a cycle among them can
// never resolve by itself (deadlock_timeout keeps PostgreSQL's detector away).
void PgRun::break_wait_cycle() {
  for (;;) {
    std::vector<size_t> blocked;
    for (size_t i = 0; i < members_.size(); ++i) {
      if (members_[i].state == State::blocked) blocked.push_back(i);
    }
    if (blocked.size() < 2) return;
    std::vector<std::vector<size_t>> edges(members_.size());
    for (size_t i : blocked) {
      for (int pid : blocking_pids(members_[i].session->backend_pid())) {
        for (size_t j : blocked) {
          if (j != i && members_[j].session->backend_pid() == pid) edges[i].push_back(j);
        }
      }
      std::sort(edges[i].begin(), edges[i].end());
      edges[i].erase(std::unique(edges[i].begin(), edges[i].end()), edges[i].end());
    }
    // Depth-first from each blocked session in name order; the first back edge closes a cycle.
    std::vector<size_t> cycle;
    std::vector<int> mark(members_.size(), 0);  // 0 new, 1 on the stack, 2 done
    std::vector<size_t> stack;
    std::function<bool(size_t)> visit = [&](size_t i) {
      mark[i] = 1;
      stack.push_back(i);
      for (size_t j : edges[i]) {
        if (mark[j] == 1) {
          cycle.assign(std::find(stack.begin(), stack.end(), j), stack.end());
          return true;
        }
        if (mark[j] == 0 && visit(j)) return true;
      }
      stack.pop_back();
      mark[i] = 2;
      return false;
    };
    for (size_t i : blocked) {
      if (mark[i] == 0 && visit(i)) break;
    }
    if (cycle.empty()) return;
    const auto victim_at = std::max_element(cycle.begin(), cycle.end(), [&](size_t a, size_t b) {
      return members_[a].blocked_seq < members_[b].blocked_seq;
    });
    std::rotate(cycle.begin(), victim_at, cycle.end());
    Member& victim = members_[cycle.front()];
    PgDeadlock record;
    record.cancelled = victim.session->name();
    for (size_t i : cycle) record.cycle.push_back(members_[i].session->name());
    victim.session->cancel();
    // The cancel lands at the server's next interrupt check: the statement
    // returns 57014 there, and the fiber that owns it rolls back.
    while (victim.session->wait_until_done_or_blocked(*shared_.probe, pids_, wait_) != Progress::returned) {
    }
    victim.state = State::returned;
    victim.victim = true;
    deadlocks_.push_back(std::move(record));
  }
}

}  // namespace qdt::impl::postgres
