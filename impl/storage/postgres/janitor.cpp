#include "impl/storage/postgres/janitor.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>

#include "impl/storage/postgres/pg_connection.h"

namespace qdt::impl::postgres {
namespace {

constexpr int kPipeFd = 3;  // where the janitor keeps the pipe's read end
constexpr int kRoundsMax = 600;  // of kRoundPauseUs: a minute at most
constexpr useconds_t kRoundPauseUs = 100'000;

std::string owned_marker(const std::string& run_id) { return "created by qdt run " + run_id; }

[[noreturn]] void run_janitor(const std::string& url, const std::string& run_id, int read_end) {
  // Out of qdt's process group (a Ctrl-C is for qdt) and away from its
  // output, so a shell reading qdt's output sees it end with qdt.
  setsid();
  signal(SIGINT, SIG_IGN);
  signal(SIGTERM, SIG_IGN);
  signal(SIGHUP, SIG_IGN);
  prctl(PR_SET_NAME, "qdt-janitor");
  if (read_end != kPipeFd) {
    dup2(read_end, kPipeFd);
    close(read_end);
  }
  const int null_fd = open("/dev/null", O_RDWR);
  if (null_fd >= 0) {
    for (int fd = 0; fd <= 2; ++fd) dup2(null_fd, fd);
  }
  // Every other descriptor is qdt's: its server sockets must close with it.
  close_range(kPipeFd + 1, ~0U, 0);
  char byte = 0;
  for (;;) {
    const ssize_t n = read(kPipeFd, &byte, 1);
    if (n == 0 || (n < 0 && errno != EINTR)) break;
  }
  try {
    PgConnPtr conn(PQconnectdb(url.c_str()));  // the URL's own database, as Cluster::attach
    if (conn && PQstatus(conn.get()) == CONNECTION_OK) {
      // A CREATE DATABASE sent just before its client died still runs to
      // its end on the server: drop again until none is running.
      const std::string running =
          "SELECT count(*) FROM pg_catalog.pg_stat_activity WHERE pid <> pg_backend_pid() AND state <> 'idle' AND "
          "(strpos(query, " + quote_literal(conn.get(), "qdt_run_" + run_id + "_") +
          ") > 0 OR strpos(query, " + quote_literal(conn.get(), "qdt_template_" + run_id + "_") + ") > 0)";
      for (int round = 0; round < kRoundsMax; ++round) {
        drop_owned_databases(conn.get(), run_id, "", /*unmarked_too=*/true);
        PgResultPtr r = exec_blocking(conn.get(), running, "looking for qdt's statements still running");
        if (std::string(PQgetvalue(r.get(), 0, 0)) == "0") {
          drop_owned_databases(conn.get(), run_id, "", /*unmarked_too=*/true);
          break;
        }
        usleep(kRoundPauseUs);
      }
    }
  } catch (...) {
    // Nobody is left to tell: the server may be gone too.
  }
  _exit(0);
}

}  // namespace

void start_janitor(const std::string& url, const std::string& run_id) {
  static bool started = false;
  if (started) return;
  started = true;
  int fds[2];
  if (pipe(fds) != 0) return;
  // The write end passes to every fork (the workers), not to what qdt execs.
  fcntl(fds[1], F_SETFD, FD_CLOEXEC);
  const pid_t pid = fork();
  if (pid == 0) {
    close(fds[1]);
    run_janitor(url, run_id, fds[0]);
  }
  close(fds[0]);
  if (pid < 0) close(fds[1]);
  // Otherwise the write end stays open for the process's life: its close is the signal.
}

void mark_owned(PGconn* conn, const std::string& database, const std::string& run_id) {
  exec_blocking(conn,
                "COMMENT ON DATABASE " + quote_identifier(conn, database) + " IS " +
                    quote_literal(conn, owned_marker(run_id)),
                "marking database " + database + " as qdt's");
}

void drop_owned_databases(PGconn* conn, const std::string& run_id, const std::string& except_prefix,
                          bool unmarked_too) {
  const std::string marked =
      "pg_catalog.shobj_description(oid, 'pg_database') = " + quote_literal(conn, owned_marker(run_id));
  std::string list = "SELECT datname FROM pg_catalog.pg_database WHERE (starts_with(datname, " +
                     quote_literal(conn, "qdt_run_" + run_id + "_") + ") OR starts_with(datname, " +
                     quote_literal(conn, "qdt_template_" + run_id + "_") + ")) AND (" + marked +
                     (unmarked_too ? " OR pg_catalog.shobj_description(oid, 'pg_database') IS NULL" : "") + ")";
  if (!except_prefix.empty()) {
    list += " AND NOT starts_with(datname, " + quote_literal(conn, "qdt_run_" + except_prefix) +
            ") AND NOT starts_with(datname, " + quote_literal(conn, "qdt_template_" + except_prefix) + ")";
  }
  list += " ORDER BY starts_with(datname, 'qdt_template_'), datname";
  PgResultPtr r = exec_blocking(conn, list, "listing qdt's databases");
  for (int i = 0; i < PQntuples(r.get()); ++i) {
    const std::string name = PQgetvalue(r.get(), i, 0);
    exec_blocking(conn, "DROP DATABASE IF EXISTS " + quote_identifier(conn, name) + " WITH (FORCE)",
                  "dropping database " + name);
  }
}

}  // namespace qdt::impl::postgres
