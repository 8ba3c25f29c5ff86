#pragma once
// The PostgreSQL engine of one qdt process (docs/semantics.md §9.1): the server (a
// throwaway cluster, or an external one named by a URL), ONE database made
// from the template, reset in place at the start of every run, and the
// control connection the runs share one at a time.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "impl/storage/postgres/cluster.h"
#include "impl/storage/postgres/interface_check.h"
#include "impl/storage/postgres/lock_probe.h"
#include "impl/storage/postgres/pg_run.h"
#include "impl/storage/postgres/pg_storage.h"
#include "impl/storage/postgres/reset.h"
#include "impl/storage/postgres/sql_text.h"
#include "impl/variant.h"

namespace qdt::impl::postgres {

struct PgBackendOptions {
  std::string pg_url;  // empty: start a local cluster
  ClusterOptions cluster;
  // The interface implementation; empty: qdt's own (sql_text.h).
  std::vector<SqlFile> sql;
  WaitOptions wait;
  // The CPU this process's thread and every server process of its
  // connections run on (cpu_placement.h); nullopt: wherever the kernel puts
  // them. Only for a server this process tree started.
  std::optional<int> cpu;
};

class PgBackend {
 public:
  // Starts or attaches to the server, builds the template and this
  // process's database, and checks the interface. Throws ClusterError with
  // the reason (no server binary, refused connection, a file that fails to
  // load, a required function missing); the command line exits 2.
  explicit PgBackend(PgBackendOptions options = {});
  ~PgBackend();
  PgBackend(const PgBackend&) = delete;
  PgBackend& operator=(const PgBackend&) = delete;

  // Empties the database in place and returns the run its connections
  // share. One run at a time; every connection of the previous run must be
  // gone.
  std::unique_ptr<PgRun> begin_run();
  // A client connection of `run`, named `name` (unique in the run).
  std::unique_ptr<PgStorage> connect(PgRun& run, std::string name, StorageClock& clock, StatementGate* gate,
                                     PgStorageOptions options);

  // Gives the database the SQL of `variant`: qdt's own push with the
  // variant's file (variants/NAME.sql) over it, or the reference again.
  // Between runs only (no statement in flight); a no-op when it has it.
  void use_variant(Variant variant);

  // Whether `variant` can run on PostgreSQL: the reference, the broker-side
  // variants, the storage variants the adapter maps onto the interface, and
  // the lock variants qdt's own SQL has a file for.
  static bool supports(Variant variant);
  // Whether qdt's own SQL has a file for `variant` (variants/NAME.sql): it
  // replaces a function of qdt's own push, so it cannot run on foreign SQL.
  static bool has_variant_sql(Variant variant);
  // The storage variants that need SQL of their own, not written yet.
  static std::vector<Variant> unsupported_variants();

  const InterfaceCheck& interface() const { return interface_; }
  // Foreign statements skipped at load because they failed while defining
  // only what the adapter never calls (sql_loader.h).
  const std::vector<std::string>& load_warnings() const { return load_warnings_; }
  Cluster& cluster() { return *cluster_; }
  const std::string& database() const { return database_; }

 private:
  PgBackendOptions options_;
  std::unique_ptr<Cluster> cluster_;
  std::string database_;
  InterfaceCheck interface_;
  std::vector<std::string> load_warnings_;
  PgConnPtr control_;
  std::unique_ptr<LockProbe> probe_;
  std::unique_ptr<DatabaseReset> reset_;
  Variant sql_variant_ = Variant::none;  // whose SQL the database holds
};

}  // namespace qdt::impl::postgres
