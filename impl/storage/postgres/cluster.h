#pragma once
// The PostgreSQL server of one qdt process (docs/semantics.md §9.1): a throwaway cluster in
// a fresh temporary folder, or an external server named by a URL.
//
// A local cluster is initdb'd and run as the unprivileged `postgres` system
// user when qdt runs as root (the server refuses root), listens only on a
// Unix socket inside its folder, and runs without fsync: power loss is the
// SQLite VFS's business. It is stopped (immediate shutdown) and its folder
// removed when the Cluster is destroyed, at exit(), and on SIGINT, SIGTERM
// and SIGABRT (a failed assertion), whose handlers then re-raise the signal.
// If qdt dies by SIGKILL, the server follows it (parent-death signal); only
// the folder is left behind.
//
// Databases come from a template holding clock.sql and the interface SQL,
// so creating one costs a file copy, not a schema load. On an external
// server the Cluster drops only the databases it created, and the first
// process's janitor (janitor.h) whatever a killed qdt left.
//
// Not thread-safe; one Cluster per process. A local cluster must be started
// from the thread that outlives it (the parent-death signal follows that
// thread), in practice the main thread.
#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "impl/storage/postgres/pg_connection.h"
#include "impl/storage/postgres/sql_text.h"

namespace qdt::impl::postgres {

struct ClusterOptions {
  std::string bin_dir = "/usr/lib/postgresql/15/bin";
  // Every storage client of every world of the process, the control
  // connections and the setup connections.
  int64_t max_connections = 64;
  // Where the temporary folder is made; empty: $TMPDIR, else /tmp.
  std::string parent_dir;
  // The system user the server runs as when qdt runs as root.
  std::string server_user = "postgres";
  int64_t start_timeout_ms = 60'000;
};

class Cluster {
 public:
  // initdb + start. Throws ClusterError with the reason (missing binaries,
  // no such user, initdb or the server failing, with their log's tail).
  static std::unique_ptr<Cluster> start_local(const ClusterOptions& options);
  // A server someone else runs. Throws ClusterError when it cannot be reached.
  static std::unique_ptr<Cluster> attach(const std::string& url);
  ~Cluster();
  Cluster(const Cluster&) = delete;
  Cluster& operator=(const Cluster&) = delete;

  bool local() const { return postmaster_pid_ > 0; }
  // The temporary folder (data directory and socket); empty when external.
  const std::string& folder() const { return folder_; }
  pid_t postmaster_pid() const { return postmaster_pid_; }
  // The conninfo (or URL) naming the server; a database name goes beside it.
  const std::string& base_conninfo() const { return base_conninfo_; }

  // Creates the template database, once: clock.sql, then `files` in order,
  // statement by statement (sql_loader.h). Throws ClusterError naming the
  // file and line that failed; with `called`, a failed statement defining a
  // function not in it is skipped and comes back as a warning.
  std::vector<std::string> prepare_template(const std::vector<SqlFile>& files,
                                            const std::vector<std::string>* called = nullptr);
  const std::string& template_name() const { return template_name_; }
  // A database from the template (prepare_template first).
  void create_database(const std::string& name);
  // Drops a database this Cluster created, disconnecting its sessions.
  void drop_database(const std::string& name);
  PgConnPtr connect(const std::string& dbname) const { return connect_blocking(base_conninfo_, dbname); }

  // What names this process's databases: "<run id>_<pid>", the run id
  // drawn at random by the process that first reached a server, which the
  // workers it forks inherit. A forked worker ends without running
  // destructors, so the first process drops its workers' databases on an
  // external server (those carrying the run's marker: janitor.h).
  static std::string process_tag();
  static const std::string& run_id();

  // Stops the local server and removes its folder, or drops what was created
  // on an external one (and, in the first process, what its forked workers
  // left there). Idempotent.
  void stop();

 private:
  Cluster() = default;
  PgConnPtr admin() const;
  void drop_workers_databases();
  std::string folder_;
  std::string socket_folder_;  // empty, or the socket's own short folder (a long TMPDIR)
  std::string base_conninfo_;
  std::string admin_database_ = "postgres";
  pid_t postmaster_pid_ = 0;
  int slot_ = -1;  // in the process-wide cleanup registry
  std::string template_name_;
  std::vector<std::string> created_;
};

}  // namespace qdt::impl::postgres
