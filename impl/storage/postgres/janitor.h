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

// Forks the janitor for the server at `url`, once per process; `run_id` is
// the id databases are named after (Cluster::process_tag). Best effort:
// when a pipe or a fork is refused, qdt runs without one.
void start_janitor(const std::string& url, const std::string& run_id);

// Marks `database`, just created by this process, as the run's own.
// Throws ClusterError.
void mark_owned(PGconn* conn, const std::string& database, const std::string& run_id);

// Drops the run's databases (qdt_run_RUNID_* and qdt_template_RUNID_*, runs
// before templates) that carry its marker; not those whose names start with
// `except_prefix` when it is not empty. `unmarked_too`: also those with no
// comment at all, which only the janitor asks for, once every qdt process of
// the run has ended: a worker killed between its CREATE DATABASE and the
// COMMENT that marks it leaves one, under a name holding the run's random
// id that no one else could have chosen. Throws ClusterError.
void drop_owned_databases(PGconn* conn, const std::string& run_id, const std::string& except_prefix = "",
                          bool unmarked_too = false);

}  // namespace qdt::impl::postgres
