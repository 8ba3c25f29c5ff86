// The cache's design variants (docs/semantics.md §7), each against the reference on the
// same history: every test shows the one behaviour the variant changes, and
// for the unsafe ones, a watermark that vouches past an in-window original
// the reference does not vouch past.
#include "impl/broker/dedup_cache.h"
#include "impl/broker/dedup_cache_fake_storage_test.h"

#include <gtest/gtest.h>

#include <limits>

namespace qdt::impl {
namespace {

using testing_cache::FakeStorage;
using testing_cache::h;
using testing_cache::hs;

constexpr int64_t kWindow = 60;  // seconds

// One storage, two caches fed the same calls: the reference and a variant.
struct VariantPair : testing::Test {
  FakeStorage storage;
  DedupCache ref{CacheConfig{}};
  DedupCache var{CacheConfig{}};
  const std::string q = "q";
  const std::string p = "p";

  void use(Variant variant) {
    CacheConfig config;
    config.variant = variant;
    var = DedupCache(config);
  }
  struct Answers {
    int64_t ref, var;
  };
  Answers wm(const std::vector<Hash128>& hashes, int64_t window = kWindow, int64_t broker_skew_ms = 0) {
    const int64_t now = storage.now + broker_skew_ms;
    const int64_t a = ref.watermark(q, p, hashes, now, window, storage);
    const int64_t b = var.watermark(q, p, hashes, now, window, storage);
    return {a, b};
  }
  // A commit through "this broker": storage commit, recorded by both caches.
  int64_t ours(const std::vector<Hash128>& hashes, int64_t window = kWindow) {
    const int64_t base = storage.commit(q, p, hashes);
    const int64_t end = base + static_cast<int64_t>(hashes.size()) - 1;
    ref.record_queued(q, p, base, end, storage.now, hashes, window);
    var.record_queued(q, p, base, end, storage.now, hashes, window);
    return base;
  }
  // Whether `hash` sits at an offset <= upto in a row storage counts in `window`.
  bool in_window_at_or_below(const Hash128& hash, int64_t upto, int64_t window = kWindow) {
    for (const SidecarRow& r : storage.parts[{q, p}].rows) {
      if (r.created_at_ms < storage.now - window * 1000) continue;
      for (size_t i = 0; i < r.hashes.size(); ++i)
        if (r.hashes[i] == hash && r.base_offset + static_cast<int64_t>(i) <= upto) return true;
    }
    return false;
  }
};

// Harmless (see the report): skipping the expiry only keeps rows longer, so the
// set is a superset of the reference's and the variant answers -1 where the
// reference vouches, never a higher watermark.
TEST_F(VariantPair, NoExpireBeforeVerifyKeepsAnExpiredHashAndAnswersMinusOne) {
  use(Variant::no_expire_before_verify);
  EXPECT_EQ(wm(hs({9})).var, -1);  // both hydrate an empty partition
  ours(hs({1}));                    // offset 0 at t0
  storage.now += (kWindow + 1) * 1000;
  ours(hs({2}));  // offset 1: the storage floor moves to t0 + 61 s
  const Answers a = wm(hs({1}));
  EXPECT_EQ(a.ref, 1);   // the reference expired offset 0 first
  EXPECT_EQ(a.var, -1);  // the variant still holds hash 1: a hit, not a verdict
  EXPECT_FALSE(in_window_at_or_below(h(1), 1));  // the reference's vouch was right
  EXPECT_EQ(ref.inspect(q, p)->rows, 1u);
  EXPECT_EQ(var.inspect(q, p)->rows, 2u);
}

// Unsafe: a hash written again once its first row left storage's window is held
// by two rows; expiring the first takes the hash out of a plain set.
TEST_F(VariantPair, PlainSetDropsAHashAnotherInWindowRowHolds) {
  use(Variant::plain_set);
  wm(hs({9}));
  ours(hs({1}));  // offset 0 at t0
  storage.now += (kWindow + 1) * 1000;
  ours(hs({1}));  // offset 1: storage no longer counts offset 0, so it queued hash 1 again
  EXPECT_EQ(ref.inspect(q, p)->distinct_hashes, 1u);
  const Answers a = wm(hs({1}));  // expires offset 0, then answers
  EXPECT_EQ(a.ref, -1);           // offset 1 still holds hash 1
  EXPECT_EQ(a.var, 1);            // vouches past it
  EXPECT_TRUE(in_window_at_or_below(h(1), a.var));
  EXPECT_EQ(var.inspect(q, p)->distinct_hashes, 0u);
  EXPECT_EQ(var.inspect(q, p)->rows, 1u);
}

// Unsafe: widened from 60 s to 3600 s, the rows the 60 s window expired are in
// window again; without a rebuild the cache vouches past them.
TEST_F(VariantPair, StaleWindowVouchesPastARowTheWidenedWindowCounts) {
  use(Variant::stale_window);
  wm(hs({9}));
  ours(hs({1}));  // offset 0 at t0
  storage.now += 100'000;
  ours(hs({2}));  // offset 1 at t0 + 100 s
  Answers a = wm(hs({8}));
  EXPECT_EQ(a.ref, 1);
  EXPECT_EQ(a.var, 1);  // both expired offset 0 under the 60 s window
  a = wm(hs({1}), 3600);
  EXPECT_EQ(a.ref, -1);  // rebuilt with 3600 s: offset 0 is back
  EXPECT_EQ(a.var, 1);
  EXPECT_TRUE(in_window_at_or_below(h(1), a.var, 3600));
  EXPECT_EQ(ref.stats().rebuilds, 1u);
  EXPECT_EQ(var.stats().rebuilds, 0u);
  // Nor does the window storage applied to a record rebuild it.
  ours(hs({3}), 7200);
  EXPECT_TRUE(ref.inspect(q, p)->rebuild);
  EXPECT_FALSE(var.inspect(q, p)->rebuild);
}

// Unsafe: after an eviction the variant reads only from where it stood, so
// the evicted rows never come back and it vouches past them.
TEST_F(VariantPair, SpanHydrationAfterEvictionVouchesPastTheEvictedRows) {
  use(Variant::span_hydration);
  storage.commit(q, p, hs({1}));  // offset 0
  Answers a = wm(hs({9}));
  EXPECT_EQ(a.ref, 0);
  EXPECT_EQ(a.var, 0);
  ref.evict(q, p);  // memory pressure or an admin eviction
  var.evict(q, p);
  storage.commit(q, p, hs({2}));  // offset 1, another broker
  const size_t reads = storage.calls.size();
  a = wm(hs({1}));
  ASSERT_EQ(storage.calls.size(), reads + 2);
  EXPECT_EQ(storage.calls[reads].after, -1);     // the reference: the whole window
  EXPECT_EQ(storage.calls[reads + 1].after, 0);  // the variant: only the missing span
  EXPECT_EQ(a.ref, -1);
  EXPECT_EQ(a.var, 1);
  EXPECT_TRUE(in_window_at_or_below(h(1), a.var));
  // A crash forgets the remembered offset too: a full read again.
  var.clear();
  var.watermark(q, p, hs({1}), storage.now, kWindow, storage);
  EXPECT_EQ(storage.calls.back().after, -1);
}

// Unsafe: a broker 31 s ahead of storage expires by its own clock a row storage
// still counts; hydration reads by storage time with 5 s of slack.
TEST_F(VariantPair, ShippedExpiryBrokerAheadDropsARowStorageStillCounts) {
  use(Variant::shipped_expiry);
  const int64_t t0 = storage.now;
  storage.commit(q, p, hs({1}));  // offset 0 at t0 (storage clock)
  storage.now += 30'000;
  const Answers a = wm(hs({1}), kWindow, /*broker_skew_ms=*/31'000);
  EXPECT_EQ(a.ref, -1);  // expiry by min(broker, storage floor): offset 0 is kept
  EXPECT_EQ(a.var, 0);   // the broker's t0 + 61 s expired it
  EXPECT_TRUE(in_window_at_or_below(h(1), a.var));
  // Both read by storage time; the variant with 5 s more.
  ref.evict(q, p);
  var.evict(q, p);
  wm(hs({7}), kWindow, 31'000);
  ASSERT_GE(storage.calls.size(), 2u);
  EXPECT_EQ(storage.calls[storage.calls.size() - 2].since, t0 - kWindow * 1000);
  EXPECT_EQ(storage.calls.back().since, t0 - kWindow * 1000 - 5000);
}

// trust-local-hit's cache API: the smallest held offset of a hash.
TEST_F(VariantPair, HeldOffsetIsTheSmallestHeldOffset) {
  storage.commit(q, p, hs({1, 2}));  // 0..1
  storage.commit(q, p, hs({3, 1}));  // 2..3 (the same hash twice: only a test can do that)
  EXPECT_FALSE(ref.held_offset(q, p, h(1)).has_value());  // unknown partition
  EXPECT_EQ(wm(hs({1})).ref, -1);
  EXPECT_EQ(ref.held_offset(q, p, h(1)), 0);
  EXPECT_EQ(ref.held_offset(q, p, h(3)), 2);
  EXPECT_FALSE(ref.held_offset(q, p, h(9)).has_value());
  EXPECT_FALSE(ref.held_offset(q, "other", h(1)).has_value());
}

// Every variant that does not change the cache leaves it the reference.
TEST_F(VariantPair, OtherVariantsLeaveTheCacheAsIs) {
  for (Variant v : {Variant::skip_probe, Variant::trust_local_hit, Variant::watermark_off_by_one}) {
    FakeStorage s;
    CacheConfig config;
    config.variant = v;
    DedupCache c(config);
    DedupCache r{CacheConfig{}};
    s.commit(q, p, hs({1}));
    s.now += (kWindow + 1) * 1000;
    s.commit(q, p, hs({1}));
    EXPECT_EQ(c.watermark(q, p, hs({1}), s.now, kWindow, s), r.watermark(q, p, hs({1}), s.now, kWindow, s));
    EXPECT_EQ(c.watermark(q, p, hs({2}), s.now + 99'000, kWindow, s),
              r.watermark(q, p, hs({2}), s.now + 99'000, kWindow, s));
  }
}

// Unsafe: a span read that returns to a partition evicted and made anew
// while it was out (another flush made it, and its full read failed) is
// merged, so the new entry vouches up to the read's last_offset holding only
// the span: the key below the span, which the evicted entry held, is missed.
TEST_F(VariantPair, MergeReadAfterResetVouchesBelowTheSpan) {
  use(Variant::merge_read_after_reset);
  ours(hs({1}));            // offset 0
  Answers a = wm(hs({9}));  // both hydrate: verified up to 0
  EXPECT_EQ(a.ref, 0);
  EXPECT_EQ(a.var, 0);
  storage.commit(q, p, hs({2}));  // offset 1, another broker: a gap
  ours(hs({3}));                   // offset 2, recorded past the gap
  // Each cache's span read is out while it is evicted and made anew.
  auto span_read_beside_a_reset = [&](DedupCache& cache) {
    storage.during_read = [&] {
      cache.evict(q, p);
      storage.fail_next = 1;
      EXPECT_EQ(cache.watermark(q, p, hs({9}), storage.now, kWindow, storage), -1);  // its full read failed
    };
    return cache.watermark(q, p, hs({1}), storage.now, kWindow, storage);  // offset 0 holds 1, below the span
  };
  const int64_t ref_answer = span_read_beside_a_reset(ref);
  const int64_t var_answer = span_read_beside_a_reset(var);
  EXPECT_EQ(ref_answer, -1);
  EXPECT_EQ(var_answer, 2);
  EXPECT_TRUE(in_window_at_or_below(h(1), var_answer));
}

}  // namespace
}  // namespace qdt::impl
