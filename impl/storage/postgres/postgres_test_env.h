#pragma once
// What every PostgreSQL test shares: one cluster per test process (as qdt
// runs one per process), one database made from the template, reset before
// each test, and helpers that call the interface's functions.
#include <gtest/gtest.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "impl/hash.h"
#include "impl/storage/postgres/cluster.h"
#include "impl/storage/postgres/pg_connection.h"
#include "impl/storage/postgres/reset.h"

namespace qdt::impl::postgres::testing {

Cluster& cluster();
const std::string& database();
// The reset plan of database(), made before any test wrote to it.
const ResetPlan& reset_plan();

// Unix microseconds used as the start of virtual time in the tests.
inline constexpr int64_t kT0Us = 1'700'000'000'000'000;
inline constexpr int64_t kSecondUs = 1'000'000;

// The hashes of these transactionIds, packed 16 bytes each.
std::string hashes(const std::vector<std::string>& transaction_ids);

// `answer` without the keys qdt's own SQL adds beyond the interface ("qdt...").
nlohmann::json interface_part(nlohmann::json answer);

// A blocking connection with qdt's search_path; resets the database first.
class PgTest : public ::testing::Test {
 protected:
  void SetUp() override;
  PGconn* conn() { return conn_.get(); }
  // Runs `sql` with text parameters (std::nullopt: NULL) and returns the
  // rows; fails the test on an error.
  std::vector<std::vector<std::optional<std::string>>> query(const std::string& sql,
                                                             const std::vector<std::optional<std::string>>& params = {});
  std::string scalar(const std::string& sql, const std::vector<std::optional<std::string>>& params = {});
  void set_clock_us(int64_t now_us);
  // log_push_one_v1 with the queue's own window.
  nlohmann::json push(const std::string& queue, const std::string& partition, const std::vector<std::string>& ids,
                      int64_t verified = -1, std::optional<int64_t> window_assumed = std::nullopt);
  std::string partition_id(const std::string& queue, const std::string& partition);
  void set_window(const std::string& queue, int64_t window_seconds);
  int64_t count(const std::string& table);

 private:
  PgConnPtr conn_;
};

}  // namespace qdt::impl::postgres::testing
