#include "impl/storage/postgres/pg_storage_test_env.h"

#include <gtest/gtest.h>

#include <cassert>
#include <memory>

namespace qdt::impl::postgres::testing {
namespace {

std::unique_ptr<PgBackend> g_backend;

class Environment : public ::testing::Environment {
 public:
  void SetUp() override { g_backend = std::make_unique<PgBackend>(); }
  void TearDown() override { g_backend.reset(); }
};

const auto* const g_environment = ::testing::AddGlobalTestEnvironment(new Environment);

}  // namespace

PgBackend& backend() {
  assert(g_backend);
  return *g_backend;
}

Frame frame(const std::string& transaction_id, uint64_t n) {
  Frame f;
  f.message_id = make_uuid_v7(1000 + static_cast<int64_t>(n), n, n + 1);
  f.transaction_id = transaction_id;
  f.payload = "{\"n\":" + std::to_string(n) + "}";
  f.hash = hash_transaction_id(transaction_id);
  return f;
}

SegmentPush segment(const std::vector<std::string>& transaction_ids, const std::string& queue,
                    const std::string& partition, int64_t p_verified, int64_t window_assumed) {
  SegmentPush s;
  s.queue = queue;
  s.partition = partition;
  s.p_verified = p_verified;
  s.window_seconds_assumed = window_assumed;
  uint64_t n = 0;
  for (const auto& t : transaction_ids) s.frames.push_back(frame(t, n++));
  return s;
}

}  // namespace qdt::impl::postgres::testing
