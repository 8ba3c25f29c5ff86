// The adapter's start-up check (docs/semantics.md §9.4) against qdt's own SQL and against
// a foreign-like implementation that lacks qdt's optional parts.
#include "impl/storage/postgres/interface_check.h"

#include <gtest/gtest.h>

#include "impl/storage/postgres/postgres_test_env.h"
#include "impl/storage/postgres/reset.h"
#include "impl/storage/postgres/sql_loader.h"

namespace qdt::impl::postgres {
namespace {

TEST(InterfaceCheck, QdtsOwnSqlHasEveryPartIncludingTheWindowGuard) {
  PgConnPtr conn = testing::cluster().connect(testing::database());
  const InterfaceCheck check = check_interface(conn.get());
  EXPECT_TRUE(check.missing_required.empty()) << check.missing_required.front();
  EXPECT_TRUE(check.missing_optional.empty()) << check.missing_optional.front();
  EXPECT_TRUE(check.window_guard_one);
  EXPECT_TRUE(check.window_guard_multi);
  EXPECT_TRUE(check.qdt_reads);
  EXPECT_EQ(check.tables_present, interface_tables());
}

TEST(InterfaceCheck, NamesWhatAForeignImplementationLacks) {
  {
    PgConnPtr admin = testing::cluster().connect("postgres");
    exec_blocking(admin.get(), "DROP DATABASE IF EXISTS qdt_foreign_like", "drop");
    exec_blocking(admin.get(), "CREATE DATABASE qdt_foreign_like TEMPLATE template0", "create");
  }
  PgConnPtr conn = testing::cluster().connect("qdt_foreign_like");
  // The interface's push without qdt's guard parameter, a segment_at taking
  // the wrong type, and no purge step at all.
  apply_sql(conn.get(), {{"foreign.sql",
                          "CREATE SCHEMA queen;\n"
                          "CREATE TABLE queen.log_txns (x int);\n"
                          "CREATE FUNCTION queen.log_push_one_v1(p_queue text, p_partition text, p_msg_count int, "
                          "p_hashes bytea, p_verified bigint, p_blob bytea, p_pid uuid DEFAULT NULL, "
                          "p_window int DEFAULT NULL, p_tenant uuid DEFAULT NULL) RETURNS jsonb "
                          "LANGUAGE sql AS $$ SELECT '{}'::jsonb $$;\n"
                          "CREATE FUNCTION queen.log_segment_at_v1(p_pid uuid, p_off int) RETURNS int "
                          "LANGUAGE sql AS $$ SELECT 1 $$;\n"}});
  const InterfaceCheck check = check_interface(conn.get());
  EXPECT_FALSE(check.window_guard_one);
  EXPECT_FALSE(check.qdt_reads);
  const auto has = [](const std::vector<std::string>& list, const std::string& text) {
    for (const std::string& s : list) {
      if (s.find(text) != std::string::npos) return true;
    }
    return false;
  };
  EXPECT_FALSE(has(check.missing_required, "log_push_one_v1"));
  EXPECT_TRUE(has(check.missing_required, "queen.log_segment_at_v1(uuid, bigint)"));
  EXPECT_TRUE(has(check.missing_required, "queen.log_txns_purge_step_v1(uuid, timestamp with time zone, integer)"));
  EXPECT_TRUE(has(check.missing_optional, "log_push_one_v1 takes no p_window_assumed"));
  EXPECT_FALSE(has(check.missing_optional, "qdt_read"));
  EXPECT_EQ(check.tables_present, std::vector<std::string>{"queen.log_txns"});
}

}  // namespace
}  // namespace qdt::impl::postgres
