#include "impl/storage/postgres/pg_backend.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>

namespace qdt::impl::postgres {
namespace {

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

}  // namespace

PgBackend::PgBackend(PgBackendOptions options) : options_(std::move(options)) {
  cluster_ = options_.pg_url.empty() ? Cluster::start_local(options_.cluster) : Cluster::attach(options_.pg_url);
  cluster_->prepare_template(options_.sql.empty() ? own_interface_sql() : options_.sql);
  static std::atomic<int> next{0};
  database_ = "qdt_run_" + std::to_string(getpid()) + "_" + std::to_string(next.fetch_add(1));
  cluster_->create_database(database_);
  control_ = cluster_->connect(database_);
  interface_ = check_interface(control_.get());
  if (!interface_.missing_required.empty()) {
    throw ClusterError("postgres: the SQL does not implement queen-log-v1: missing " +
                       join(interface_.missing_required));
  }
  if (interface_.reset_tables.empty()) throw ClusterError("postgres: the SQL creates none of the interface's tables");
  exec_blocking(control_.get(), "SET search_path = qdt_clock, pg_catalog, public", "setting the search_path");
  probe_ = std::make_unique<LockProbe>(cluster_->connect(database_));
  reset_ = std::make_unique<DatabaseReset>(interface_.reset_tables);
}

PgBackend::~PgBackend() = default;

std::unique_ptr<PgRun> PgBackend::begin_run() {
  PgRunShared shared{cluster_->base_conninfo(), database_, probe_.get(), control_.get(), &interface_, reset_.get()};
  auto run = std::make_unique<PgRun>(std::move(shared), options_.wait);
  run->reset_rows();
  return run;
}

std::unique_ptr<PgStorage> PgBackend::connect(PgRun& run, std::string name, StorageClock& clock, StatementGate* gate,
                                              PgStorageOptions options) {
  return std::make_unique<PgStorage>(run, std::move(name), clock, gate, options);
}

std::vector<Variant> PgBackend::unsupported_variants() {
  return {Variant::probe_outside_lock, Variant::stamp_before_lock, Variant::queue_scope, Variant::bloom_filter};
}

bool PgBackend::supports(Variant variant) {
  const auto missing = unsupported_variants();
  return std::find(missing.begin(), missing.end(), variant) == missing.end();
}

}  // namespace qdt::impl::postgres
