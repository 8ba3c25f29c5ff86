// The caller protocol of docs/semantics.md §10.2, against a recording cache:
// what each rule set passes, in which order, and that every doubt sends -1.
// Judged against the protocol's text, never against a module's answers.
#include "impl/broker/foreign_cache_caller.h"

#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "impl/broker/direct_ports_test.h"
#include "impl/hash.h"

namespace qdt::impl {
namespace {

struct Recorded {
  std::vector<std::string> calls;  // "expire now=.. window=..", "hydrate start=.. last=.. rows=..", ...
  int renewals = 0;
};

// Answers what the test scripts; records every call with its arguments.
struct RecordingCache : ForeignCache {
  explicit RecordingCache(Recorded& r) : log(r) {}
  Recorded& log;
  HydrationNeed need{HydrationNeed::Kind::full};
  PushCheck answer{false, 7};
  void expire(const std::string& pid, int64_t window_ms, int64_t now_ms) override {
    log.calls.push_back("expire window=" + std::to_string(window_ms) + " now=" + std::to_string(now_ms));
  }
  HydrationNeed needs_hydration(const std::string& pid, int64_t now_ms) override {
    log.calls.push_back("needs_hydration");
    return need;
  }
  void hydrate(const std::string& pid, const std::vector<SidecarRow>& rows, int64_t window_start_ms,
               int64_t current_last_offset, int64_t now_ms) override {
    log.calls.push_back("hydrate rows=" + std::to_string(rows.size()) + " start=" + std::to_string(window_start_ms) +
                        " last=" + std::to_string(current_last_offset));
    need = {};
  }
  PushCheck verified_for_push(const std::string& pid, const std::vector<Hash128>& hashes, int64_t now_ms) override {
    log.calls.push_back("verified_for_push n=" + std::to_string(hashes.size()));
    return answer;
  }
  void on_push_committed(const std::string& pid, int64_t base, const std::vector<Hash128>& hashes,
                         int64_t now_ms) override {
    log.calls.push_back("committed base=" + std::to_string(base) + " at=" + std::to_string(now_ms));
  }
  void renew(bool enabled) override {
    ++log.renewals;
    need = {HydrationNeed::Kind::full};
  }
};

struct ScriptedSource : HydrationSource {
  SidecarRead read;
  bool fail = false;
  std::vector<int64_t> since;  // per read
  std::function<void()> during;  // runs while the read is "out"
  SidecarRead sidecar_rows(const std::string&, const std::string&, int64_t after, int64_t since_ms) override {
    EXPECT_EQ(after, -1);  // always a full-window read
    since.push_back(since_ms);
    if (during) during();
    if (fail) throw StorageError("read failed");
    return read;
  }
};

constexpr int64_t kNow = 1'000'000;
const std::vector<Hash128> kHashes = {hash_transaction_id("a"), hash_transaction_id("b")};

struct Fixture {
  Recorded log;
  RecordingCache* cache;
  ForeignCacheCaller caller;
  ScriptedSource source;
  explicit Fixture(CacheCaller rules)
      : caller(std::unique_ptr<ForeignCache>(cache = new RecordingCache(log)), rules, true) {
    source.read.last_offset = 4;
    source.read.rows.push_back({0, 4, kNow - 10'000, std::vector<Hash128>(5, hash_transaction_id("x"))});
  }
};

TEST(ForeignCacheCaller, ShippedExpiresByTheBrokerClockAndHydratesWithFiveSecondsOfSlack) {
  Fixture f(CacheCaller::shipped);
  EXPECT_EQ(f.caller.watermark("q", "p", kHashes, kNow, 60, f.source), 7);
  EXPECT_EQ(f.log.calls, (std::vector<std::string>{"expire window=60000 now=1000000", "needs_hydration",
                                                   "hydrate rows=1 start=935000 last=4", "verified_for_push n=2"}));
  // No storage time seen before the first read: it takes every row.
  EXPECT_EQ(f.source.since.at(0), std::numeric_limits<int64_t>::min());
  f.caller.record_queued("q", "p", 5, kHashes, kNow - 3000);
  EXPECT_EQ(f.log.calls.back(), "committed base=5 at=997000");  // storage's created_at, not the broker's clock
  f.log.calls.clear();
  // The broker's clock runs ahead of storage: the shipped caller still expires by it.
  EXPECT_EQ(f.caller.watermark("q", "p", kHashes, kNow + 50'000, 60, f.source), 7);
  EXPECT_EQ(f.log.calls, (std::vector<std::string>{"expire window=60000 now=1050000", "needs_hydration",
                                                   "verified_for_push n=2"}));
}

TEST(ForeignCacheCaller, ReferenceExpiresByTheNewestStorageTimeAndNeverBeforeOne) {
  Fixture f(CacheCaller::reference);
  EXPECT_EQ(f.caller.watermark("q", "p", kHashes, kNow, 60, f.source), 7);
  EXPECT_EQ(f.log.calls.at(0), "needs_hydration");  // no storage time yet: nothing expires
  // The read taught it storage's time (the row's created_at): the window starts there.
  f.caller.record_queued("q", "p", 5, kHashes, kNow - 3000);
  f.log.calls.clear();
  f.cache->need = {HydrationNeed::Kind::full};
  EXPECT_EQ(f.caller.watermark("q", "p", kHashes, kNow + 50'000, 60, f.source), 7);
  EXPECT_EQ(f.log.calls, (std::vector<std::string>{"expire window=60000 now=997000", "needs_hydration",
                                                   "hydrate rows=1 start=937000 last=4", "verified_for_push n=2"}));
  EXPECT_EQ(f.source.since.at(1), 937'000);
}

TEST(ForeignCacheCaller, AWindowChangeRehydratesWithoutAsking) {
  Fixture f(CacheCaller::shipped);
  f.caller.watermark("q", "p", kHashes, kNow, 60, f.source);
  f.log.calls.clear();
  f.caller.watermark("q", "p", kHashes, kNow, 120, f.source);
  EXPECT_EQ(f.log.calls, (std::vector<std::string>{"expire window=120000 now=1000000",
                                                   "hydrate rows=1 start=875000 last=4", "verified_for_push n=2"}));
}

TEST(ForeignCacheCaller, EveryDoubtSendsMinusOne) {
  Fixture f(CacheCaller::shipped);
  f.cache->answer = {true, 9};  // a hit is a hint, never a verdict
  EXPECT_EQ(f.caller.watermark("q", "p", kHashes, kNow, 60, f.source), -1);
  Fixture failing(CacheCaller::shipped);
  failing.source.fail = true;  // the read failed: the module is not told, and not asked
  EXPECT_EQ(failing.caller.watermark("q", "p", kHashes, kNow, 60, failing.source), -1);
  EXPECT_EQ(failing.log.calls, (std::vector<std::string>{"expire window=60000 now=1000000", "needs_hydration"}));
  Fixture renewed(CacheCaller::shipped);
  renewed.source.during = [&] { renewed.caller.forget(); };  // a crash of the broker's memory mid-read
  EXPECT_EQ(renewed.caller.watermark("q", "p", kHashes, kNow, 60, renewed.source), -1);
  EXPECT_EQ(renewed.log.renewals, 1);
  EXPECT_EQ(renewed.log.calls.back(), "needs_hydration");  // the read went to a cache that is gone
  Fixture lying(CacheCaller::shipped);
  lying.cache->answer = {false, -2};
  EXPECT_THROW(lying.caller.watermark("q", "p", kHashes, kNow, 60, lying.source), ForeignCacheError);
}

TEST(ForeignCacheCaller, StatsCountEveryCallIntoTheModule) {
  Fixture f(CacheCaller::shipped);
  f.caller.watermark("q", "p", kHashes, kNow, 60, f.source);
  f.caller.record_queued("q", "p", 5, kHashes, kNow);
  f.cache->answer = {true, 9};
  f.caller.watermark("q", "p", kHashes, kNow, 60, f.source);
  f.caller.forget();
  const ForeignCacheCaller::Stats& st = f.caller.stats();
  EXPECT_EQ(st.calls, f.log.calls.size() + 1);  // the renewal is not in the recorded calls
  EXPECT_EQ(st.answers, 2u);
  EXPECT_EQ(st.vouched, 1u);
  EXPECT_EQ(st.local_duplicates, 1u);
  EXPECT_EQ(st.hydrations, 1u);
  EXPECT_EQ(st.renewals, 1u);
  Fixture failing(CacheCaller::shipped);
  failing.source.fail = true;
  failing.caller.watermark("q", "p", kHashes, kNow, 60, failing.source);
  EXPECT_EQ(failing.caller.stats().hydration_failures, 1u);
  EXPECT_EQ(failing.caller.stats().answers, 0u);
}

TEST(ForeignCacheCaller, PidsKeepQueueAndPartitionApart) {
  EXPECT_NE(ForeignCacheCaller::pid("ab", "c"), ForeignCacheCaller::pid("a", "bc"));
  EXPECT_EQ(ForeignCacheCaller::pid("q", "p"), std::string("q\x1fp"));
}

// Through the broker: window 0 (and a window not yet learnt) never asks the cache.
TEST(ForeignCacheCaller, TheBrokerDoesNotAskWithWindowZeroOrUnknown) {
  testing_broker::FixedClock clock;
  testing_broker::CountingRandom random;
  testing_broker::DirectStorage storage(clock);
  storage.serve_hydration = true;
  Broker broker(0, clock, random, storage);
  Recorded log;
  broker.use_foreign_cache(std::make_unique<RecordingCache>(log), CacheCaller::reference, true);
  storage.storage.configure("q", nlohmann::json::parse(R"({"dedupWindowSeconds":0})"));
  broker.push(nlohmann::json::parse(R"([{"queue":"q","transactionId":"t1","data":{}}])"), 1);
  broker.push(nlohmann::json::parse(R"([{"queue":"q","transactionId":"t2","data":{}}])"), 2);
  // Only taught (each commit), never asked.
  EXPECT_EQ(log.calls, (std::vector<std::string>{"committed base=0 at=1767225600000", "committed base=1 at=1767225600000"}));
  storage.storage.configure("q", nlohmann::json::parse(R"({"dedupWindowSeconds":60})"));
  broker.push(nlohmann::json::parse(R"([{"queue":"q","transactionId":"t3","data":{}}])"), 3);  // learns 60
  log.calls.clear();
  broker.push(nlohmann::json::parse(R"([{"queue":"q","transactionId":"t4","data":{}}])"), 4);
  ASSERT_FALSE(log.calls.empty());
  EXPECT_EQ(log.calls.front().rfind("expire window=60000", 0), 0u) << log.calls.front();
}

}  // namespace
}  // namespace qdt::impl
