#include "impl/storage/postgres/pg_backend.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cassert>

#include "impl/storage/postgres/cpu_placement.h"
#include "impl/storage/postgres/sql_loader.h"

namespace qdt::impl::postgres {
namespace {

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

// The control connection reads the virtual clock like every session.
constexpr const char* kControlSearchPath = "SET search_path = qdt_clock, pg_catalog, public";

}  // namespace

PgBackend::PgBackend(PgBackendOptions options) : options_(std::move(options)) {
  cluster_ = options_.pg_url.empty() ? Cluster::start_local(options_.cluster) : Cluster::attach(options_.pg_url);
  load_warnings_ = options_.sql.empty() ? cluster_->prepare_template(own_interface_sql())
                                        : cluster_->prepare_template(options_.sql, &adapter_function_names());
  static std::atomic<int> next{0};
  database_ = "qdt_run_" + Cluster::process_tag() + "_" + std::to_string(next.fetch_add(1));
  cluster_->create_database(database_);
  control_ = cluster_->connect(database_);
  interface_ = check_interface(control_.get());
  if (!interface_.missing_required.empty()) {
    throw ClusterError("postgres: the SQL does not implement queen-log-v1: missing " +
                       join(interface_.missing_required));
  }
  if (interface_.tables_present.empty()) throw ClusterError("postgres: the SQL creates none of the interface's tables");
  exec_blocking(control_.get(), kControlSearchPath, "setting the search_path");
  prepare_clock_write(control_.get());
  PgConnPtr probe = cluster_->connect(database_);
  if (options_.cpu) {
    place_calling_thread(*options_.cpu);
    place_process(PQbackendPID(control_.get()), *options_.cpu);
    place_process(PQbackendPID(probe.get()), *options_.cpu);
  }
  probe_ = std::make_unique<LockProbe>(std::move(probe));
  reset_ = std::make_unique<DatabaseReset>(plan_reset(control_.get()));
}

PgBackend::~PgBackend() = default;

std::unique_ptr<PgRun> PgBackend::begin_run() {
  PgRunShared shared{cluster_->base_conninfo(), database_, probe_.get(), control_.get(), &interface_, reset_.get(),
                     options_.sql.empty(), options_.cpu};
  auto run = std::make_unique<PgRun>(std::move(shared), options_.wait);
  run->reset_rows();
  return run;
}

std::unique_ptr<PgStorage> PgBackend::connect(PgRun& run, std::string name, StorageClock& clock, StatementGate* gate,
                                              PgStorageOptions options) {
  return std::make_unique<PgStorage>(run, std::move(name), clock, gate, options);
}

// The file of `variant` among qdt's own variant SQL, or null.
const SqlFile* variant_file(Variant variant) {
  const std::string name = "variants/" + variant_name(variant) + ".sql";
  for (const SqlFile& file : own_variant_sql()) {
    if (file.name == name) return &file;
  }
  return nullptr;
}

void PgBackend::use_variant(Variant variant) {
  const SqlFile* wanted = variant_file(variant);
  if (wanted == variant_file(sql_variant_)) return;
  if (!options_.sql.empty()) {
    throw ClusterError("postgres: variant " + variant_name(variant) + " replaces qdt's own SQL, not a foreign one");
  }
  std::vector<SqlFile> files;
  if (variant_file(sql_variant_)) {
    // The reference's push file defines every function a variant replaces.
    for (const SqlFile& file : own_interface_sql()) {
      if (file.name == "procedures/003_log_push.sql") files.push_back(file);
    }
    assert(!files.empty());
  }
  if (wanted) files.push_back(*wanted);
  apply_sql(control_.get(), files);
  exec_blocking(control_.get(), kControlSearchPath, "setting the search_path");
  sql_variant_ = variant;
}

bool PgBackend::has_variant_sql(Variant variant) { return variant_file(variant) != nullptr; }

std::vector<Variant> PgBackend::unsupported_variants() {
  return {Variant::queue_scope, Variant::bloom_filter};
}

bool PgBackend::supports(Variant variant) {
  const auto missing = unsupported_variants();
  return std::find(missing.begin(), missing.end(), variant) == missing.end();
}

}  // namespace qdt::impl::postgres
