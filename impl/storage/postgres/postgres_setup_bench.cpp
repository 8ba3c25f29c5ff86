// Measures what docs/semantics.md §9.1 chooses between: resetting a database in place and
// creating one from the template (plus five connections and a DROP).
// Usage: postgres_setup_bench [rounds]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "impl/storage/postgres/cluster.h"
#include "impl/storage/postgres/reset.h"

using namespace qdt::impl::postgres;

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 50;
  try {
    using Clock = std::chrono::steady_clock;
    auto cluster = Cluster::start_local({});
    cluster->prepare_template(own_interface_sql());
    cluster->create_database("bench");
    PgConnPtr conn = cluster->connect("bench");
    const ResetPlan plan = plan_reset(conn.get());
    std::vector<double> reset_ms;
    std::vector<double> truncate_ms;
    for (int i = 0; i < rounds; ++i) {
      exec_blocking(conn.get(),
                    "SELECT queen.log_push_one_v1('q', 'p' || g, 1, decode(md5(g::text), 'hex'), -1, '\\x00') "
                    "FROM generate_series(1, 20) g",
                    "pushing");
      const auto start = Clock::now();
      reset_database(conn.get(), plan, true);
      truncate_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    }
    for (int i = 0; i < rounds; ++i) {
      exec_blocking(conn.get(),
                    "SELECT queen.log_push_one_v1('q', 'p' || g, 1, decode(md5(g::text), 'hex'), -1, '\\x00') "
                    "FROM generate_series(1, 20) g",
                    "pushing");
      const auto start = Clock::now();
      reset_database(conn.get(), plan);
      reset_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    }
    std::vector<double> create_ms;
    std::vector<double> create_only_ms;
    for (int i = 0; i < rounds / 5 + 1; ++i) {
      const std::string name = "fresh_" + std::to_string(i);
      const auto start = Clock::now();
      cluster->create_database(name);
      create_only_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
      {
        std::vector<PgConnPtr> five;
        for (int c = 0; c < 5; ++c) five.push_back(cluster->connect(name));
      }
      cluster->drop_database(name);
      create_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
    }
    const auto report = [](const char* what, std::vector<double> v) {
      std::sort(v.begin(), v.end());
      std::printf("%s: n=%zu median %.3f ms, p90 %.3f ms, min %.3f ms\n", what, v.size(), v[v.size() / 2],
                  v[v.size() * 9 / 10], v.front());
    };
    report("reset in place (delete + clock)", reset_ms);
    report("reset in place (truncate + clock)", truncate_ms);
    report("CREATE DATABASE ... TEMPLATE alone", create_only_ms);
    report("database from template + 5 connections + drop", create_ms);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  return 0;
}
