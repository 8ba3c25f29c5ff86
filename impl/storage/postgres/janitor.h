#pragma once
// Databases a killed qdt leaves on an external server (--pg-url). A qdt
// process drops what it created as it ends, but SIGKILL, SIGINT or SIGTERM
// end it without that; its forked workers never run it. So the first
// process forks a janitor once: it holds the read end of a pipe whose write
// end every qdt process of the run inherits, and when the last of them has
// ended (end of file, however they ended) it drops every database named
// after the first process, then exits.
#include <libpq-fe.h>
#include <sys/types.h>

#include <string>

namespace qdt::impl::postgres {

// Forks the janitor for the server at `url`, once per process; `first` is
// the pid databases are named after (Cluster::process_tag). Best effort:
// when a pipe or a fork is refused, qdt runs without one.
void start_janitor(const std::string& url, pid_t first);

// Drops the databases named after `first` (qdt_run_FIRST_* and
// qdt_template_FIRST_*, runs before templates); with `own_too` false, not
// those of the first process itself (FIRST_FIRST_*). Throws ClusterError.
void drop_databases_named_after(PGconn* conn, pid_t first, bool own_too);

}  // namespace qdt::impl::postgres
