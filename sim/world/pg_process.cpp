#include "sim/world/pg_process.h"

#include <unistd.h>

#include <cassert>
#include <iostream>
#include <map>
#include <memory>
#include <stdexcept>

#include "impl/storage/postgres/cpu_placement.h"
#include "sim/base/fork_pool.h"
#include "sim/world/pg_sql_choice.h"
#include "sim/world/world_config.h"

namespace qdt::sim {
namespace {

// Every storage client a world may open (two per broker, the admin's two,
// retention's, the inspector) and the backend's own control and probe.
constexpr int64_t kConnectionsPerProcess = 2 * kMaxBrokers + 2 + 1 + 1 + 4;

struct ForwardingClock : impl::StorageClock {
  impl::StorageClock* target = nullptr;
  int64_t now_ms() override {
    assert(target != nullptr && "a kept session read the clock outside a lease");
    return target->now_ms();
  }
};

// The default gate's answers when the world passes none (the inspector).
struct ForwardingGate : impl::StatementGate {
  impl::StatementGate* target = nullptr;
  int before_statement(impl::TxnKind txn, int64_t index, impl::StatementKind kind) override {
    return target ? target->before_statement(txn, index, kind) : 0;
  }
  bool wait_busy(impl::TxnKind txn, uint32_t attempt) override {
    return target ? target->wait_busy(txn, attempt) : false;
  }
  bool wait_turn(impl::TxnKind txn, uint32_t attempt) override {
    return target ? target->wait_turn(txn, attempt) : false;
  }
  int before_server_statement(impl::TxnKind txn, int64_t index, impl::StatementKind kind,
                              impl::ServerBackend& backend) override {
    return target ? target->before_server_statement(txn, index, kind, backend) : 0;
  }
  bool wait_busy_on_server(impl::TxnKind txn, uint32_t attempt, impl::ServerBackend& backend) override {
    return target ? target->wait_busy_on_server(txn, attempt, backend) : false;
  }
  void on_locked(impl::TxnKind txn) override {
    if (target) target->on_locked(txn);
  }
  void on_ended(impl::TxnKind txn, bool committed) override {
    if (target) target->on_ended(txn, committed);
  }
};

struct Kept {
  ForwardingClock clock;
  ForwardingGate gate;
  impl::postgres::PgStorageOptions options;
  std::unique_ptr<impl::postgres::PgStorage> storage;  // after the forwarders: destroyed first
  bool leased = false;
};

struct Holder {
  bool started = false;
  // The server a forked worker attaches to: the URL, or the local cluster's conninfo.
  std::string server;
  // The server is a local cluster this process tree started: its processes
  // are placed beside the worker that drives them (cpu_placement.h).
  bool own_cluster = false;
  // The interface SQL (pg_sql_choice.h), read once: a forked worker loads the same text.
  std::vector<impl::postgres::SqlFile> sql;
  pid_t pid = 0;  // the process `backend` belongs to
  std::unique_ptr<impl::postgres::PgBackend> backend;
  std::unique_ptr<impl::postgres::PgRun> run;
  std::map<std::string, std::unique_ptr<Kept>> sessions;  // stable addresses: the forwarders are the sessions' own
  ~Holder() {
    // A forked worker's copies are its parent's: their connections must not be closed here.
    if (pid != ::getpid()) forget();
    sessions.clear();  // detached before the run goes
    run.reset();
  }
  void forget() {
    for (auto& [name, kept] : sessions) static_cast<void>(kept.release());
    sessions.clear();
    static_cast<void>(run.release());
    static_cast<void>(backend.release());
  }
};

Holder& holder() {
  static Holder h;
  return h;
}

bool same_policies(const impl::postgres::PgStorageOptions& a, const impl::postgres::PgStorageOptions& b) {
  return a.checked_mode == b.checked_mode && a.variant == b.variant;
}

impl::postgres::PgBackend& backend() {
  Holder& h = holder();
  if (!h.started) throw std::logic_error("a PostgreSQL world needs start_pg_process() first");
  if (h.pid != ::getpid()) {
    // A forked worker: the parent's objects are left as they are (see the header).
    h.forget();
    impl::postgres::PgBackendOptions options;
    options.pg_url = h.server;
    options.sql = h.sql;
    // Workers running at once take CPUs of their own, each with its backends.
    if (h.own_cluster) options.cpu = impl::postgres::cpu_for_slot(forked_slot());
    h.backend = std::make_unique<impl::postgres::PgBackend>(options);
    h.pid = ::getpid();
  }
  return *h.backend;
}

}  // namespace

void start_pg_process(const PgProcessOptions& options) {
  Holder& h = holder();
  if (h.started) throw std::logic_error("start_pg_process: already started");
  impl::postgres::PgBackendOptions backend;
  backend.pg_url = options.pg_url;
  backend.cluster.max_connections = kConnectionsPerProcess * (options.processes + 1);
  h.sql = read_chosen_sql();
  backend.sql = h.sql;
  h.own_cluster = options.pg_url.empty();
  if (h.own_cluster) backend.cpu = impl::postgres::cpu_for_slot(std::nullopt);
  h.backend = std::make_unique<impl::postgres::PgBackend>(backend);
  h.pid = ::getpid();
  h.server = h.backend->cluster().base_conninfo();
  h.started = true;
}

bool pg_process_started() { return holder().started; }

std::optional<std::string> start_pg_process_problem(const PgProcessOptions& options) {
  try {
    start_pg_process(options);
  } catch (const impl::postgres::ClusterError& e) {
    return std::string(e.what());
  }
  // What a user's SQL lacks is said once, before anything runs.
  const impl::postgres::PgBackend& b = *holder().backend;
  for (const std::string& w : b.load_warnings()) std::cerr << "warning: --sql: " << w << "\n";
  if (pg_sql_choice().foreign() && !b.interface().missing_optional.empty()) {
    for (const std::string& m : b.interface().missing_optional) {
      std::cerr << "note: the SQL implements " << pg_sql_choice().adapter << " with " << m << "\n";
    }
  }
  return std::nullopt;
}

impl::postgres::SessionTotals pg_server_totals() { return impl::postgres::session_totals(); }

const impl::postgres::ServerNotices& pg_server_messages() { return impl::postgres::server_notices(); }

std::vector<std::string> pg_sql_cannot_express() {
  if (!holder().started || !pg_sql_choice().foreign()) return {};
  return holder().backend->interface().missing_optional;
}

BareStatements::BareStatements() {
  if (!pg_server_pid()) throw std::logic_error("BareStatements needs this process's own cluster");
  conn_ = impl::postgres::connect_blocking(holder().server, "postgres");
  if (const std::optional<int> cpu = impl::postgres::cpu_for_slot(std::nullopt)) {
    impl::postgres::place_process(PQbackendPID(conn_.get()), *cpu);
  }
  impl::postgres::PgResultPtr prepared(PQprepare(conn_.get(), "qdt_bare", "SELECT 1", 0, nullptr));
  if (PQresultStatus(prepared.get()) != PGRES_COMMAND_OK) {
    throw impl::postgres::ClusterError(std::string("postgres: preparing SELECT 1: ") + PQerrorMessage(conn_.get()));
  }
}

void BareStatements::run(int count) {
  for (int i = 0; i < count; ++i) {
    impl::postgres::PgResultPtr r(PQexecPrepared(conn_.get(), "qdt_bare", 0, nullptr, nullptr, nullptr, 0));
    if (PQresultStatus(r.get()) != PGRES_TUPLES_OK) {
      throw impl::postgres::ClusterError(std::string("postgres: SELECT 1: ") + PQerrorMessage(conn_.get()));
    }
  }
}

std::optional<int> pg_server_pid() {
  Holder& h = holder();
  if (!h.started || !h.own_cluster || h.pid != ::getpid() || !h.backend->cluster().local()) return std::nullopt;
  return static_cast<int>(h.backend->cluster().postmaster_pid());
}

impl::postgres::PgRun& begin_pg_world(impl::Variant variant) {
  impl::postgres::PgBackend& b = backend();
  Holder& h = holder();
  for (const auto& [name, kept] : h.sessions) {
    if (kept->leased) throw std::logic_error("two PostgreSQL worlds at once in one process");
  }
  b.use_variant(variant);
  if (!h.run) {
    h.run = b.begin_run();
  } else {
    h.run->reset_rows();
  }
  return *h.run;
}

impl::StorageEngine* lease_pg_session(const std::string& name, impl::StorageClock& clock, impl::StatementGate* gate,
                                      const impl::postgres::PgStorageOptions& options) {
  Holder& h = holder();
  assert(h.run && "begin_pg_world() first");
  std::unique_ptr<Kept>& kept = h.sessions[name];
  assert(!(kept && kept->leased) && "client names are unique in a world");
  if (kept && !same_policies(kept->options, options)) kept.reset();
  if (!kept) {
    kept = std::make_unique<Kept>();
    kept->options = options;
    kept->storage = h.backend->connect(*h.run, name, kept->clock, &kept->gate, options);
  }
  kept->clock.target = &clock;
  kept->gate.target = gate;
  kept->storage->set_purge_batch(options.purge_batch);
  kept->leased = true;
  return kept->storage.get();
}

void give_back_pg_session(impl::StorageEngine* session) {
  Holder& h = holder();
  for (auto it = h.sessions.begin(); it != h.sessions.end(); ++it) {
    Kept& kept = *it->second;
    if (kept.storage.get() != session) continue;
    kept.leased = false;
    kept.clock.target = nullptr;
    kept.gate.target = nullptr;
    // A session left inside a transaction holds its locks: closed, not kept.
    if (kept.storage->in_transaction()) h.sessions.erase(it);
    return;
  }
  assert(false && "gave back a session the process does not keep");
}

}  // namespace qdt::sim
