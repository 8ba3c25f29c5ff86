// The throwaway server (docs/semantics.md §9.1) and the virtual clock (docs/semantics.md §9.2).
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "impl/storage/postgres/interface_check.h"
#include "impl/storage/postgres/pg_sql.h"
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
  reset_database(conn(), testing::reset_plan());
  for (const std::string& table : interface_tables()) EXPECT_EQ(count(table), 0) << table;
  EXPECT_EQ(scalar("SELECT now_us FROM qdt_clock.clock"), "0");
  // The functions survive a reset.
  EXPECT_EQ(push("q", "p", {"a"})["baseOffset"], 0);
}

TEST_F(Reset, TheRollbackLeavesTheLineOnlyWhenItHoldsItAndWarnsNothing) {
  const int64_t warnings = server_notices().warnings;
  // Not held: the old unconditional unlock was a WARNING on every rollback.
  exec_blocking(conn(), std::string("BEGIN; ROLLBACK; ") + sql::kLeaveLine, "leave");
  EXPECT_EQ(server_notices().warnings, warnings);
  exec_blocking(conn(), "SELECT pg_advisory_lock(hashtextextended('qdt-line', 0))", "enter");
  exec_blocking(conn(), std::string("BEGIN; ROLLBACK; ") + sql::kLeaveLine, "leave");
  EXPECT_EQ(scalar("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()"), "0");
  EXPECT_EQ(server_notices().warnings, warnings);
  // The receiver counts what the server says instead of printing it.
  exec_blocking(conn(), "SELECT pg_advisory_unlock(12345)", "unlock");
  EXPECT_EQ(server_notices().warnings, warnings + 1);
  EXPECT_NE(std::find(server_notices().first.begin(), server_notices().first.end(),
                      "WARNING: you don't own a lock of type ExclusiveLock"),
            server_notices().first.end());
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
    const std::string tag = Cluster::run_id() + "_" + std::to_string(worker);
    EXPECT_NE(database_names().find("qdt_run_" + tag + "_0"), std::string::npos) << database_names();
    EXPECT_NE(database_names().find("qdt_template_" + tag + "_"), std::string::npos) << database_names();
  }
  EXPECT_EQ(database_names(), before);
}

// Ownership is proven, never inferred from a name: a user's databases named
// as qdt names its own, even with this run's id, survive the first process's
// clean-up (the one the janitor runs too).
TEST(ClusterSetup, DatabasesNamedLikeTheRunsButNotMarkedByItSurvive) {
  const std::string url = cluster().base_conninfo() + " dbname=postgres";
  auto external = Cluster::attach(url);
  const std::vector<std::string> precious = {
      "qdt_run_" + Cluster::run_id() + "_999999_precious", "qdt_template_" + Cluster::run_id() + "_1_precious",
      "qdt_run_" + std::to_string(getpid()) + "_precious"};
  PgConnPtr admin = cluster().connect("postgres");
  for (const std::string& name : precious) {
    exec_blocking(admin.get(), "CREATE DATABASE " + quote_identifier(admin.get(), name), "a user's database");
  }
  external->prepare_template({});
  const std::string own_template = external->template_name();
  external->stop();
  const std::string left = database_names();
  for (const std::string& name : precious) {
    EXPECT_NE(left.find(name), std::string::npos) << name << " was dropped; left: " << left;
    exec_blocking(admin.get(), "DROP DATABASE IF EXISTS " + quote_identifier(admin.get(), name), "clean-up");
  }
  EXPECT_EQ(left.find(own_template), std::string::npos) << "its own template stayed";
}

// A qdt killed by SIGKILL cannot remove its cluster's folder: the next local
// cluster in the same parent removes the folders provably left that way (an
// owner file of qdt's whose process is gone), and nothing else.
TEST(ClusterSetup, ALocalClusterRemovesWhatAKilledQdtLeftAndNothingElse) {
  namespace fs = std::filesystem;
  std::string parent = (fs::temp_directory_path() / "qdt-leftovers-XXXXXX").string();
  ASSERT_NE(mkdtemp(parent.data()), nullptr);
  ASSERT_EQ(chmod(parent.c_str(), 0755), 0);  // the server user reaches its cluster below it
  const pid_t gone = fork();
  if (gone == 0) _exit(0);
  ASSERT_EQ(waitpid(gone, nullptr, 0), gone);
  auto folder = [&](const std::string& name, const std::string& owner) {
    fs::create_directories(parent + "/" + name + "/data");
    if (!owner.empty()) std::ofstream(parent + "/" + name + "/qdt-owner") << owner;
    return parent + "/" + name;
  };
  const std::string left = folder("qdt-pg-left01", "qdt cluster of pid " + std::to_string(gone) + " started at 1\n");
  std::ifstream self("/proc/self/stat");
  const std::string stat((std::istreambuf_iterator<char>(self)), {});
  std::istringstream fields(stat.substr(stat.rfind(')') + 1));
  std::string started;
  for (int i = 3; i <= 22; ++i) fields >> started;
  const std::string mine =
      folder("qdt-pg-mine01", "qdt cluster of pid " + std::to_string(getpid()) + " started at " + started + "\n");
  const std::string alive =
      folder("qdt-pg-alive1", "qdt cluster of pid " + std::to_string(getpid()) + " started at 0\n");
  const std::string no_owner = folder("qdt-pg-users1", "");
  const std::string other_name = folder("my-qdt-pg-x", "qdt cluster of pid " + std::to_string(gone) + " started at 1\n");
  {
    ClusterOptions options;
    options.parent_dir = parent;
    auto local = Cluster::start_local(options);
    EXPECT_FALSE(fs::exists(left)) << "a killed qdt's folder stayed";
    EXPECT_TRUE(fs::exists(no_owner)) << "a folder without qdt's owner file was removed";
    EXPECT_TRUE(fs::exists(mine)) << "a running qdt's folder was removed";
    EXPECT_TRUE(fs::exists(other_name)) << "a folder not named as qdt names its own was removed";
    // This process runs, but under another start time it would be a reused pid: gone.
    EXPECT_FALSE(fs::exists(alive)) << "an owner file whose pid was reused kept its folder";
  }
  fs::remove_all(parent);
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
