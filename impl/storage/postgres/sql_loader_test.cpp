// The loader of docs/semantics.md §9.4, run on qdt's own SQL laid out as a user's checkout.
#include "impl/storage/postgres/sql_loader.h"

#include <sys/stat.h>

#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>

#include "impl/storage/postgres/postgres_test_env.h"

namespace qdt::impl::postgres {
namespace {

TEST(SplitStatements, SplitsOnlyAtTopLevelSemicolons) {
  const std::string text =
      "-- a comment; with a semicolon\n"
      "CREATE TABLE t (x text DEFAULT ';');\n"
      "/* block; /* nested; */ still; */ SELECT 'it''s;', \"a;b\", E'\\';' ;\n"
      "CREATE FUNCTION f() RETURNS int LANGUAGE sql AS $$ SELECT 1; $$;\n"
      "CREATE FUNCTION g() RETURNS int LANGUAGE plpgsql AS $body$\nBEGIN RETURN $1; END;\n$body$;\n"
      "SELECT a$b FROM t; -- trailing\n";
  const auto statements = split_statements(text);
  ASSERT_EQ(statements.size(), 5u);
  EXPECT_EQ(statements[0].text, "-- a comment; with a semicolon\nCREATE TABLE t (x text DEFAULT ';')");
  EXPECT_EQ(statements[0].line, 2);
  EXPECT_NE(statements[1].text.find("SELECT 'it''s;', \"a;b\", E'\\';' "), std::string::npos);
  EXPECT_EQ(statements[1].line, 3);
  EXPECT_NE(statements[2].text.find("$$ SELECT 1; $$"), std::string::npos);
  EXPECT_EQ(statements[3].line, 5);
  EXPECT_NE(statements[3].text.find("RETURN $1; END;\n$body$"), std::string::npos);
  EXPECT_EQ(statements[4].line, 8);
  EXPECT_NE(statements[4].text.find("SELECT a$b FROM t"), std::string::npos);
}

// PgRun writes the virtual clock only before the statements
// sql::own_sql_may_read_clock names (the pushes, variant
// probe-outside-lock's probe): a new reader of the clock among qdt's own
// functions must be reached only from those, or join that list.
TEST(OwnSql, OnlyThePushPathReadsTheClock) {
  std::vector<SqlFile> files = own_interface_sql();
  files.insert(files.end(), own_variant_sql().begin(), own_variant_sql().end());
  std::set<std::string> readers;
  for (const SqlFile& file : files) {
    for (const SqlStatement& statement : split_statements(file.text)) {
      std::string lower;
      for (char c : statement.text) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      const size_t at = lower.find("create or replace function ");
      if (at == std::string::npos) continue;
      const size_t name_at = at + std::string("create or replace function ").size();
      const std::string name = lower.substr(name_at, lower.find('(', name_at) - name_at);
      if (name.rfind("qdt_clock.", 0) == 0) continue;  // the clock itself
      const size_t body = lower.find("$$");
      if (body == std::string::npos) continue;
      for (const char* clock : {"clock_timestamp(", "now(", "statement_timestamp(", "transaction_timestamp(",
                                "current_timestamp", "localtimestamp", "current_time", "timeofday("}) {
        if (lower.find(clock, body) != std::string::npos) readers.insert(name);
      }
    }
  }
  EXPECT_EQ(readers, (std::set<std::string>{"queen.qdt_lock_partition", "queen.qdt_probe_outside_lock_v1",
                                             "queen.qdt_push_segment"}));
}

TEST(SplitStatements, DropsEmptyStatements) {
  EXPECT_TRUE(split_statements(" ;\n-- only a comment\n;/* and */;").empty());
}

class SqlLoader : public ::testing::Test {
 protected:
  static std::string fresh_database(const std::string& name) {
    PgConnPtr admin = testing::cluster().connect("postgres");
    exec_blocking(admin.get(), "DROP DATABASE IF EXISTS " + name, "drop");
    exec_blocking(admin.get(), "CREATE DATABASE " + name + " TEMPLATE template0", "create");
    return name;
  }
};

TEST_F(SqlLoader, LoadsQdtsOwnSqlLaidOutAsAUsersCheckout) {
  const auto files = read_sql_dir(QDT_PG_SQL_DIR);
  ASSERT_EQ(files.size(), own_interface_sql().size());
  for (size_t i = 0; i < files.size(); ++i) {
    EXPECT_EQ(files[i].name, own_interface_sql()[i].name);
    EXPECT_EQ(files[i].text, own_interface_sql()[i].text);  // the embedded copy is the checkout
  }
  PgConnPtr conn = testing::cluster().connect(fresh_database("qdt_loader_own"));
  apply_sql(conn.get(), {clock_sql()});
  apply_sql(conn.get(), files);
  PgResultPtr r = exec_blocking(
      conn.get(), "SELECT queen.log_push_one_v1('q', 'p', 1, '\\x00112233445566778899aabbccddeeff', -1, '\\x00')",
      "push");
  EXPECT_EQ(nlohmann::json::parse(PQgetvalue(r.get(), 0, 0))["status"], "queued");
}

TEST_F(SqlLoader, RunsEachStatementInAutocommitSoConcurrentIndexesLoad) {
  PgConnPtr conn = testing::cluster().connect(fresh_database("qdt_loader_concurrently"));
  apply_sql(conn.get(), {{"idx.sql", "CREATE TABLE t (x int);\nCREATE INDEX CONCURRENTLY t_x ON t (x);\n"}});
  PgResultPtr r = exec_blocking(conn.get(), "SELECT count(*) FROM pg_indexes WHERE indexname = 't_x'", "check");
  EXPECT_STREQ(PQgetvalue(r.get(), 0, 0), "1");
}

TEST_F(SqlLoader, UnqualifiedObjectsGoToPublicAndDefaultsBindTheVirtualClock) {
  PgConnPtr conn = testing::cluster().connect(fresh_database("qdt_loader_defaults"));
  apply_sql(conn.get(), {clock_sql(), {"t.sql", "CREATE TABLE t (x int, at timestamptz DEFAULT now());"}});
  exec_blocking(conn.get(), "UPDATE qdt_clock.clock SET now_us = 1000000; INSERT INTO t (x) VALUES (1)", "insert");
  PgResultPtr r = exec_blocking(
      conn.get(), "SELECT to_regclass('public.t') IS NOT NULL, at = to_timestamp(1), current_setting('search_path') FROM t",
      "check");
  EXPECT_STREQ(PQgetvalue(r.get(), 0, 0), "t");
  EXPECT_STREQ(PQgetvalue(r.get(), 0, 1), "t");
  EXPECT_STREQ(PQgetvalue(r.get(), 0, 2), "qdt_clock,pg_catalog,public");  // the session's own path again
}

TEST_F(SqlLoader, AFailingStatementNamesTheFileTheLineAndTheReason) {
  PgConnPtr conn = testing::cluster().connect(fresh_database("qdt_loader_failing"));
  try {
    apply_sql(conn.get(), {{"procedures/009_bad.sql", "SELECT 1;\n\n-- next\nSELEC 2;\n"}});
    FAIL() << "loaded a syntax error";
  } catch (const ClusterError& e) {
    EXPECT_NE(std::string(e.what()).find("procedures/009_bad.sql:4: syntax error"), std::string::npos) << e.what();
  }
}

// COPY ... FROM STDIN waits for data psql would stream: refused with a reason, never an empty one.
TEST_F(SqlLoader, CopyFromStandardInputIsRefusedWithItsReason) {
  PgConnPtr conn = testing::cluster().connect(fresh_database("qdt_loader_copy"));
  for (const std::string copy : {"COPY t FROM STDIN;", "COPY t TO STDOUT;"}) {
    try {
      apply_sql(conn.get(), {{"procedures/010_data.sql", "CREATE TABLE IF NOT EXISTS t (x int);\nINSERT INTO t VALUES (1);\n" + copy}});
      FAIL() << "loaded " << copy;
    } catch (const ClusterError& e) {
      EXPECT_NE(std::string(e.what()).find("procedures/010_data.sql:3: COPY from standard input or to standard output"),
                std::string::npos)
          << e.what();
    }
    // The connection is usable again.
    EXPECT_NO_THROW(exec_blocking(conn.get(), "SELECT 1", "after a refused COPY"));
  }
}

TEST_F(SqlLoader, AFailingDefinitionTheAdapterNeverCallsIsAWarning) {
  PgConnPtr conn = testing::cluster().connect(fresh_database("qdt_loader_warning"));
  const std::vector<std::string> called = {"log_push_one_v1"};
  const std::vector<std::string> warnings = apply_sql(
      conn.get(),
      {{"procedures/010_extra.sql",
        "CREATE SCHEMA queen;\n"
        "CREATE FUNCTION queen.dashboard_stats() RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN; END $$;\n"
        "SELECT 1;\n"}},
      &called);
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("procedures/010_extra.sql:2:"), std::string::npos) << warnings[0];
  EXPECT_NE(warnings[0].find("dashboard_stats, which the adapter never calls"), std::string::npos) << warnings[0];
  // The same failure in a function the adapter calls stops the load.
  EXPECT_THROW(apply_sql(conn.get(),
                         {{"procedures/011_push.sql",
                           "CREATE FUNCTION queen.log_push_one_v1() RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN; END $$;"}},
                         &called),
               ClusterError);
}

TEST(DefinedFunction, NamesTheFunctionAStatementCreates) {
  EXPECT_EQ(defined_function("CREATE FUNCTION queen.f(x int) RETURNS int"), "f");
  EXPECT_EQ(defined_function("-- why\n/* note */ create or replace function Queen.Log_Push_One_V1()"), "log_push_one_v1");
  EXPECT_EQ(defined_function("CREATE PROCEDURE \"Queen\".\"MixedCase\"()"), "MixedCase");
  EXPECT_EQ(defined_function("CREATE OR REPLACE FUNCTION g() RETURNS void"), "g");
  EXPECT_EQ(defined_function("CREATE TABLE queen.t (x int)"), "");
  EXPECT_EQ(defined_function("CREATE OR FUNCTION f()"), "");
  EXPECT_EQ(defined_function("SELECT 1"), "");
  EXPECT_EQ(defined_function("-- only a comment"), "");
}

TEST(ReadSqlDir, AFolderWithoutSqlIsAnError) {
  EXPECT_THROW(read_sql_dir("/nonexistent-sql-dir"), ClusterError);
}

// A checkout's folder is someone else's: every file it names is read whole or
// refused naming it, never skipped or cut short.
TEST(ReadSqlDir, FilesThatCannotBeReadWholeAreRefusedNamingThem) {
  namespace fs = std::filesystem;
  std::string dir = (fs::temp_directory_path() / "qdt-sql-dir-XXXXXX").string();
  ASSERT_NE(mkdtemp(dir.data()), nullptr);
  fs::create_directories(dir + "/procedures");
  std::ofstream(dir + "/procedures/001_ok.sql") << "SELECT 1;\n";
  auto refused = [&](const std::string& expected) {
    try {
      read_sql_dir(dir);
      ADD_FAILURE() << "read without " << expected;
    } catch (const ClusterError& e) {
      EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
    }
  };
  fs::create_symlink(dir + "/procedures/nowhere.sql", dir + "/procedures/002_dangling.sql");
  refused("002_dangling.sql: No such file or directory");
  fs::remove(dir + "/procedures/002_dangling.sql");
  fs::create_symlink(dir + "/procedures/003_loop.sql", dir + "/procedures/003_loop.sql");
  refused("003_loop.sql: Too many levels of symbolic links");
  fs::remove(dir + "/procedures/003_loop.sql");
  std::ofstream(dir + "/procedures/004_nul.sql") << "SELECT 1;\nSELECT 'a" << '\0' << "b';\n";
  refused("004_nul.sql:2: a NUL byte");
  fs::remove(dir + "/procedures/004_nul.sql");
  std::ofstream(dir + "/procedures/005_huge.sql").close();
  fs::resize_file(dir + "/procedures/005_huge.sql", std::uintmax_t{1} << 30);  // sparse: no disk used
  refused("005_huge.sql: 1073741824 bytes, more than");
  fs::remove(dir + "/procedures/005_huge.sql");
  ASSERT_EQ(mkfifo((dir + "/schema.sql").c_str(), 0600), 0);
  refused("schema.sql: not a regular file");
  fs::remove(dir + "/schema.sql");
  EXPECT_EQ(read_sql_dir(dir).size(), 1u);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace qdt::impl::postgres
