#include "impl/storage/postgres/postgres_test_env.h"

#include <unistd.h>

#include <cassert>
#include <memory>

#include "impl/storage/postgres/reset.h"

namespace qdt::impl::postgres::testing {
namespace {

std::unique_ptr<Cluster> g_cluster;
std::string g_database;
ResetPlan g_reset_plan;

class Environment : public ::testing::Environment {
 public:
  void SetUp() override {
    g_cluster = Cluster::start_local({});
    g_cluster->prepare_template(own_interface_sql());
    g_database = "qdt_test_" + std::to_string(getpid());
    g_cluster->create_database(g_database);
    PgConnPtr conn = g_cluster->connect(g_database);
    g_reset_plan = plan_reset(conn.get());
  }
  void TearDown() override { g_cluster.reset(); }
};

const auto* const g_environment = ::testing::AddGlobalTestEnvironment(new Environment);

}  // namespace

Cluster& cluster() {
  assert(g_cluster);
  return *g_cluster;
}
const std::string& database() { return g_database; }
const ResetPlan& reset_plan() { return g_reset_plan; }

std::string hashes(const std::vector<std::string>& transaction_ids) {
  std::string out;
  for (const std::string& id : transaction_ids) {
    const Hash128 h = hash_transaction_id(id);
    out.append(reinterpret_cast<const char*>(h.bytes.data()), 16);
  }
  return out;
}

nlohmann::json interface_part(nlohmann::json answer) {
  if (answer.is_array()) {
    for (auto& element : answer) element = interface_part(element);
    return answer;
  }
  if (!answer.is_object()) return answer;
  for (auto it = answer.begin(); it != answer.end();) {
    it = it.key().rfind("qdt", 0) == 0 ? answer.erase(it) : std::next(it);
  }
  return answer;
}

void PgTest::SetUp() {
  conn_ = cluster().connect(database());
  reset_database(conn_.get(), reset_plan());
  set_clock_us(kT0Us);
}

std::vector<std::vector<std::optional<std::string>>> PgTest::query(
    const std::string& sql, const std::vector<std::optional<std::string>>& params) {
  std::vector<const char*> values;
  for (const auto& p : params) values.push_back(p ? p->c_str() : nullptr);
  PgResultPtr result(PQexecParams(conn_.get(), sql.c_str(), static_cast<int>(params.size()), nullptr,
                                  values.data(), nullptr, nullptr, 0));
  std::vector<std::vector<std::optional<std::string>>> rows;
  const ExecStatusType status = PQresultStatus(result.get());
  EXPECT_TRUE(status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK) << sql << ": " << PQerrorMessage(conn_.get());
  if (status != PGRES_TUPLES_OK) return rows;
  for (int r = 0; r < PQntuples(result.get()); ++r) {
    rows.emplace_back();
    for (int c = 0; c < PQnfields(result.get()); ++c) {
      if (PQgetisnull(result.get(), r, c)) {
        rows.back().emplace_back(std::nullopt);
      } else {
        rows.back().emplace_back(PQgetvalue(result.get(), r, c));
      }
    }
  }
  return rows;
}

std::string PgTest::scalar(const std::string& sql, const std::vector<std::optional<std::string>>& params) {
  const auto rows = query(sql, params);
  if (rows.size() != 1 || rows[0].size() != 1 || !rows[0][0]) {
    ADD_FAILURE() << sql << ": expected one non-NULL value";
    return "";
  }
  return *rows[0][0];
}

void PgTest::set_clock_us(int64_t now_us) {
  // Tests move the clock freely, backwards too, so they bypass set_us's guard.
  query("UPDATE qdt_clock.clock SET now_us = $1", {std::to_string(now_us)});
}

nlohmann::json PgTest::push(const std::string& queue, const std::string& partition,
                            const std::vector<std::string>& ids, int64_t verified,
                            std::optional<int64_t> window_assumed) {
  const std::string packed = hashes(ids);
  const std::string blob = "blob:" + std::to_string(ids.size());
  const std::string count_text = std::to_string(ids.size());
  const std::string verified_text = std::to_string(verified);
  const std::string assumed_text = window_assumed ? std::to_string(*window_assumed) : "";
  const char* values[] = {queue.c_str(),         partition.c_str(), count_text.c_str(), packed.data(),
                          verified_text.c_str(), blob.data(),       window_assumed ? assumed_text.c_str() : nullptr};
  const int lengths[] = {0, 0, 0, static_cast<int>(packed.size()), 0, static_cast<int>(blob.size()), 0};
  const int formats[] = {0, 0, 0, 1, 0, 1, 0};
  PgResultPtr result(PQexecParams(conn_.get(),
                                  "SELECT queen.log_push_one_v1($1, $2, $3::int, $4::bytea, $5::bigint, $6::bytea, "
                                  "p_window_assumed => $7::int)",
                                  7, nullptr, values, lengths, formats, 0));
  if (PQresultStatus(result.get()) != PGRES_TUPLES_OK) {
    ADD_FAILURE() << "push: " << PQerrorMessage(conn_.get());
    return nullptr;
  }
  return nlohmann::json::parse(PQgetvalue(result.get(), 0, 0));
}

std::string PgTest::partition_id(const std::string& queue, const std::string& partition) {
  return scalar(
      "SELECT p.id FROM queen.log_partitions p JOIN queen.queues q ON q.id = p.queue_id "
      "WHERE q.name = $1 AND p.name = $2",
      {queue, partition});
}

void PgTest::set_window(const std::string& queue, int64_t window_seconds) {
  query("UPDATE queen.queues SET dedup_window_seconds = $2 WHERE name = $1", {queue, std::to_string(window_seconds)});
}

int64_t PgTest::count(const std::string& table) {
  return std::stoll(scalar("SELECT count(*) FROM " + table));
}

}  // namespace qdt::impl::postgres::testing
