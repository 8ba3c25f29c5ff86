// The throwaway server (docs/semantics.md §9.1) and the virtual clock (docs/semantics.md §9.2).
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "impl/storage/postgres/pg_transaction.h"
#include "impl/storage/postgres/postgres_test_env.h"
#include "impl/storage/postgres/reset.h"

namespace qdt::impl::postgres::testing {
namespace {

class Clock : public PgTest {};

TEST_F(Clock, EveryShadowedClockReadsVirtualTimeToTheMicrosecond) {
  set_clock_us(kT0Us + 123'456);
  const auto rows = query(
      "SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US'), "
      "to_char(clock_timestamp() AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US'), "
      "statement_timestamp() = now(), transaction_timestamp() = now()");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0][0], "2023-11-14 22:13:20.123456");
  EXPECT_EQ(rows[0][1], "2023-11-14 22:13:20.123456");
  EXPECT_EQ(rows[0][2], "t");
  EXPECT_EQ(rows[0][3], "t");
}

TEST_F(Clock, NowMovesInsideATransactionWhenVirtualTimeDoes) {
  query("BEGIN");
  const std::string before = scalar("SELECT now()::text");
  PgConnPtr other = cluster().connect(database());
  exec_blocking(other.get(), "SELECT qdt_clock.set_us(" + std::to_string(kT0Us + 300 * kSecondUs) + ")", "clock");
  EXPECT_NE(scalar("SELECT now()::text"), before);
  EXPECT_EQ(scalar("SELECT now()::text"), "2023-11-14 22:18:20+00");
  query("COMMIT");
}

TEST_F(Clock, NowStaysAtTheVirtualTimeOfBeginWhileTheClockMovesOn) {
  set_clock_us(kT0Us);
  exec_blocking(conn(), begin_statement(kT0Us / 1000), "begin");
  PgConnPtr other = cluster().connect(database());
  exec_blocking(other.get(), "SELECT qdt_clock.set_us(" + std::to_string(kT0Us + 300 * kSecondUs) + ")", "clock");
  EXPECT_EQ(scalar("SELECT now()::text"), "2023-11-14 22:13:20+00");
  EXPECT_EQ(scalar("SELECT transaction_timestamp()::text"), "2023-11-14 22:13:20+00");
  EXPECT_EQ(scalar("SELECT clock_timestamp()::text"), "2023-11-14 22:18:20+00");
  query("COMMIT");
  // The setting is the transaction's own: afterwards now() is the clock again.
  EXPECT_EQ(scalar("SELECT now()::text"), "2023-11-14 22:18:20+00");
}

TEST_F(Clock, VirtualTimeNeverMovesBackwards) {
  EXPECT_THROW(exec_blocking(conn(), "SELECT qdt_clock.set_us(5)", "clock"), ClusterError);
  EXPECT_EQ(scalar("SELECT qdt_clock.set_us(" + std::to_string(kT0Us + 1) + ")"), "");
}

class Reset : public PgTest {};

TEST_F(Reset, EmptiesEveryInterfaceTableAndZeroesTheClock) {
  ASSERT_EQ(push("q", "p", {"a"})["status"], "queued");
  query("INSERT INTO queen.log_consumers (partition_id, consumer_group) VALUES ($1, 'g')", {partition_id("q", "p")});
  reset_database(conn(), own_interface_tables());
  for (const std::string& table : own_interface_tables()) EXPECT_EQ(count(table), 0) << table;
  EXPECT_EQ(scalar("SELECT now_us FROM qdt_clock.clock"), "0");
  // The functions survive a reset.
  EXPECT_EQ(push("q", "p", {"a"})["baseOffset"], 0);
}

TEST(ClusterSetup, AMissingServerBinaryIsAnErrorWithTheReason) {
  ClusterOptions options;
  options.bin_dir = "/nonexistent/postgresql/bin";
  try {
    Cluster::start_local(options);
    FAIL() << "started without binaries";
  } catch (const ClusterError& e) {
    EXPECT_NE(std::string(e.what()).find("no server binary /nonexistent/postgresql/bin/initdb"), std::string::npos)
        << e.what();
  }
}

TEST(ClusterSetup, ARefusedConnectionIsAnErrorWithTheReason) {
  try {
    Cluster::attach("postgresql:///postgres?host=/nonexistent-socket-folder");
    FAIL() << "attached to nothing";
  } catch (const ClusterError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot connect"), std::string::npos) << e.what();
  }
}

TEST(ClusterSetup, ADatabaseThatCannotBeCreatedIsAnErrorWithTheReason) {
  // It already exists.
  EXPECT_THROW(cluster().create_database(database()), ClusterError);
}

TEST(ClusterSetup, TheServerListensOnlyOnItsSocketWithTheSettingsOfSpec91) {
  PgConnPtr conn = cluster().connect(database());
  PgResultPtr r = exec_blocking(conn.get(),
                                "SELECT current_setting('listen_addresses'), current_setting('fsync'), "
                                "current_setting('synchronous_commit'), current_setting('full_page_writes'), "
                                "current_setting('TimeZone'), current_setting('autovacuum'), "
                                "current_setting('deadlock_timeout'), current_setting('search_path'), "
                                "current_user",
                                "settings");
  EXPECT_STREQ(PQgetvalue(r.get(), 0, 0), "");
  EXPECT_STREQ(PQgetvalue(r.get(), 0, 1), "off");
  EXPECT_STREQ(PQgetvalue(r.get(), 0, 2), "off");
  EXPECT_STREQ(PQgetvalue(r.get(), 0, 3), "off");
  EXPECT_STREQ(PQgetvalue(r.get(), 0, 4), "UTC");
  EXPECT_STREQ(PQgetvalue(r.get(), 0, 5), "off");
  EXPECT_STREQ(PQgetvalue(r.get(), 0, 6), "1h");
  EXPECT_STREQ(PQgetvalue(r.get(), 0, 7), "qdt_clock,pg_catalog,public");
  EXPECT_TRUE(std::filesystem::exists(cluster().folder() + "/.s.PGSQL.5432"));
}

// Processes whose command line names `folder` (the server and its children).
int processes_naming(const std::string& folder) {
  int found = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
    const std::string name = entry.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream in(entry.path() / "cmdline", std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    if (ss.str().find(folder) != std::string::npos) ++found;
  }
  return found;
}

// The server's databases, comma-separated in name order.
std::string database_names() {
  PgConnPtr conn = cluster().connect("postgres");
  PgResultPtr r = exec_blocking(conn.get(), "SELECT string_agg(datname, ',' ORDER BY datname) FROM pg_database",
                                "listing databases");
  return std::string(PQgetvalue(r.get(), 0, 0));
}

TEST(ClusterSetup, OnAnExternalServerOnlyWhatWasCreatedIsDropped) {
  const auto names = database_names;
  const std::string before = names();
  {
    auto external = Cluster::attach(cluster().base_conninfo() + " dbname=postgres");
    EXPECT_FALSE(external->local());
    external->prepare_template(own_interface_sql());
    external->create_database("qdt_external_probe");
    EXPECT_NE(names().find("qdt_external_probe"), std::string::npos);
    EXPECT_THROW(external->drop_database(database()), ClusterError);  // not its own
  }
  EXPECT_EQ(names(), before);
}

// A forked campaign worker ends with _exit: the first process drops what it
// left on an external server.
TEST(ClusterSetup, AForkedWorkersDatabasesOnAnExternalServerGoWithTheFirstProcess) {
  const std::string url = cluster().base_conninfo() + " dbname=postgres";
  const std::string before = database_names();
  {
    auto first = Cluster::attach(url);
    const pid_t worker = fork();
    ASSERT_GE(worker, 0);
    if (worker == 0) {
      int status = 1;
      try {
        auto own = Cluster::attach(url);
        own->prepare_template({});
        own->create_database("qdt_run_" + Cluster::process_tag() + "_0");
        status = 0;
        static_cast<void>(own.release());  // a worker's objects live until _exit
      } catch (const ClusterError&) {
      }
      _exit(status);  // as fork_pool's workers end: no destructors run
    }
    int status = 0;
    ASSERT_EQ(waitpid(worker, &status, 0), worker);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    const std::string tag = std::to_string(getpid()) + "_" + std::to_string(worker);
    EXPECT_NE(database_names().find("qdt_run_" + tag + "_0"), std::string::npos) << database_names();
    EXPECT_NE(database_names().find("qdt_template_" + tag + "_"), std::string::npos) << database_names();
  }
  EXPECT_EQ(database_names(), before);
}

class Signals : public ::testing::TestWithParam<int> {};

TEST_P(Signals, StopTheServerRemoveTheFolderAndReraise) {
  const int signal_number = GetParam();
  int report[2];
  ASSERT_EQ(pipe(report), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    close(report[0]);
    const rlimit no_core{0, 0};
    setrlimit(RLIMIT_CORE, &no_core);  // the SIGABRT case must not leave a core file
    try {
      auto own = Cluster::start_local({});
      const std::string line = own->folder() + "\n" + std::to_string(own->postmaster_pid()) + "\n";
      (void)!write(report[1], line.data(), line.size());
      close(report[1]);
      for (;;) pause();
    } catch (...) {
      _exit(3);
    }
  }
  close(report[1]);
  std::string text;
  char buffer[512];
  // Two lines, not end of file: a server that kept the pipe open would hang the test.
  for (ssize_t n; std::count(text.begin(), text.end(), '\n') < 2 && (n = read(report[0], buffer, sizeof(buffer))) > 0;) {
    text.append(buffer, n);
  }
  close(report[0]);
  const size_t newline = text.find('\n');
  ASSERT_NE(newline, std::string::npos) << "the child did not start a cluster";
  const std::string folder = text.substr(0, newline);
  const pid_t postmaster = std::stoi(text.substr(newline + 1));
  ASSERT_TRUE(std::filesystem::exists(folder + "/data/PG_VERSION"));
  ASSERT_EQ(kill(postmaster, 0), 0);
  ASSERT_GE(processes_naming(folder), 1);

  ASSERT_EQ(kill(child, signal_number), 0);
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == signal_number) << "status " << status;
  EXPECT_FALSE(std::filesystem::exists(folder));
  EXPECT_EQ(processes_naming(folder), 0);
  EXPECT_EQ(kill(postmaster, 0), -1);
  EXPECT_EQ(errno, ESRCH);
  // The test process's own cluster is untouched by its child's exit.
  EXPECT_TRUE(std::filesystem::exists(cluster().folder() + "/data/PG_VERSION"));
}

INSTANTIATE_TEST_SUITE_P(ClusterSetup, Signals, ::testing::Values(SIGTERM, SIGINT, SIGABRT));

}  // namespace
}  // namespace qdt::impl::postgres::testing
