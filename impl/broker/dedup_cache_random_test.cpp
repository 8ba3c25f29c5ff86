// Randomized tests of the dedup cache: a fake storage and "our" broker's
// flushes, records, faults and reconfigurations in random order, every
// watermark checked against storage's own probe.
#include "impl/broker/dedup_cache.h"
#include "impl/broker/dedup_cache_fake_storage_test.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <random>

namespace qdt::impl {
namespace {

using testing_cache::FakeStorage;
using testing_cache::h;

// ---------------------------------------------------------------------------
// Randomized: whenever the cache vouches, storage's probe from p_verified finds
// exactly what a probe from -1 finds; i.e. no query hash occurs in an in-window
// sidecar row at offsets <= p_verified (docs/semantics.md §5, cache-transparency).
struct World {
  std::mt19937_64 rng;
  FakeStorage storage;
  std::map<std::string, int64_t> window;  // storage's window per partition (one queue)
  std::map<std::string, int64_t> txns_start;
  DedupCache cache;
  int64_t skew = 0;
  uint64_t checks = 0, vouched = 0;

  World(uint64_t seed, int64_t budget, Variant variant = Variant::none)
      : rng(seed), cache(CacheConfig{true, budget, 4, variant}) {}
  uint64_t pick(uint64_t n) { return rng() % n; }

  // Storage's probe (docs/semantics.md §2.4 step 2/3): smallest matching offset per hash.
  std::vector<int64_t> probe(const std::string& part, const std::vector<Hash128>& hashes, int64_t p_verified) {
    const auto& fp = storage.parts[{"q", part}];
    const int64_t from = std::max(p_verified, txns_start[part] - 1);
    const int64_t cutoff = storage.now - window[part] * 1000;
    std::vector<int64_t> out(hashes.size(), -1);
    if (fp.last_offset <= from) return out;
    for (const SidecarRow& r : fp.rows) {
      if (r.end_offset <= from || r.created_at_ms < cutoff) continue;
      for (size_t i = 0; i < hashes.size(); ++i)
        for (size_t j = 0; j < r.hashes.size(); ++j)
          if (r.hashes[j] == hashes[i] && out[i] < 0) out[i] = r.base_offset + static_cast<int64_t>(j);
    }
    return out;
  }

  void check_safe(const std::string& part, const std::vector<Hash128>& hashes, int64_t wm) {
    ++checks;
    if (wm < 0) return;
    ++vouched;
    const auto& fp = storage.parts[{"q", part}];
    const int64_t cutoff = storage.now - window[part] * 1000;
    for (const SidecarRow& r : fp.rows) {
      if (r.created_at_ms < cutoff) continue;
      for (size_t j = 0; j < r.hashes.size(); ++j) {
        if (r.base_offset + static_cast<int64_t>(j) > wm) continue;
        for (const Hash128& x : hashes) ASSERT_NE(r.hashes[j], x) << "unsafe watermark " << wm << " at row " << r.base_offset;
      }
    }
    ASSERT_EQ(probe(part, hashes, wm), probe(part, hashes, -1));
  }

  std::vector<Hash128> segment() {
    std::vector<Hash128> out;
    const uint64_t k = 1 + pick(4);
    while (out.size() < k) {
      Hash128 x = h(pick(40));  // small key space: lots of repeats
      if (std::find(out.begin(), out.end(), x) == out.end()) out.push_back(x);
    }
    return out;
  }

  // One flush of "our" broker: watermark, probe, commit, record.
  void flush(const std::string& part) {
    const auto hashes = segment();
    const int64_t wm = cache.watermark("q", part, hashes, storage.now + skew, window[part], storage);
    storage.now += static_cast<int64_t>(pick(50));  // latency to storage
    check_safe(part, hashes, wm);
    if (window[part] > 0) {
      auto found = probe(part, hashes, wm);
      if (std::any_of(found.begin(), found.end(), [](int64_t o) { return o >= 0; })) return;  // duplicate
    }
    const int64_t base = storage.commit("q", part, hashes);
    if (pick(10) == 0) return;  // response lost: never recorded
    const int64_t end = base + static_cast<int64_t>(hashes.size()) - 1;
    const int64_t created = storage.now;
    const int64_t applied = window[part];  // PushResult::window_seconds
    if (pick(4) == 0) {  // the record arrives later, after other work
      pending.push_back([=, this] { cache.record_queued("q", part, base, end, created, hashes, applied); });
    } else {
      cache.record_queued("q", part, base, end, created, hashes, applied);
    }
  }
  std::vector<std::function<void()>> pending;

  void step() {
    static const char* parts[] = {"a", "b", "c"};
    const std::string part = parts[pick(3)];
    switch (pick(20)) {
      case 0:
      case 1:  // another broker commits
        storage.commit("q", part, segment());
        break;
      case 2:
        storage.now += static_cast<int64_t>(pick(40'000));
        break;
      case 3:
        skew = static_cast<int64_t>(pick(200'001)) - 100'000;
        break;
      case 4: {  // window reconfiguration
        const int64_t choices[] = {0, 10, 30, 60, 120};
        window[part] = choices[pick(5)];
        break;
      }
      case 5:
        if (pick(4) == 0) cache.evict(std::string("q"), pick(2) ? std::optional<std::string>(part) : std::nullopt);
        break;
      case 6:
        if (pick(8) == 0) cache.clear();
        break;
      case 7:
        if (pick(8) == 0) cache.set_enabled(!cache.enabled());
        break;
      case 8: {  // sidecar purge of rows out of every window
        auto& fp = storage.parts[{"q", part}];
        const int64_t cutoff = storage.now - std::max<int64_t>(window[part], 90) * 1000;
        while (!fp.rows.empty() && fp.rows.front().created_at_ms < cutoff) {
          txns_start[part] = fp.rows.front().end_offset + 1;
          fp.rows.erase(fp.rows.begin());
        }
        break;
      }
      case 9:
        if (!pending.empty()) {
          const size_t i = pick(pending.size());
          auto f = std::move(pending[i]);
          pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(i));
          f();
        }
        break;
      case 10:
        storage.fail_next = 1;
        flush(part);
        storage.fail_next = 0;
        break;
      case 11:  // things happen while a hydration read is in flight
        storage.during_read = [this, part] {
          switch (pick(4)) {
            case 0: storage.commit("q", part, segment()); break;
            case 1: flush(part); break;
            case 2: cache.evict(std::nullopt, std::nullopt); break;
            default: flush(part == "a" ? "b" : "a"); break;
          }
        };
        cache.evict(std::string("q"), std::string(part));
        flush(part);
        storage.during_read = nullptr;
        break;
      default:
        flush(part);
        storage.now += static_cast<int64_t>(pick(3'000));
        break;
    }
  }
};

void expect_always_safe(Variant variant) {
  uint64_t vouched = 0;
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    const int64_t budgets[] = {int64_t{512} << 20, 4000, 1500};
    World w(seed, budgets[seed % 3], variant);
    for (const char* part : {"a", "b", "c"}) w.window[part] = 60;
    for (int i = 0; i < 3000; ++i) {
      w.step();
      if (testing::Test::HasFatalFailure()) {
        ADD_FAILURE() << "seed " << seed << " step " << i;
        return;
      }
    }
    vouched += w.vouched;
    EXPECT_LE(w.cache.stats().bytes, static_cast<uint64_t>(budgets[seed % 3]));
  }
  EXPECT_GT(vouched, 5'000u);  // the test must exercise vouching, not just -1
}

TEST(DedupCacheRandomized, AnswerIsAlwaysSafe) { expect_always_safe(Variant::none); }

// The harmless-variant argument, checked: answering without expiring first
// only keeps rows longer (a superset of hashes), so every answer is still
// safe; it only turns some vouches into -1.
TEST(DedupCacheRandomized, NoExpireBeforeVerifyIsAlwaysSafe) { expect_always_safe(Variant::no_expire_before_verify); }

}  // namespace
}  // namespace qdt::impl
