#pragma once
// The broker's push path (docs/semantics.md §2.1, 2.3, 2.5, 2.6): validate the request,
// group repeats inside it (layer-1 first-wins), hash keys, mint UUIDv7 ids,
// build one segment per partition, and loop on `duplicate` answers until
// every frame has a verdict. It speaks to time, randomness and storage only
// through the ports, so a simulated world can drive it.
//
// push() may suspend the calling fiber at each storage round trip; several
// fibers may be inside push() of the same broker at once.
#include <cstdint>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "impl/broker/dedup_cache.h"
#include "impl/broker/foreign_cache_caller.h"
#include "impl/broker/ports.h"
#include "impl/broker/push_request.h"
#include "impl/hash.h"
#include "impl/variant.h"

namespace qdt::impl {

// The verdict of one push item (docs/semantics.md §2.1). A broker answers queued,
// duplicate or error; `timeout` is the producer's own outcome when no
// response came (docs/semantics.md §2.12). Strings only at the JSON edge (status_name).
enum class ItemStatus : uint8_t { undecided, queued, duplicate, error, timeout };
const char* status_name(ItemStatus status);

struct ItemResponse {
  ItemStatus status = ItemStatus::undecided;
  std::string message_id;
  std::string transaction_id;
  std::string queue;
  std::string partition;
  std::string error;  // error entries only
};

struct PushResponse {
  bool rejected = false;  // the request broke a rule of docs/semantics.md §2.1: nothing stored
  std::string error;      // "PATH: reason" when rejected
  std::vector<ItemResponse> items;  // one per request item, in order
  // The HTTP-style body: an array of {index, message_id, transaction_id, queueName, status[, error]},
  // or {"error": ...} when rejected.
  nlohmann::json to_json() const;
};

struct BrokerStats {
  uint64_t requests = 0;
  uint64_t items = 0;
  uint64_t segments_pushed = 0;
  uint64_t duplicate_rounds = 0;  // storage answers that were `duplicate`
  uint64_t storage_errors = 0;
  uint64_t storage_resets = 0;  // lost connections: cache and windows forgotten
  uint64_t fused_segments = 0;  // flushes that carried frames of more than one request
  uint64_t bundles_pushed = 0;  // transactions that carried several partitions' segments
};

class Broker : private HydrationSource {
 public:
  // How often a storage call goes again after a lost connection (its fate
  // unknown, storage may keep restarting): a segment's push here, the
  // script's admin steps in the simulator (docs/semantics.md §2.4).
  static constexpr uint32_t kLostConnectionRetriesMax = 3;
  // With a WaitPort, concurrent requests for one partition fuse (docs/semantics.md §2.5
  // layer 2): at most one flush per partition is in flight, and frames that
  // arrive meanwhile go into that partition's next segment.
  Broker(uint32_t id, BrokerClock& clock, RandomSource& random, StoragePort& storage, WaitPort* wait = nullptr);
  ~Broker();
  Broker(const Broker&) = delete;
  Broker& operator=(const Broker&) = delete;

  // `request_id` tags every frame of the request (FrameRecord::origin_request).
  PushResponse push(const nlohmann::json& request, uint64_t request_id);

  uint32_t id() const { return id_; }
  // Design variants that change the broker (docs/semantics.md §7); Variant::none by default.
  // Called once, right after construction; picks the policies it implies.
  // The cache takes the broker's variant too (configure_cache keeps it).
  void set_variant(Variant variant);
  // The switch that turns fusion off (one segment per request per partition).
  void set_fusion(bool enabled) { fusion_ = enabled; }
  // The switch that sends a request's first segments for several partitions
  // in one transaction (docs/semantics.md §9.5, StoragePort::push_bundle).
  void set_bundles(bool enabled) { bundles_ = enabled; }

  // A crash (docs/semantics.md §3 crash_broker): the broker loses everything it held in
  // memory — its cache, the windows it learnt, and every request waiting in
  // a fusion lane (those fail with BrokerLost). Work already out at storage
  // is lost by the world's link, before or after its commit.
  void crash();
  // Storage restarted (a lost connection): the broker keeps its lanes but
  // forgets what it learnt from storage — cache and windows — since storage
  // may have come back without some of it (docs/semantics.md §8, power loss).
  void forget_storage();

  // The dedup cache (docs/semantics.md §2.11): its only output is the watermark sent with
  // each segment. A crash empties it.
  // A config naming no variant gets the broker's.
  void configure_cache(const CacheConfig& config);
  DedupCache& cache() { return cache_; }
  const DedupCache& cache() const { return cache_; }
  // A cache the broker did not build (docs/semantics.md §10) replaces the
  // built-in one, driven by `rules`; called once, after set_variant. The
  // shipped caller learns windows through the metadata TTL, as Queen does.
  void use_foreign_cache(std::unique_ptr<ForeignCache> cache, CacheCaller rules, bool enabled);
  const ForeignCacheCaller* foreign_cache() const { return foreign_.get(); }
  // Fault / admin steps on whichever cache runs. A foreign cache has no
  // eviction of its own: it forgets everything, which is always safe.
  void evict_cache(const std::optional<std::string>& queue, const std::optional<std::string>& partition);
  void set_cache_enabled(bool enabled);
  const BrokerStats& stats() const { return stats_; }

 private:
  struct PendingFrame;
  struct Batch;
  struct Lane;
  struct PartitionPush;
  void submit(const std::pair<std::string, std::string>& partition, std::vector<PendingFrame>& frames);
  void flush_round(const std::vector<Batch*>& round);
  // `followers`: layer-2 followers (fused frame index, follower request),
  // recorded with the first segment pushed.
  void push_partition(std::vector<PendingFrame>& frames,
                      std::vector<std::pair<uint32_t, uint64_t>> followers = {});
  // Each group's first segment in one bundle, later rounds alone.
  void push_bundle(std::vector<std::vector<PendingFrame>>& groups);
  // The partition's next segment (p.segment); false when no frame is left
  // for storage (every one answered, or settled without it).
  bool next_segment(PartitionPush& p);
  void push_once(PartitionPush& p);
  void note_storage_error(const StorageError& e);
  // A failed transaction: the frames go again after a lost connection
  // (bounded), else each answers error.
  void take_failure(PartitionPush& p, const StorageError& e);
  void take_answer(PartitionPush& p, const PushResult& result);
  // The id of the message at `offset`, which storage's probe matched with
  // `hash`; the zero id when it cannot be read or holds another key.
  std::string resolve_original_id(const std::string& queue, const std::string& partition, int64_t offset,
                                  const Hash128& hash);
  // Before a segment goes to storage with p_verified == -1: settles frames
  // without storage, drops them from `remaining` and `segment` (followers
  // re-indexed). The reference settles none; trust-local-hit settles every
  // frame the cache holds as a duplicate of the offset it holds.
  using SettleLocally = void (Broker::*)(std::vector<PendingFrame>& group, std::vector<size_t>& remaining,
                                         SegmentPush& segment, std::vector<Hash128>& hashes);
  void settle_none(std::vector<PendingFrame>&, std::vector<size_t>&, SegmentPush&, std::vector<Hash128>&) {}
  void settle_held_hits(std::vector<PendingFrame>& group, std::vector<size_t>& remaining, SegmentPush& segment,
                        std::vector<Hash128>& hashes);

  SidecarRead sidecar_rows(const std::string& queue, const std::string& partition, int64_t after_offset,
                           int64_t since_ms) override;

  uint32_t id_;
  BrokerClock& clock_;
  RandomSource& random_;
  StoragePort& storage_;
  BrokerStats stats_;
  Variant variant_ = Variant::none;
  SettleLocally settle_locally_ = &Broker::settle_none;  // bound in set_variant
  WaitPort* wait_;
  bool fusion_ = true;
  bool bundles_ = false;
  // Shared with the fibers flushing them, so a crash can drop a lane while
  // its flusher is still out at storage.
  std::map<std::pair<std::string, std::string>, std::shared_ptr<Lane>> lanes_;
  DedupCache cache_;
  std::unique_ptr<ForeignCacheCaller> foreign_;  // set: it answers instead of cache_
  // The window storage last reported per partition: the cache computes its
  // watermark with it, and storage ignores the watermark if it has widened.
  struct KnownWindow {
    int64_t window_seconds = -1;
    int64_t learnt_at_ms = 0;  // broker clock
  };
  std::map<std::pair<std::string, std::string>, KnownWindow> known_window_;
  // How a window storage reported is learnt: at once (the reference), or
  // through a metadata cache that is refreshed only every kMetaTtlMs
  // (variant shipped-meta-ttl, as Queen's shipped broker does).
  static constexpr int64_t kMetaTtlMs = 30'000;
  using LearnWindow = void (Broker::*)(const std::pair<std::string, std::string>& key, int64_t window_seconds);
  void learn_window_now(const std::pair<std::string, std::string>& key, int64_t window_seconds);
  void learn_window_by_ttl(const std::pair<std::string, std::string>& key, int64_t window_seconds);
  LearnWindow learn_window_ = &Broker::learn_window_now;
  // The other broker policies (docs/semantics.md §7), picked by set_variant().
  using OnRepeat = void (Broker::*)(PendingFrame& leader, const PushItem& item, size_t index);
  using DuplicateId = std::string (Broker::*)(const std::string& queue, const std::string& partition, int64_t offset,
                                              const Hash128& hash);
  void repeat_follows(PendingFrame& leader, const PushItem& item, size_t index);
  void repeat_takes_over(PendingFrame& leader, const PushItem& item, size_t index);
  std::string fresh_duplicate_id(const std::string& queue, const std::string& partition, int64_t offset,
                                 const Hash128& hash);
  OnRepeat on_repeat_ = &Broker::repeat_follows;
  DuplicateId duplicate_id_ = &Broker::resolve_original_id;
  int64_t watermark_slack_ = 0;  // watermark-off-by-one: 1
  bool forget_on_lost_connection_ = true;  // false: keep-cache-on-reconnect
};

}  // namespace qdt::impl
