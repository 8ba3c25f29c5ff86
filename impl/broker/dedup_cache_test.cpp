#include "impl/broker/dedup_cache.h"
#include "impl/broker/dedup_cache_fake_storage_test.h"
#include "impl/storage/sqlite/sqlite.h"

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <random>
#include <stdexcept>

namespace qdt::impl {
namespace {

using testing_cache::FakeStorage;
using testing_cache::h;
using testing_cache::hs;

constexpr int64_t kWindow = 60;  // seconds

// The charge of a partition keyed ("q", one-letter partition) whose buffers
// hold these capacities (DedupCache's accounting formula).
int64_t charged(int64_t row_capacity, int64_t hash_capacity, int64_t index_slots) {
  return DedupCache::kPartitionBytes + 2 + row_capacity * DedupCache::kRowBytes +
         hash_capacity * DedupCache::kHashBytes + index_slots * DedupCache::kIndexSlotBytes;
}
// One row of one hash, as a full read leaves it: exact buffers, the smallest index.
const int64_t kOneRowBytes = charged(1, 1, static_cast<int64_t>(HashMultiset::kMinSlots));

struct CacheTest : testing::Test {
  FakeStorage storage;
  DedupCache cache{CacheConfig{}};
  const std::string q = "q";
  const std::string p = "p";

  int64_t wm(const std::vector<Hash128>& hashes, int64_t window = kWindow, const std::string& part = "p") {
    return cache.watermark(q, part, hashes, storage.now, window, storage);
  }
  // Commit through "this broker": storage commit + record.
  int64_t ours(const std::vector<Hash128>& hashes, const std::string& part = "p", int64_t window = kWindow) {
    const int64_t base = storage.commit(q, part, hashes);
    cache.record_queued(q, part, base, base + static_cast<int64_t>(hashes.size()) - 1, storage.now, hashes, window);
    return base;
  }
  DedupCache::PartitionView view(const std::string& part = "p") {
    auto v = cache.inspect(q, part);
    EXPECT_TRUE(v.has_value());
    return v.value_or(DedupCache::PartitionView{});
  }
};

TEST_F(CacheTest, FullHydrationOnFirstUse) {
  storage.commit(q, p, hs({1, 2}));
  storage.commit(q, p, hs({3}));
  EXPECT_FALSE(cache.inspect(q, p).has_value());
  EXPECT_EQ(wm(hs({9})), 2);
  ASSERT_EQ(storage.calls.size(), 1u);
  EXPECT_EQ(storage.calls[0].after, -1);
  // Cold cache: no storage time seen yet, so it reads everything still in the sidecar.
  EXPECT_EQ(storage.calls[0].since, std::numeric_limits<int64_t>::min());
  EXPECT_EQ(cache.stats().hydrations_full, 1u);
  EXPECT_EQ(view().rows, 2u);
  EXPECT_EQ(view().hydrated_from, 0);
  EXPECT_EQ(wm(hs({8})), 2);
  EXPECT_EQ(storage.calls.size(), 1u);  // warm: no second read
}

TEST_F(CacheTest, EmptyPartitionAnswersMinusOne) {
  EXPECT_EQ(wm(hs({1})), -1);  // nothing verified yet: -1 == "probe everything" anyway
  EXPECT_TRUE(view().hydrated);
  ours(hs({1}));
  EXPECT_EQ(wm(hs({2})), 0);
}

TEST_F(CacheTest, ContiguousRecordAdvances) {
  EXPECT_EQ(wm(hs({1})), -1);
  ours(hs({1, 2}));
  EXPECT_EQ(view().verified_upto, 1);
  ours(hs({3}));
  EXPECT_EQ(view().verified_upto, 2);
  EXPECT_FALSE(view().gap_pending);
  EXPECT_EQ(wm(hs({4})), 2);
  EXPECT_EQ(storage.calls.size(), 1u);
  EXPECT_EQ(view().distinct_hashes, 3u);
}

TEST_F(CacheTest, GapThenSpanHydration) {
  ours(hs({1}));  // ignored: partition unknown
  EXPECT_FALSE(cache.inspect(q, p).has_value());
  EXPECT_EQ(wm(hs({5})), 0);
  storage.commit(q, p, hs({2, 3}));  // another broker: offsets 1..2
  ours(hs({4}));                     // offset 3: gap [1, 2]
  EXPECT_TRUE(view().gap_pending);
  EXPECT_EQ(view().verified_upto, 0);
  EXPECT_EQ(wm(hs({5})), 3);
  ASSERT_EQ(storage.calls.size(), 2u);
  EXPECT_EQ(storage.calls[1].after, 0);  // just the missing span onward
  EXPECT_EQ(cache.stats().hydrations_span, 1u);
  EXPECT_FALSE(view().gap_pending);
  EXPECT_EQ(view().rows, 3u);
  EXPECT_EQ(wm(hs({2})), -1);  // the other broker's hash is now known
}

TEST_F(CacheTest, HitOnRowAboveTheGapStillAnswersMinusOne) {
  EXPECT_EQ(wm(hs({5})), -1);
  storage.commit(q, p, hs({2}));
  ours(hs({4}));
  storage.fail_next = 1;  // span read fails: gap stays, -1
  EXPECT_EQ(wm(hs({7})), -1);
  EXPECT_TRUE(view().gap_pending);
  EXPECT_EQ(cache.stats().hydration_failures, 1u);
  EXPECT_EQ(wm(hs({4})), -1);  // hit
  EXPECT_EQ(cache.stats().hits, 1u);
  EXPECT_FALSE(view().gap_pending);  // that flush read the span
}

TEST_F(CacheTest, RecordsChainThroughOutOfOrderCommits) {
  EXPECT_EQ(wm(hs({9})), -1);
  // Two flushes of this broker commit 0 and 1, the records arrive in reverse.
  const int64_t b0 = storage.commit(q, p, hs({1}));
  const int64_t b1 = storage.commit(q, p, hs({2}));
  cache.record_queued(q, p, b1, b1, storage.now, hs({2}), kWindow);
  EXPECT_TRUE(view().gap_pending);
  cache.record_queued(q, p, b0, b0, storage.now, hs({1}), kWindow);
  EXPECT_FALSE(view().gap_pending);
  EXPECT_EQ(view().verified_upto, 1);
  EXPECT_EQ(wm(hs({3})), 1);
  EXPECT_EQ(storage.calls.size(), 1u);
}

TEST_F(CacheTest, OverlapMarksRebuild) {
  ours(hs({1}));
  EXPECT_EQ(wm(hs({9})), 0);
  // A record at an offset already verified, with other content: the cache's
  // picture is wrong (e.g. storage was reset). Rebuild from storage.
  cache.record_queued(q, p, 0, 0, storage.now, hs({7}), kWindow);
  EXPECT_TRUE(view().rebuild);
  EXPECT_EQ(cache.stats().rebuilds, 1u);
  EXPECT_EQ(wm(hs({9})), 0);
  ASSERT_EQ(storage.calls.size(), 2u);
  EXPECT_EQ(storage.calls[1].after, -1);
  EXPECT_EQ(cache.stats().hydrations_full, 2u);
  EXPECT_FALSE(view().rebuild);
  EXPECT_EQ(wm(hs({1})), -1);  // storage's content, not the bogus record's
}

TEST_F(CacheTest, RecordOfARowTheReadAlreadyHadIsANoop) {
  EXPECT_EQ(wm(hs({9})), -1);
  const int64_t base = storage.commit(q, p, hs({1, 2}));
  storage.commit(q, p, hs({3}));  // other broker
  ours(hs({4}));                  // gap -> span read that sees base's row too
  EXPECT_EQ(wm(hs({9})), 3);
  cache.record_queued(q, p, base, base + 1, storage.now, hs({1, 2}), kWindow);  // late record
  EXPECT_FALSE(view().rebuild);
  EXPECT_EQ(cache.stats().rebuilds, 0u);
  EXPECT_EQ(view().verified_upto, 3);
}

TEST_F(CacheTest, RecordDuringSpanReadMerges) {
  EXPECT_EQ(wm(hs({9})), -1);
  storage.commit(q, p, hs({1}));  // other broker: 0
  ours(hs({2}));                  // 1: gap
  storage.during_read = [&] { ours(hs({3})); };  // 2 commits while the read is in flight
  EXPECT_EQ(wm(hs({9})), 2);
  EXPECT_EQ(view().rows, 3u);
  EXPECT_EQ(wm(hs({3})), -1);
}

TEST_F(CacheTest, RecordDuringFullReadIsIgnoredAndHealedBySpan) {
  storage.during_read = [&] { ours(hs({3})); };
  EXPECT_EQ(wm(hs({9})), -1);  // snapshot was empty; the record arrived before hydration ended
  EXPECT_EQ(view().verified_upto, -1);
  ours(hs({4}));  // base 1 > verified_upto + 1: gap
  EXPECT_EQ(wm(hs({9})), 1);
  EXPECT_EQ(storage.calls.back().after, -1);  // span read from -1
  EXPECT_EQ(wm(hs({3})), -1);
}

TEST_F(CacheTest, HitAnswersMinusOne) {
  storage.commit(q, p, hs({1}));
  EXPECT_EQ(wm(hs({2})), 0);
  storage.commit(q, p, hs({3}));  // another broker, unknown to the cache
  EXPECT_EQ(wm(hs({5, 1, 6})), -1);  // any hash in the set: storage must answer with offsets
  EXPECT_EQ(cache.stats().hits, 1u);
  EXPECT_EQ(wm(hs({5, 3})), 0);  // offset 1 is above the watermark: storage probes it
  EXPECT_EQ(cache.stats().vouched, 2u);
  EXPECT_EQ(cache.stats().answers, 3u);
}

TEST_F(CacheTest, RefcountedSetKeepsHashUntilLastRowExpires) {
  EXPECT_EQ(wm(hs({9})), -1);
  ours(hs({1}));
  storage.now += 30'000;
  storage.commit(q, p, hs({1}));  // same hash again (e.g. after a window, or a window=0 era)
  ours(hs({2}));
  storage.now += 31'000;  // first row out of window, second not
  EXPECT_EQ(wm(hs({1})), -1);
  EXPECT_EQ(cache.stats().expired_rows, 0u);  // the floor (last created_at) is 31 s old: nothing proven yet
  ours(hs({3}));                               // storage time moves the floor
  EXPECT_EQ(wm(hs({1})), -1);                  // the second occurrence still holds it
  EXPECT_EQ(cache.stats().expired_rows, 1u);
}

TEST_F(CacheTest, ExpiryDropsOldRows) {
  EXPECT_EQ(wm(hs({9})), -1);
  ours(hs({1}));
  storage.now += 61'000;
  ours(hs({2}));  // storage floor now proves row 0 is out of window
  EXPECT_EQ(wm(hs({1})), 1);
  EXPECT_EQ(cache.stats().expired_rows, 1u);
  EXPECT_EQ(view().rows, 1u);
  EXPECT_EQ(view().hydrated_from, 1);
  // Inclusive bound: a row exactly at now - window stays.
  storage.now += 60'000;
  ours(hs({3}));
  EXPECT_EQ(wm(hs({2})), -1);
}

TEST_F(CacheTest, ExpiryIsBoundedByTheStorageClockUnderSkew) {
  EXPECT_EQ(wm(hs({9})), -1);
  ours(hs({1}));
  // Broker clock 10 min ahead of storage: must not expire by it.
  EXPECT_EQ(cache.watermark(q, p, hs({1}), storage.now + 600'000, kWindow, storage), -1);
  EXPECT_EQ(cache.stats().expired_rows, 0u);
  // Broker clock behind storage: the broker clock bounds expiry.
  storage.now += 120'000;
  ours(hs({2}));
  EXPECT_EQ(cache.watermark(q, p, hs({1}), storage.now - 100'000, kWindow, storage), -1);
  EXPECT_EQ(cache.watermark(q, p, hs({1}), storage.now, kWindow, storage), 1);
}

TEST_F(CacheTest, HydrationSinceUsesTheStorageFloor) {
  ours(hs({1}), "other");  // ignored record but its created_at teaches the floor
  storage.commit(q, p, hs({1}));
  EXPECT_EQ(cache.watermark(q, p, hs({2}), storage.now + 5'000'000, kWindow, storage), 0);
  EXPECT_EQ(storage.calls.back().since, storage.now - kWindow * 1000);
}

TEST_F(CacheTest, EvictionIsLruOrder) {
  // Budget for exactly three one-row, one-hash partitions.
  const int64_t per = kOneRowBytes;
  cache = DedupCache(CacheConfig{true, 3 * per, 64});
  for (const char* part : {"a", "b", "c", "d"}) storage.commit(q, part, hs({1}));
  EXPECT_EQ(wm(hs({9}), kWindow, "a"), 0);
  EXPECT_EQ(wm(hs({9}), kWindow, "b"), 0);
  EXPECT_EQ(wm(hs({9}), kWindow, "c"), 0);
  EXPECT_EQ(cache.stats().bytes, static_cast<uint64_t>(3 * per));
  EXPECT_EQ(wm(hs({9}), kWindow, "a"), 0);  // a is now the most recent
  EXPECT_EQ(wm(hs({9}), kWindow, "d"), 0);  // evicts b (least recently used)
  EXPECT_FALSE(cache.inspect(q, "b").has_value());
  EXPECT_TRUE(cache.inspect(q, "a").has_value());
  EXPECT_TRUE(cache.inspect(q, "c").has_value());
  EXPECT_EQ(cache.stats().evictions, 1u);
  EXPECT_EQ(wm(hs({9}), kWindow, "b"), 0);  // cold again: full read, evicts c
  EXPECT_FALSE(cache.inspect(q, "c").has_value());
  EXPECT_EQ(cache.stats().hydrations_full, 5u);
  EXPECT_LE(cache.stats().bytes, static_cast<uint64_t>(3 * per));
}

TEST_F(CacheTest, GrowthByRecordEvictsOthers) {
  const int64_t per = kOneRowBytes;
  cache = DedupCache(CacheConfig{true, 2 * per + 10, 64});
  storage.commit(q, "a", hs({1}));
  storage.commit(q, "b", hs({1}));
  EXPECT_EQ(wm(hs({9}), kWindow, "a"), 0);
  EXPECT_EQ(wm(hs({9}), kWindow, "b"), 0);
  ours(hs({2}), "b");  // b grows past the budget: a goes
  EXPECT_FALSE(cache.inspect(q, "a").has_value());
  EXPECT_EQ(view("b").verified_upto, 1);
}

TEST_F(CacheTest, TargetedEviction) {
  for (const char* part : {"a", "b"}) storage.commit(q, part, hs({1}));
  storage.commit("q2", "a", hs({1}));
  EXPECT_EQ(wm(hs({9}), kWindow, "a"), 0);
  EXPECT_EQ(wm(hs({9}), kWindow, "b"), 0);
  EXPECT_EQ(cache.watermark("q2", "a", hs({9}), storage.now, kWindow, storage), 0);
  cache.evict(std::string("q"), std::string("a"));
  EXPECT_FALSE(cache.inspect(q, "a").has_value());
  EXPECT_TRUE(cache.inspect(q, "b").has_value());
  cache.evict(std::nullopt, std::string("a"));
  EXPECT_FALSE(cache.inspect("q2", "a").has_value());
  cache.evict(std::string("q"), std::nullopt);
  EXPECT_EQ(cache.stats().partitions, 0u);
  EXPECT_EQ(cache.stats().bytes, 0u);
  EXPECT_EQ(cache.stats().evictions, 3u);
  // Evicted partitions ignore records and re-read in full.
  ours(hs({2}), "b");
  EXPECT_FALSE(cache.inspect(q, "b").has_value());
  EXPECT_EQ(wm(hs({2}), kWindow, "b"), -1);
  EXPECT_EQ(storage.calls.back().after, -1);
}

TEST_F(CacheTest, DeclineAndCooldownUnderTinyBudget) {
  cache = DedupCache(CacheConfig{true, 600, 3});
  storage.commit(q, p, hs({1, 2, 3, 4, 5, 6, 7, 8}));  // charged well over 600 (kPartitionBytes alone is 480)
  EXPECT_EQ(wm(hs({9})), -1);
  EXPECT_EQ(storage.calls.size(), 1u);
  EXPECT_EQ(view().declined_flushes_left, 3);
  EXPECT_EQ(view().rows, 0u);
  EXPECT_LE(cache.stats().bytes, 600u);
  ours(hs({10}));  // ignored while declined
  for (int i = 0; i < 3; ++i) EXPECT_EQ(wm(hs({9})), -1);
  EXPECT_EQ(storage.calls.size(), 1u);  // no thrashing: no reads during the cooldown
  EXPECT_EQ(cache.stats().declined, 4u);
  EXPECT_EQ(wm(hs({9})), -1);  // tried again, still too big
  EXPECT_EQ(storage.calls.size(), 2u);
  EXPECT_EQ(view().declined_flushes_left, 3);
  // A small partition next to it still works.
  storage.commit(q, "s", hs({1}));
  EXPECT_EQ(wm(hs({9}), kWindow, "s"), 0);
}

TEST_F(CacheTest, KillSwitch) {
  ours(hs({1}));
  EXPECT_EQ(wm(hs({9})), 0);
  cache.set_enabled(false);
  EXPECT_FALSE(cache.enabled());
  EXPECT_EQ(cache.stats().partitions, 0u);
  EXPECT_EQ(wm(hs({9})), -1);
  ours(hs({2}));
  EXPECT_EQ(cache.stats().disabled, 1u);
  EXPECT_EQ(storage.calls.size(), 1u);
  cache.set_enabled(true);
  EXPECT_EQ(wm(hs({9})), 1);  // cold: full read
  EXPECT_EQ(storage.calls.size(), 2u);
  EXPECT_EQ(storage.calls.back().after, -1);
}

TEST_F(CacheTest, WindowChangeForcesRebuild) {
  ours(hs({1}));
  EXPECT_EQ(wm(hs({9})), 0);
  EXPECT_EQ(wm(hs({9}), 120), 0);  // widened
  ASSERT_EQ(storage.calls.size(), 2u);
  EXPECT_EQ(storage.calls[1].after, -1);
  EXPECT_EQ(view().window_seconds, 120);
  EXPECT_EQ(wm(hs({9}), 30), 0);  // shrunk
  EXPECT_EQ(storage.calls.size(), 3u);
  EXPECT_EQ(cache.stats().rebuilds, 2u);
}

TEST_F(CacheTest, StorageWindowInARecordForcesRebuild) {
  EXPECT_EQ(wm(hs({9})), -1);
  ours(hs({1}), "p", 120);  // storage applied another window than the cache was built with
  EXPECT_TRUE(view().rebuild);
  EXPECT_EQ(wm(hs({9})), 0);
  EXPECT_EQ(storage.calls.back().after, -1);
}

TEST_F(CacheTest, WindowZeroDropsThePartition) {
  ours(hs({1}));
  EXPECT_EQ(wm(hs({9})), 0);
  EXPECT_EQ(wm(hs({9}), 0), -1);
  EXPECT_FALSE(cache.inspect(q, p).has_value());
  EXPECT_EQ(storage.calls.size(), 1u);
  ours(hs({2}), "p", 0);
  EXPECT_EQ(wm(hs({2})), -1);  // back on: full read sees the window-0 era rows
  EXPECT_EQ(storage.calls.back().after, -1);
}

TEST_F(CacheTest, ClearIsACrash) {
  ours(hs({1}));
  EXPECT_EQ(wm(hs({9})), 0);
  cache.clear();
  EXPECT_EQ(cache.stats().partitions, 0u);
  EXPECT_EQ(cache.stats().bytes, 0u);
  EXPECT_EQ(wm(hs({9})), 0);
  EXPECT_EQ(storage.calls.size(), 2u);
  EXPECT_EQ(storage.calls.back().since, std::numeric_limits<int64_t>::min());  // floor forgotten too
}

TEST_F(CacheTest, HydrationFailureAnswersMinusOneAndRetries) {
  storage.commit(q, p, hs({1}));
  storage.fail_next = 1;
  EXPECT_EQ(wm(hs({9})), -1);
  EXPECT_FALSE(view().hydrated);
  EXPECT_EQ(cache.stats().hydration_failures, 1u);
  EXPECT_EQ(wm(hs({9})), 0);
  EXPECT_EQ(storage.calls.size(), 2u);
}

TEST_F(CacheTest, EvictionOrCrashDuringReadDiscardsIt) {
  storage.commit(q, p, hs({1}));
  storage.during_read = [&] { cache.evict(std::nullopt, std::nullopt); };
  EXPECT_EQ(wm(hs({9})), -1);
  EXPECT_FALSE(cache.inspect(q, p).has_value());
  storage.during_read = [&] { cache.clear(); };
  EXPECT_EQ(wm(hs({9})), -1);
  EXPECT_EQ(cache.stats().bytes, 0u);
  storage.during_read = [&] { cache.set_enabled(false); };
  EXPECT_EQ(wm(hs({9})), -1);
  cache.set_enabled(true);
  EXPECT_EQ(wm(hs({9})), 0);
}

TEST_F(CacheTest, ConcurrentFlushDuringReadAnswersMinusOne) {
  storage.commit(q, p, hs({1}));
  int64_t inner = 99;
  storage.during_read = [&] { inner = wm(hs({9})); };
  EXPECT_EQ(wm(hs({9})), 0);
  EXPECT_EQ(inner, -1);
  EXPECT_EQ(storage.calls.size(), 1u);
}

TEST_F(CacheTest, InconsistentReadRebuilds) {
  EXPECT_EQ(wm(hs({9})), -1);
  ours(hs({1}));
  ours(hs({2}));
  // Storage lost its tail (e.g. restored): last_offset below verified_upto on a span read.
  storage.parts[{q, p}] = FakeStorage::Part{};
  ours(hs({3}));  // base 0 <= verified_upto: rebuild
  EXPECT_TRUE(view().rebuild);
  EXPECT_EQ(wm(hs({1})), 0);
  EXPECT_EQ(view().rows, 1u);
}

TEST_F(CacheTest, ByteAccounting) {
  ours(hs({1}));
  EXPECT_EQ(wm(hs({9})), 0);
  ours(hs({2, 3}));
  // The read sized the buffers exactly (1 row, 1 hash); the record grew them
  // to what it needed (growth by an eighth rounds down to nothing here).
  const int64_t expect = charged(2, 3, static_cast<int64_t>(HashMultiset::kMinSlots));
  EXPECT_EQ(view().bytes, expect);
  EXPECT_EQ(cache.stats().bytes, static_cast<uint64_t>(expect));
  EXPECT_EQ(cache.stats().hashes, 3u);
}

}  // namespace
}  // namespace qdt::impl
