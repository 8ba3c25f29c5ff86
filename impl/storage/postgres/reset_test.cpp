// The reset between runs on a database as messy as a user's checkout
// (docs/semantics.md §9.4): other features' tables with foreign keys to the
// interface's, seed rows, sequences, and a cycle of foreign keys.
#include "impl/storage/postgres/reset.h"

#include <gtest/gtest.h>

#include "impl/storage/postgres/postgres_test_env.h"
#include "impl/storage/postgres/sql_loader.h"

namespace qdt::impl::postgres {
namespace {

constexpr const char* kOtherFeatures =
    "CREATE TABLE queen.queue_notes (id bigserial PRIMARY KEY, queue_id uuid NOT NULL REFERENCES queen.queues(id), "
    "note text);\n"
    "CREATE TABLE public.tenants (id int PRIMARY KEY, name text NOT NULL, shout text GENERATED ALWAYS AS "
    "(upper(name)) STORED);\n"
    "INSERT INTO public.tenants (id, name) VALUES (1, 'default');\n"
    "CREATE TABLE public.tenant_limits (tenant int PRIMARY KEY REFERENCES public.tenants(id), max_queues int);\n"
    "INSERT INTO public.tenant_limits VALUES (1, 10);\n";

constexpr const char* kCycle =
    "CREATE TABLE public.cycle_a (id int PRIMARY KEY, b int);\n"
    "CREATE TABLE public.cycle_b (id int PRIMARY KEY, a int REFERENCES public.cycle_a(id));\n"
    "ALTER TABLE public.cycle_a ADD FOREIGN KEY (b) REFERENCES public.cycle_b(id) DEFERRABLE INITIALLY DEFERRED;\n";

class MessyReset : public ::testing::Test {
 protected:
  void open(const std::string& name, const std::string& extra) {
    // The template holds qdt's clock and own SQL; the other features come on top.
    testing::cluster().create_database(name);
    conn_ = testing::cluster().connect(name);
    apply_sql(conn_.get(), {{"procedures/090_other_features.sql", extra}});
  }
  std::string scalar(const std::string& sql) {
    PgResultPtr r = exec_blocking(conn_.get(), sql, "query");
    return PQgetvalue(r.get(), 0, 0);
  }
  // A run's writes: a push, a row of another feature that references the
  // queue, a tenant, and a sequence moved on.
  void write_like_a_run() {
    exec_blocking(conn_.get(),
                  "SELECT queen.log_push_one_v1('q', 'p', 1, decode(repeat('ab', 16), 'hex'), -1, '\\x00')", "push");
    exec_blocking(conn_.get(),
                  "INSERT INTO queen.queue_notes (queue_id, note) SELECT id, 'x' FROM queen.queues; "
                  "INSERT INTO public.tenants (id, name) VALUES (2, 'other'); "
                  "UPDATE public.tenant_limits SET max_queues = 99",
                  "write");
  }
  void expect_as_loaded() {
    EXPECT_EQ(scalar("SELECT count(*) FROM queen.queues"), "0");
    EXPECT_EQ(scalar("SELECT count(*) FROM queen.log_txns"), "0");
    EXPECT_EQ(scalar("SELECT count(*) FROM queen.queue_notes"), "0");
    EXPECT_EQ(scalar("SELECT string_agg(id || name || shout, ',' ORDER BY id) FROM public.tenants"), "1defaultDEFAULT");
    EXPECT_EQ(scalar("SELECT max_queues FROM public.tenant_limits"), "10");
    EXPECT_EQ(scalar("SELECT nextval('queen.queue_notes_id_seq')"), "1");
  }
  PgConnPtr conn_;
};

TEST_F(MessyReset, RestoresEveryTableAndSequenceWhateverReferencesTheQueues) {
  open("qdt_messy_reset", kOtherFeatures);
  const ResetPlan plan = plan_reset(conn_.get());
  EXPECT_FALSE(plan.foreign_key_cycle);
  ASSERT_EQ(plan.restore_statements.size(), 2u);  // tenants, then the limits that reference them
  EXPECT_NE(plan.restore_statements[0].find("public.tenants "), std::string::npos) << plan.restore_statements[0];
  for (bool truncate : {false, true, false}) {
    write_like_a_run();
    reset_database(conn_.get(), plan, truncate);
    SCOPED_TRACE(truncate ? "truncate" : "delete");
    expect_as_loaded();
  }
}

TEST_F(MessyReset, RandomIdsRepeatAfterEachReset) {
  open("qdt_uuid_reset", "CREATE TABLE public.things (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), n int);\n");
  const ResetPlan plan = plan_reset(conn_.get());
  std::string first;
  for (int run = 0; run < 2; ++run) {
    reset_database(conn_.get(), plan);
    exec_blocking(conn_.get(), "INSERT INTO public.things (n) SELECT generate_series(1, 3)", "insert");
    const std::string ids = scalar("SELECT string_agg(id::text, ',' ORDER BY n) FROM public.things");
    if (run == 0) first = ids;
    EXPECT_EQ(ids, first);
  }
  EXPECT_EQ(scalar("SELECT count(DISTINCT id) FROM public.things"), "3");
}

TEST_F(MessyReset, ACycleOfForeignKeysIsTruncatedWhole) {
  open("qdt_cyclic_reset", std::string(kOtherFeatures) + kCycle);
  const ResetPlan plan = plan_reset(conn_.get());
  EXPECT_TRUE(plan.foreign_key_cycle);
  write_like_a_run();
  exec_blocking(conn_.get(), "BEGIN; INSERT INTO public.cycle_a VALUES (1, 1); INSERT INTO public.cycle_b VALUES (1, 1); COMMIT",
                "cycle");
  reset_database(conn_.get(), plan);
  expect_as_loaded();
  EXPECT_EQ(scalar("SELECT count(*) FROM public.cycle_a"), "0");
}

}  // namespace
}  // namespace qdt::impl::postgres
