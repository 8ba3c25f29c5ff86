// The dedup cache's flat layout (dedup_cache.h, hash_multiset.h): rows that
// arrive out of offset order, span reads merged below recorded rows, expiry
// of a prefix, held_offset over all of it, the plain-set rule on the new set,
// and the charge against what malloc really holds.
#include "impl/broker/dedup_cache.h"
#include "impl/broker/dedup_cache_fake_storage_test.h"
#include "impl/heap_in_use.h"

#include <gtest/gtest.h>

#include <vector>

namespace qdt::impl {
namespace {

using testing_cache::FakeStorage;
using testing_cache::h;
using testing_cache::hs;

constexpr int64_t kWindow = 60;  // seconds

struct LayoutTest : testing::Test {
  FakeStorage storage;
  DedupCache cache{CacheConfig{}};
  const std::string q = "q";
  const std::string p = "p";

  int64_t wm(const std::vector<Hash128>& hashes) { return cache.watermark(q, p, hashes, storage.now, kWindow, storage); }
  void record(int64_t base, const std::vector<Hash128>& hashes, int64_t created_at_ms) {
    cache.record_queued(q, p, base, base + static_cast<int64_t>(hashes.size()) - 1, created_at_ms, hashes, kWindow);
  }
  DedupCache::PartitionView view() { return cache.inspect(q, p).value_or(DedupCache::PartitionView{}); }
  std::optional<int64_t> held(uint64_t n) { return cache.held_offset(q, p, h(n)); }
};

TEST_F(LayoutTest, RecordsInAnyOrderKeepOffsetOrder) {
  EXPECT_EQ(wm(hs({99})), -1);
  // Five segments of 1-3 items committed by this broker; their records come back shuffled.
  const std::vector<std::vector<Hash128>> segments = {hs({1, 2}), hs({3}), hs({4, 5, 6}), hs({7}), hs({8, 1})};
  std::vector<int64_t> bases;
  for (const auto& s : segments) bases.push_back(storage.commit(q, p, s));
  const std::vector<std::pair<size_t, int64_t>> order = {{4, -1}, {2, -1}, {0, 1}, {3, 1}, {1, 8}};
  for (const auto& [i, verified_upto] : order) {
    record(bases[i], segments[i], storage.now);
    EXPECT_EQ(view().verified_upto, verified_upto) << "after segment " << i;  // chains as the holes fill
  }
  EXPECT_EQ(view().rows, 5u);
  EXPECT_EQ(view().distinct_hashes, 8u);
  EXPECT_FALSE(view().gap_pending);
  for (uint64_t n = 2; n <= 8; ++n) EXPECT_EQ(held(n), n - 1);  // hash n sits at offset n - 1
  EXPECT_EQ(held(1), 0);  // the smallest of its two offsets (0 and 8)
  EXPECT_EQ(wm(hs({42})), 8);
  EXPECT_EQ(storage.calls.size(), 1u);
}

TEST_F(LayoutTest, SpanReadMergesBelowRecordedRows) {
  EXPECT_EQ(wm(hs({99})), -1);
  storage.commit(q, p, hs({1}));  // offset 0, another broker
  record(storage.commit(q, p, hs({2, 3})), hs({2, 3}), storage.now);  // 1..2: gap [0, 0]
  storage.commit(q, p, hs({4, 5}));                                 // 3..4, another broker
  record(storage.commit(q, p, hs({6})), hs({6}), storage.now);        // 5: another gap
  EXPECT_TRUE(view().gap_pending);
  EXPECT_EQ(view().rows, 2u);
  EXPECT_EQ(wm(hs({99})), 5);  // one span read fills both gaps under the recorded rows
  EXPECT_EQ(view().rows, 4u);
  EXPECT_EQ(view().distinct_hashes, 6u);
  for (uint64_t n = 1; n <= 6; ++n) EXPECT_EQ(held(n), n - 1);
  // A late record of a row the read merged is a no-op; an overlapping one rebuilds.
  record(1, hs({2, 3}), storage.now);
  EXPECT_FALSE(view().rebuild);
  record(2, hs({7}), storage.now);
  EXPECT_TRUE(view().rebuild);
}

TEST_F(LayoutTest, ExpiryDropsAPrefixAndKeepsSharedHashes) {
  EXPECT_EQ(wm(hs({99})), -1);
  record(storage.commit(q, p, hs({1, 2})), hs({1, 2}), storage.now);  // 0..1 at t0
  storage.now += 10'000;
  record(storage.commit(q, p, hs({3, 1})), hs({3, 1}), storage.now);  // 2..3 at t0 + 10 s, hash 1 again
  storage.now += 10'000;
  record(storage.commit(q, p, hs({4})), hs({4}), storage.now);  // 4 at t0 + 20 s
  EXPECT_EQ(held(1), 0);
  storage.now += (kWindow - 15) * 1000;  // t0 + 65 s: the first row is out of window
  record(storage.commit(q, p, hs({5})), hs({5}), storage.now);
  EXPECT_EQ(wm(hs({99})), 5);
  EXPECT_EQ(cache.stats().expired_rows, 1u);
  EXPECT_EQ(view().hydrated_from, 2);
  EXPECT_FALSE(held(2).has_value());
  EXPECT_EQ(held(1), 3);  // still held by the second row
  EXPECT_EQ(wm(hs({1})), -1);
  storage.now += 10'000;  // the second row goes too
  record(storage.commit(q, p, hs({6})), hs({6}), storage.now);
  EXPECT_EQ(wm(hs({1})), 6);
  EXPECT_EQ(view().rows, 3u);
  EXPECT_EQ(view().distinct_hashes, 3u);
  EXPECT_EQ(held(4), 4);
}

TEST_F(LayoutTest, PlainSetDropsAHashWithItsFirstRow) {
  CacheConfig config;
  config.variant = Variant::plain_set;
  cache = DedupCache(config);
  EXPECT_EQ(wm(hs({99})), -1);
  record(storage.commit(q, p, hs({1})), hs({1}), storage.now);
  storage.now += 10'000;
  record(storage.commit(q, p, hs({2, 1})), hs({2, 1}), storage.now);
  EXPECT_EQ(held(1), 0);
  storage.now += (kWindow - 5) * 1000;
  record(storage.commit(q, p, hs({3})), hs({3}), storage.now);
  EXPECT_EQ(wm(hs({99})), 3);  // expires row 0
  EXPECT_EQ(view().rows, 2u);
  EXPECT_FALSE(held(1).has_value());  // offset 2 still carries it: the variant's hole
  EXPECT_EQ(view().distinct_hashes, 2u);
  EXPECT_EQ(held(2), 1);
}

// The charge is an upper bound of what the cache holds on the heap, and for
// a large partition not a loose one: at most one partition's fixed charge
// above it. (Blocks that small sit in malloc's thread cache once freed,
// which mallinfo counts as in use, so a small partition shows less.)
TEST(DedupCacheCharge, CoversTheHeapItHolds) {
  for (const int64_t rows : {1, 10, 1000, 30'000}) {
    for (const int64_t per_row : {1, 3}) {
      FakeStorage storage;
      uint64_t n = 0;
      for (int64_t r = 0; r < rows; ++r) {
        std::vector<Hash128> hashes;
        for (int64_t k = 0; k < per_row; ++k) hashes.push_back(h(++n));
        storage.commit("queue", "partition", hashes);
      }
      DedupCache cache;
      const int64_t window = 3600;
      cache.watermark("queue", "partition", hs({0}), storage.now, window, storage);
      for (int i = 0; i < rows / 4 + 1; ++i) {  // grow past the read's exact buffers
        const std::vector<Hash128> hashes = {h(++n)};
        const int64_t base = storage.commit("queue", "partition", hashes);
        cache.record_queued("queue", "partition", base, base, storage.now, hashes, window);
      }
      const int64_t charged = static_cast<int64_t>(cache.stats().bytes);
      const auto full = static_cast<int64_t>(heap_in_use_bytes());
      cache.clear();
      const int64_t held = full - static_cast<int64_t>(heap_in_use_bytes());
      SCOPED_TRACE(testing::Message() << rows << " rows of " << per_row << ": charged " << charged << ", held "
                                      << held);
      EXPECT_GE(charged, held);
      if (rows >= 1000) {
        EXPECT_LE(charged, held + DedupCache::kPartitionBytes);
      }
    }
  }
}

// Small partitions, many of them (malloc's thread cache keeps only a few
// freed blocks of a size): the fixed charge covers the map node and headers.
TEST(DedupCacheCharge, CoversTheHeapOfManySmallPartitions) {
  for (const int64_t rows : {1, 4}) {
    FakeStorage storage;
    DedupCache cache;
    const int64_t window = 3600;
    for (int part = 0; part < 500; ++part) {
      const std::string name = "a partition named at length " + std::to_string(part);  // past the SSO
      for (int64_t r = 0; r < rows; ++r) storage.commit("queue", name, hs({static_cast<uint64_t>(part * 10 + r)}));
      cache.watermark("queue", name, hs({1u << 30}), storage.now, window, storage);
    }
    const int64_t charged = static_cast<int64_t>(cache.stats().bytes);
    const auto full = static_cast<int64_t>(heap_in_use_bytes());
    cache.clear();
    const int64_t held = full - static_cast<int64_t>(heap_in_use_bytes());
    SCOPED_TRACE(testing::Message() << "500 partitions of " << rows << " rows: charged " << charged << ", held "
                                    << held);
    EXPECT_GE(charged, held);
    EXPECT_GT(held, charged / 2);  // the measure saw the partitions
  }
}

}  // namespace
}  // namespace qdt::impl
