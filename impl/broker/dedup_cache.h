#pragma once
// The broker's per-partition dedup cache (docs/semantics.md §2.11). Its only output is the
// watermark `p_verified` sent with a segment push: "none of these hashes occurs
// in an in-window sidecar row at offsets <= p_verified". Storage stays the
// authority (docs/semantics.md §2.4): a wrong verdict can only come from a watermark that is
// too high, so every path that cannot prove its watermark answers -1.
//
// Standalone: the broker calls, per segment flush of one partition,
//   1. wm = cache.watermark(queue, partition, hashes, broker_now, window, source);
//   2. push the segment with p_verified = wm;
//   3. on `queued(base, created_at)`: cache.record_queued(queue, partition, base,
//      base + K - 1, created_at, hashes, result.window_seconds);
//      on `duplicate` or a storage error: nothing.
//
// Invariants (per hydrated partition P, what makes a watermark safe):
//   I1  every sidecar row of P with end_offset <= verified_upto that storage can
//       still count as in-window at any later probe is in `rows`, and its hashes
//       are counted in `set` (set == multiset union of rows' hashes).
//   I2  rows are keyed by base offset and never overlap.
//   I3  rows are only expired when created_at < min(broker_now, storage_floor)
//       - window, where storage_floor is the largest created_at this cache has
//       ever seen (a lower bound of the storage clock). Storage's clock never
//       goes back, so a row expired here is out of window for every later probe
//       whatever the broker's skew. Keeping a row too long only costs a -1.
//   I4  watermark() answers verified_upto only when no query hash is in `set`;
//       otherwise -1 (a hit is not a verdict).
// Holding extra hashes is always safe; missing one at or below verified_upto
// is the only unsafe state, and every path that could cause it (gap, overlap,
// window change, failed hydration, eviction, crash, kill switch) either
// re-reads storage or answers -1.
//
// Concurrency: HydrationSource may suspend the calling fiber; other fibers may
// call any method meanwhile (record, evict, clear, set_enabled, watermark).
// A partition being hydrated answers -1 to other flushes; a reset of the
// partition during the read (generation change) discards the read and -1.
//
// Determinism: no clock or randomness reads; LRU uses an explicit tick; no
// result depends on the hash table's layout (it is only probed, never
// iterated for a result).
//
// Layout (per partition, flat): `rows` is one contiguous buffer of 20-byte
// entries in offset order (base, created_at, where its hashes start); `set`
// holds every held row's hashes in the same order in one buffer (16 bytes
// each) plus an open-addressing index (hash_multiset.h). A row's end offset is
// base + its hash count - 1 (one hash per offset: records and reads that
// break that rebuild).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "impl/broker/dedup_cache_policy.h"
#include "impl/broker/flat_deque.h"
#include "impl/broker/hash_multiset.h"
#include "impl/hash.h"
#include "impl/storage/storage_types.h"
#include "impl/variant.h"

namespace qdt::impl {

struct CacheConfig {
  bool enabled = true;
  int64_t budget_bytes = int64_t{512} << 20;
  // A partition that alone exceeds the budget answers -1 for this many of its
  // own flushes before it is tried again.
  int64_t decline_cooldown_flushes = 64;
  // Design variants that change the cache (docs/semantics.md §7) take effect at construction
  // (dedup_cache_policy.h): no-expire-before-verify, plain-set, stale-window,
  // span-hydration, shipped-expiry. Any other variant leaves the cache as is.
  Variant variant = Variant::none;
};

// What the cache needs from storage to hydrate; supplied by the broker. One
// call must be one consistent snapshot (rows and last_offset read together).
// May take virtual time; throws StorageError when the read fails (the cache
// then answers -1); any other exception (a crash) propagates to the caller.
class HydrationSource {
 public:
  virtual ~HydrationSource() = default;
  // The sidecar rows of the partition with end_offset > after_offset and
  // created_at >= since_ms, in offset order, plus last_offset at read time.
  virtual SidecarRead sidecar_rows(const std::string& queue, const std::string& partition, int64_t after_offset,
                                   int64_t since_ms) = 0;
};

class DedupCache {
 public:
  // Accounting (bytes charged against the budget): what a partition holds on
  // the heap, by buffer capacity, not by size:
  //   kPartitionBytes + key length + row capacity * kRowBytes
  //   + hash capacity * kHashBytes + index slots * kIndexSlotBytes.
  // kPartitionBytes covers the partition's map node and the malloc headers of
  // its node, its buffers and its key strings (checked in dedup_cache.cpp).
  // Buffers grow by an eighth and the index keeps its load in [1/4, 3/4], so
  // a partition of one-hash rows costs 36 bytes a hash plus up to an eighth,
  // plus 7-20 for the index: 45 on `qdt bench`'s window workload, 49 in a
  // window that expires as fast as it grows (dedup_cache_bench). Tests check
  // the charge covers malloc's in-use bytes (dedup_cache_layout_test.cpp).
  static constexpr int64_t kPartitionBytes = 480;  // plus the key's length
  static constexpr int64_t kRowBytes = 20;         // one row entry
  static constexpr int64_t kHashBytes = 16;        // one held hash
  static constexpr int64_t kIndexSlotBytes = static_cast<int64_t>(HashMultiset::kSlotBytes);

  struct Stats {
    uint64_t answers = 0;           // watermark() calls
    uint64_t vouched = 0;           // answers >= 0
    uint64_t hits = 0;              // -1 because a query hash was in the set
    uint64_t hydrations_full = 0;
    uint64_t hydrations_span = 0;
    uint64_t hydration_failures = 0;
    uint64_t rebuilds = 0;          // overlaps / window changes / inconsistent reads
    uint64_t evictions = 0;         // partitions dropped by LRU or evict()
    uint64_t declined = 0;          // -1 answers of declined partitions (incl. the declining one)
    uint64_t disabled = 0;          // -1 answers from the kill switch
    uint64_t expired_rows = 0;
    uint64_t bytes = 0;             // current accounted bytes
    uint64_t hashes = 0;            // current distinct hashes over all partitions
    uint64_t partitions = 0;        // current partition entries (incl. declined stubs)
  };

  explicit DedupCache(CacheConfig config = {});

  // Per segment flush of (queue, partition): expire, hydrate if needed, answer.
  // Returns verified_upto (>= 0) when it can vouch for every hash, else -1.
  // window_seconds is the window the broker believes the queue has; 0 drops the
  // partition and answers -1 (storage does not probe).
  int64_t watermark(const std::string& queue, const std::string& partition, const std::vector<Hash128>& hashes,
                    int64_t now_ms, int64_t window_seconds, HydrationSource& source);

  // After a `queued` commit of [base, end] stamped created_at (storage clock).
  // storage_window_seconds: the window storage applied (PushResult::window_seconds);
  // if it differs from the one the partition was built with -> rebuild.
  //  - base == verified_upto + 1: add, advance (and chain through recorded rows);
  //  - base >  verified_upto + 1: another writer in between; add, leave the span
  //    [verified_upto + 1, base - 1] for the next flush to hydrate;
  //  - base <= verified_upto (or overlapping a held row): the same row already held
  //    (hydration raced the record) is a no-op; anything else -> rebuild.
  // Unknown, declined or hydrating-full partitions ignore records (their next
  // hydration reads storage anyway).
  void record_queued(const std::string& queue, const std::string& partition, int64_t base, int64_t end,
                     int64_t created_at_ms, const std::vector<Hash128>& hashes, int64_t storage_window_seconds);

  // Fault / admin: drop the entries of one partition, one queue (partition
  // nullopt) or everything (both nullopt). Declined stubs are dropped too.
  void evict(const std::optional<std::string>& queue, const std::optional<std::string>& partition);
  // The kill switch. Turning it off drops everything (records while off are not
  // tracked); turning it on starts cold.
  void set_enabled(bool enabled);
  bool enabled() const { return config_.enabled; }
  const CacheConfig& config() const { return config_; }
  // A broker crash: all state is lost (config and stats survive).
  void clear();

  Stats stats() const;

  // The smallest offset of a held row carrying `hash` in a hydrated partition
  // (nullopt when none). Not a verdict (I4): a held row may already be out of
  // storage's window. Only the trust-local-hit variant acts on it.
  std::optional<int64_t> held_offset(const std::string& queue, const std::string& partition,
                                     const Hash128& hash) const;

  // Introspection for tests and the history (nullopt when the partition is unknown).
  struct PartitionView {
    bool hydrated = false;
    bool rebuild = false;
    bool gap_pending = false;
    int64_t verified_upto = -1;
    int64_t hydrated_from = -1;
    int64_t window_seconds = 0;
    int64_t declined_flushes_left = 0;
    size_t rows = 0;
    size_t distinct_hashes = 0;
    int64_t bytes = 0;
    uint64_t last_used = 0;
  };
  std::optional<PartitionView> inspect(const std::string& queue, const std::string& partition) const;

 private:
  // One held sidecar row. Its hashes are set[start .. the next row's start)
  // (positions of sequence numbers, hash_multiset.h); packed: 20 bytes.
  struct [[gnu::packed]] Row {
    int64_t base = 0;
    int64_t created_at_ms = 0;
    uint32_t start = 0;  // sequence number of its first hash in `set`
  };
  struct Partition {
    bool hydrated = false;     // I1 holds for verified_upto
    bool rebuild = false;      // next flush re-reads the full window
    bool hydrating = false;    // a source read is in flight
    uint64_t generation = 0;   // bumped on every reset
    int64_t window_seconds = 0;  // the window it was built with
    int64_t hydrated_from = -1;  // the lowest offset the last full read covered (first row base)
    int64_t verified_upto = -1;
    int64_t known_upto = -1;     // highest end_offset held (> verified_upto: gap pending)
    int64_t declined_flushes_left = 0;
    uint64_t last_used = 0;
    int64_t bytes = 0;
    FlatDeque<Row> rows;  // by base offset, never overlapping (I2)
    HashMultiset set;     // the rows' hashes; refcounted unless the policy says otherwise
  };
  using Key = std::pair<std::string, std::string>;

  void reset_data(Partition& p);  // drop rows/set, not hydrated
  // Inserts a row before rows[at] (at == rows.size() appends); the caller
  // checked it keeps I2 and that it has one hash per offset.
  void add_row(Partition& p, size_t at, int64_t base, int64_t created_at_ms, const std::vector<Hash128>& hashes);
  void drop_front_row(Partition& p);
  void expire(Partition& p, std::optional<int64_t> cutoff_ms);
  int chain(Partition& p);  // how many rows verified_upto advanced through
  void observe_storage_time(int64_t created_at_ms);
  void reaccount(const Key& key, Partition& p);
  // Enforce the budget keeping `keep`; returns false when `keep` alone does not fit (then declined).
  bool enforce_budget(const Key& keep);
  void erase_partition(std::map<Key, Partition>::iterator it);
  void decline(const Key& key, Partition& p);
  void evict_partition(std::map<Key, Partition>::iterator it);  // an eviction (not a window-0 drop)
  // Reads storage and merges; false when the partition cannot vouch afterwards.
  bool hydrate(const Key& key, bool full, int64_t now_ms, int64_t window_seconds, HydrationSource& source);

  CacheConfig config_;
  CachePolicy policy_;     // bound once from config_.variant
  EvictedUpto evicted_upto_;  // empty unless the policy remembers evictions (span-hydration)
  std::map<Key, Partition> partitions_;
  uint64_t tick_ = 0;
  uint64_t generation_ = 0;
  int64_t total_bytes_ = 0;
  std::optional<int64_t> storage_floor_ms_;  // max created_at seen (storage clock lower bound)
  Stats stats_;
};

}  // namespace qdt::impl
