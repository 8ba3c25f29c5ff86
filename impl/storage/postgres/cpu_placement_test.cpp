// A run's server processes are placed on the CPU its backend was given,
// beside the thread that drives them (cpu_placement.h).
#include "impl/storage/postgres/cpu_placement.h"

#include <gtest/gtest.h>
#include <sched.h>

#include <string>

#include "impl/storage/postgres/pg_storage_test_env.h"

namespace qdt::impl::postgres::testing {
namespace {

// The single CPU `pid` may run on, or -1 when it may run on several.
int only_cpu(pid_t pid) {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(pid, sizeof set, &set) != 0 || CPU_COUNT(&set) != 1) return -1;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &set)) return cpu;
  }
  return -1;
}

TEST(CpuPlacement, WorkersInDifferentSlotsGetDifferentCpus) {
  const auto first = cpu_for_slot(0);
  if (!first) GTEST_SKIP() << "this process may run on one CPU only: nothing to choose";
  const auto second = cpu_for_slot(1);
  ASSERT_TRUE(second.has_value());
  EXPECT_NE(*first, *second);
  EXPECT_TRUE(cpu_for_slot(std::nullopt).has_value());
}

TEST(CpuPlacement, EveryServerProcessOfARunRunsOnItsBackendsCpu) {
  const auto cpu = cpu_for_slot(1);
  if (!cpu) GTEST_SKIP() << "this process may run on one CPU only: nothing to place";
  cpu_set_t before;
  ASSERT_EQ(sched_getaffinity(0, sizeof before, &before), 0);
  {
    PgBackendOptions options;
    options.pg_url = backend().cluster().base_conninfo();
    options.cpu = cpu;
    PgBackend placed(options);
    EXPECT_EQ(only_cpu(0), *cpu) << "the thread that drives the run";
    ManualClock clock(kT0Ms);
    auto run = placed.begin_run();
    auto a = placed.connect(*run, "a", clock, nullptr, {});
    auto b = placed.connect(*run, "b", clock, nullptr, {});
    a->push(segment({"k"}));
    // Every connection to the backend's database: control, probe, a and b.
    PgConnPtr observer = backend().cluster().connect("postgres");
    const std::string sql = "SELECT pid FROM pg_catalog.pg_stat_activity WHERE datname = " +
                            quote_literal(observer.get(), placed.database()) + " AND pid <> pg_backend_pid()";
    PgResultPtr pids = exec_blocking(observer.get(), sql, "listing the run's backends");
    ASSERT_EQ(PQntuples(pids.get()), 4);
    for (int i = 0; i < PQntuples(pids.get()); ++i) {
      const pid_t pid = std::stoi(PQgetvalue(pids.get(), i, 0));
      EXPECT_EQ(only_cpu(pid), *cpu) << "backend " << pid;
    }
  }
  ASSERT_EQ(sched_setaffinity(0, sizeof before, &before), 0);  // the other tests run anywhere again
}

// The backends of the shared test backend were given no CPU: the kernel places them.
TEST(CpuPlacement, ABackendGivenNoCpuPlacesNothing) {
  if (!cpu_for_slot(0)) GTEST_SKIP() << "this process may run on one CPU only";
  ManualClock clock(kT0Ms);
  auto run = backend().begin_run();
  auto a = backend().connect(*run, "a", clock, nullptr, {});
  PgConnPtr observer = backend().cluster().connect("postgres");
  const std::string sql = "SELECT pid FROM pg_catalog.pg_stat_activity WHERE datname = " +
                          quote_literal(observer.get(), backend().database());
  PgResultPtr pids = exec_blocking(observer.get(), sql, "listing the run's backends");
  ASSERT_GE(PQntuples(pids.get()), 3);
  for (int i = 0; i < PQntuples(pids.get()); ++i) {
    EXPECT_EQ(only_cpu(std::stoi(PQgetvalue(pids.get(), i, 0))), -1);
  }
}

}  // namespace
}  // namespace qdt::impl::postgres::testing
