// One file past 400 lines: a request's path through the broker (checks,
// first-wins, lanes, the flush and its answers) reads best unbroken.
#include "impl/broker/broker.h"

#include <algorithm>
#include <cassert>
#include <deque>
#include <exception>
#include <map>
#include <optional>
#include <tuple>

#include "impl/broker/push_request.h"
#include "impl/json_text.h"
#include "impl/reached.h"

namespace qdt::impl {

struct Broker::PendingFrame {
  Frame frame;
  std::string queue;
  std::string partition;
  size_t leader_item = 0;
  ItemStatus status = ItemStatus::undecided;
  std::string message_id;
  std::string error;
};

// One request's frames for one partition, waiting in the partition's lane.
struct Broker::Batch {
  std::vector<PendingFrame>* frames;
  FiberEvent wake;
  bool finished = false;
  bool flusher = false;  // handed the lane: flush on behalf of everyone waiting
  std::exception_ptr error;
};

struct Broker::Lane {
  bool flushing = false;
  std::deque<Batch*> pending;
};

Broker::Broker(uint32_t id, BrokerClock& clock, RandomSource& random, StoragePort& storage, WaitPort* wait)
    : id_(id), clock_(clock), random_(random), storage_(storage), wait_(wait) {}

Broker::~Broker() = default;

void Broker::set_variant(Variant variant) {
  // Every broker variant is a policy picked here, once (docs/semantics.md §7).
  variant_ = variant;
  settle_locally_ = variant == Variant::trust_local_hit ? &Broker::settle_held_hits : &Broker::settle_none;
  learn_window_ = variant == Variant::shipped_meta_ttl ? &Broker::learn_window_by_ttl : &Broker::learn_window_now;
  on_repeat_ = variant == Variant::last_wins ? &Broker::repeat_takes_over : &Broker::repeat_follows;
  duplicate_id_ = variant == Variant::fresh_id_on_duplicate ? &Broker::fresh_duplicate_id : &Broker::resolve_original_id;
  watermark_slack_ = variant == Variant::watermark_off_by_one ? 1 : 0;
  forget_on_lost_connection_ = variant != Variant::keep_cache_on_reconnect;
  CacheConfig config = cache_.config();
  config.variant = variant;
  cache_ = DedupCache(config);
}

void Broker::use_foreign_cache(std::unique_ptr<ForeignCache> cache, CacheCaller rules, bool enabled) {
  foreign_ = std::make_unique<ForeignCacheCaller>(std::move(cache), rules, enabled);
  if (rules == CacheCaller::shipped) learn_window_ = &Broker::learn_window_by_ttl;
}

void Broker::evict_cache(const std::optional<std::string>& queue, const std::optional<std::string>& partition) {
  if (foreign_) foreign_->forget();
  else cache_.evict(queue, partition);
}

void Broker::set_cache_enabled(bool enabled) {
  if (foreign_) foreign_->set_enabled(enabled);
  else cache_.set_enabled(enabled);
}

void Broker::configure_cache(const CacheConfig& config) {
  CacheConfig with_variant = config;
  if (with_variant.variant == Variant::none) with_variant.variant = variant_;
  cache_ = DedupCache(with_variant);
}

SidecarRead Broker::sidecar_rows(const std::string& queue, const std::string& partition, int64_t after_offset,
                                 int64_t since_ms) {
  try {
    return storage_.sidecar_rows(queue, partition, after_offset, since_ms);
  } catch (const StorageError& e) {
    // The cache re-finds its partition after the read: clearing it here is
    // as safe as a crash during the read.
    if (e.connection_lost()) forget_storage();
    throw;
  }
}

const char* status_name(ItemStatus status) {
  switch (status) {
    case ItemStatus::undecided: return "undecided";
    case ItemStatus::queued: return "queued";
    case ItemStatus::duplicate: return "duplicate";
    case ItemStatus::error: return "error";
    case ItemStatus::timeout: return "timeout";
  }
  return "?";
}

nlohmann::json PushResponse::to_json() const {
  if (rejected) return nlohmann::json{{"error", error}};
  nlohmann::json out = nlohmann::json::array();
  for (size_t i = 0; i < items.size(); ++i) {
    const ItemResponse& r = items[i];
    nlohmann::json entry = {{"index", i},
                            {"message_id", r.message_id},
                            {"transaction_id", r.transaction_id},
                            {"queueName", r.queue},
                            {"status", status_name(r.status)}};
    if (r.status == ItemStatus::error) entry["error"] = r.error;
    out.push_back(std::move(entry));
  }
  return out;
}

namespace {
// Layer 1's index: a request's keyed items, by key, to the frame the first
// of them made. Searched in a list while the request is small (most are: a
// tree cost a node per item and a three-way compare per step), in a tree
// beyond. Keyed transactionId first: it tells keys apart at once (a
// request's items mostly share queue and partition).
class LeaderFrames {
 public:
  using Key = std::tuple<std::string_view, std::string_view, std::string_view>;
  explicit LeaderFrames(size_t items) : listed_(items <= kListedMax) {
    if (listed_) list_.reserve(items);
  }
  std::optional<size_t> find(const Key& key) const {
    if (listed_) {
      for (const auto& [k, frame] : list_) {
        if (k == key) return frame;
      }
      return std::nullopt;
    }
    const auto it = tree_.find(key);
    return it == tree_.end() ? std::nullopt : std::optional<size_t>(it->second);
  }
  void add(const Key& key, size_t frame) {
    if (listed_) list_.emplace_back(key, frame);
    else tree_.emplace(key, frame);
  }

 private:
  static constexpr size_t kListedMax = 32;
  bool listed_;
  std::vector<std::pair<Key, size_t>> list_;
  std::map<Key, size_t> tree_;
};
}  // namespace

PushResponse Broker::push(const nlohmann::json& request, uint64_t request_id) {
  stats_.requests++;
  PushResponse response;
  auto validated = validate_push_request(request);
  if (auto* error = std::get_if<std::string>(&validated)) {
    response.rejected = true;
    response.error = *error;
    return response;
  }
  const auto& items = std::get<std::vector<PushItem>>(validated);
  stats_.items += items.size();

  // Layer 1: the first item of each (queue, partition, transactionId) leads
  // and alone produces a frame; later items follow it.
  std::vector<PendingFrame> frames;
  frames.reserve(items.size());
  std::vector<size_t> frame_of_item(items.size());
  std::vector<size_t> frames_made_by;  // per frame, the item that made it
  frames_made_by.reserve(items.size());
  LeaderFrames leader_frame(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    const PushItem& item = items[i];
    const bool keyed = !item.transaction_id.empty();
    const LeaderFrames::Key key{item.transaction_id, item.queue, item.partition};
    if (keyed) {
      if (const std::optional<size_t> leader = leader_frame.find(key)) {
        (this->*on_repeat_)(frames[*leader], item, i);
        frame_of_item[i] = *leader;
        continue;
      }
      leader_frame.add(key, frames.size());
    }
    PendingFrame pending;
    pending.frame.message_id = make_uuid_v7(clock_.now_ms(), random_.next_u64(), random_.next_u64());
    // An item without a key cannot deduplicate: it gets a unique one. (The
    // simulated SDK always sets one first, as docs/semantics.md §2.12 says; this covers raw requests.)
    pending.frame.transaction_id = keyed ? std::string(item.transaction_id) : "auto:" + to_string(pending.frame.message_id);
    pending.frame.payload = json_text(*item.data);
    pending.frame.hash = hash_transaction_id(pending.frame.transaction_id);
    pending.frame.origin_request = request_id;
    pending.queue = item.queue;
    pending.partition = item.partition;
    pending.leader_item = i;
    frame_of_item[i] = frames.size();
    frames_made_by.push_back(i);
    frames.push_back(std::move(pending));
  }

  // One segment per partition, partitions in order of first appearance.
  const bool one_partition = std::all_of(frames.begin(), frames.end(), [&](const PendingFrame& f) {
    return f.queue == frames.front().queue && f.partition == frames.front().partition;
  });
  if (!frames.empty() && one_partition) {
    // The common request: its frames are the one group, in order, as they are.
    submit({frames.front().queue, frames.front().partition}, frames);
  } else {
    std::vector<std::pair<std::string, std::string>> order;
    std::map<std::pair<std::string, std::string>, std::vector<size_t>> by_partition;
    for (size_t f = 0; f < frames.size(); ++f) {
      auto key = std::make_pair(frames[f].queue, frames[f].partition);
      auto [it, inserted] = by_partition.try_emplace(key);
      if (inserted) order.push_back(key);
      it->second.push_back(f);
    }
    std::vector<std::vector<PendingFrame>> groups(order.size());
    for (size_t k = 0; k < order.size(); ++k) {
      const auto& indices = by_partition[order[k]];
      groups[k].reserve(indices.size());
      for (size_t f : indices) groups[k].push_back(std::move(frames[f]));
    }
    // A bundle goes straight to storage, past the partitions' fusion lanes:
    // waiting in several lanes at once could wait in a cycle.
    if (bundles_) {
      push_bundle(groups);
    } else {
      for (size_t k = 0; k < order.size(); ++k) submit(order[k], groups[k]);
    }
    for (size_t k = 0; k < order.size(); ++k) {
      const auto& indices = by_partition[order[k]];
      for (size_t g = 0; g < indices.size(); ++g) frames[indices[g]] = std::move(groups[k][g]);
    }
  }

  response.items.resize(items.size());
  // Backwards, so that a frame's first item (the one that made it, the
  // smallest index naming it) is the last to read it and takes its id
  // instead of copying it.
  for (size_t i = items.size(); i-- > 0;) {
    PendingFrame& f = frames[frame_of_item[i]];
    assert(f.status != ItemStatus::undecided);
    ItemResponse& r = response.items[i];
    if (items[i].transaction_id.empty()) r.transaction_id = f.frame.transaction_id;
    else r.transaction_id = items[i].transaction_id;
    r.queue = items[i].queue;
    r.partition = items[i].partition;
    if (frames_made_by[frame_of_item[i]] == i) r.message_id = std::move(f.message_id);
    else r.message_id = f.message_id;
    r.error = f.error;
    // A follower echoes its leader's final id; it is never itself written.
    r.status = (f.leader_item == i || f.status == ItemStatus::error) ? f.status : ItemStatus::duplicate;
  }
  return response;
}

void Broker::submit(const std::pair<std::string, std::string>& partition, std::vector<PendingFrame>& frames) {
  if (!fusion_ || wait_ == nullptr) {
    push_partition(frames);
    return;
  }
  auto& slot = lanes_[partition];
  if (!slot) slot = std::make_shared<Lane>();
  const std::shared_ptr<Lane> held = slot;  // survives a crash that drops the lane
  Lane& lane = *held;
  Batch mine{&frames, {}, false, false, nullptr};
  lane.pending.push_back(&mine);
  if (lane.flushing) {
    // Another request's flush is in flight: ride in the next segment.
    while (!mine.finished && !mine.flusher) wait_->wait(mine.wake);
  }
  if (!mine.finished) {
    lane.flushing = true;
    while (!mine.finished) {
      std::vector<Batch*> round(lane.pending.begin(), lane.pending.end());
      lane.pending.clear();
      assert(!round.empty());
      flush_round(round);
    }
    // Hand the lane to the oldest waiter, or leave it idle.
    if (!lane.pending.empty()) {
      lane.pending.front()->flusher = true;
      wait_->notify(lane.pending.front()->wake, WaitPort::Wake::turn);
    } else {
      lane.flushing = false;
    }
  }
  if (mine.error) std::rethrow_exception(mine.error);
}

namespace {
// Whether no two frames share a hash (then none of them follows another).
template <class Frames>
bool distinct_hashes(const Frames& frames) {
  if (frames.size() < 2) return true;
  std::vector<Hash128> hashes;
  hashes.reserve(frames.size());
  for (const auto& f : frames) hashes.push_back(f.frame.hash);
  std::sort(hashes.begin(), hashes.end());
  return std::adjacent_find(hashes.begin(), hashes.end()) == hashes.end();
}
}  // namespace

void Broker::flush_round(const std::vector<Batch*>& round) {
  if (round.size() == 1 && distinct_hashes(*round.front()->frames)) {
    // One request alone in the lane, every frame its own leader (the common
    // case): what the fused path below computes is the request's frames
    // pushed as they are, so they are, without the copy and the hash map.
    Batch* batch = round.front();
    try {
      push_partition(*batch->frames);
    } catch (const BrokerLost&) {
      batch->error = std::current_exception();  // a crash: the request is lost, its frames unread
    }
    batch->finished = true;
    wait_->notify(batch->wake, WaitPort::Wake::answered);
    return;
  }
  // Layer 2: across the fused requests, the first frame of each hash leads.
  std::vector<PendingFrame> fused;
  std::vector<std::pair<PendingFrame*, size_t>> members;  // every frame -> its fused leader
  std::vector<std::pair<uint32_t, uint64_t>> followers;   // fused leader index -> follower request
  std::map<Hash128, size_t> by_hash;
  size_t total = 0;
  for (const Batch* batch : round) total += batch->frames->size();
  fused.reserve(total);
  members.reserve(total);
  for (Batch* batch : round) {
    for (PendingFrame& f : *batch->frames) {
      auto [it, inserted] = by_hash.try_emplace(f.frame.hash, fused.size());
      if (inserted) {
        fused.push_back(f);
      } else {
        if (fused[it->second].frame.origin_request != f.frame.origin_request) {
          QDT_REACHED("broker.fused_follower_of_another_request");
        }
        followers.emplace_back(static_cast<uint32_t>(it->second), f.frame.origin_request);
      }
      members.emplace_back(&f, it->second);
    }
  }
  if (round.size() > 1) {
    QDT_REACHED("broker.fused_requests");
    stats_.fused_segments++;
  }
  // Only a crash is the broker's to absorb: anything else (the storage
  // engine failing under the run) ends the run as the engine's error.
  try {
    push_partition(fused, std::move(followers));
  } catch (const BrokerLost&) {
    // In-flight work lost (a crash): every fused request shares the fate.
    for (Batch* batch : round) batch->error = std::current_exception();
  }
  if (!round.front()->error) {
    for (auto& [frame, leader] : members) {
      const PendingFrame& l = fused[leader];
      const bool leads = l.frame.message_id == frame->frame.message_id;
      frame->status = (leads || l.status == ItemStatus::error) ? l.status : ItemStatus::duplicate;
      frame->message_id = l.message_id;
      frame->error = l.error;
    }
  }
  for (Batch* batch : round) {
    batch->finished = true;
    wait_->notify(batch->wake, WaitPort::Wake::answered);
  }
}

void Broker::learn_window_now(const std::pair<std::string, std::string>& key, int64_t window_seconds) {
  known_window_[key] = {window_seconds, clock_.now_ms()};
}

void Broker::learn_window_by_ttl(const std::pair<std::string, std::string>& key, int64_t window_seconds) {
  auto [it, inserted] = known_window_.try_emplace(key, KnownWindow{window_seconds, clock_.now_ms()});
  // A cached entry is refreshed only once it is older than the TTL.
  if (!inserted && clock_.now_ms() - it->second.learnt_at_ms >= kMetaTtlMs) {
    it->second = {window_seconds, clock_.now_ms()};
  }
}

void Broker::crash() {
  cache_.clear();
  if (foreign_) foreign_->forget();
  known_window_.clear();
  for (auto& [key, lane] : lanes_) {
    // Requests waiting for the lane were in flight too: they are lost.
    for (Batch* batch : lane->pending) {
      batch->error = std::make_exception_ptr(BrokerLost("broker crashed with the request waiting in a fusion lane"));
      batch->finished = true;
      if (wait_ != nullptr) wait_->notify(batch->wake, WaitPort::Wake::answered);
    }
    lane->pending.clear();
  }
  lanes_.clear();
}

void Broker::forget_storage() {
  stats_.storage_resets++;
  // The variant's reasoning: the rows are still there. Not after a power
  // loss under synchronous off, nor in storage that was rebuilt.
  if (!forget_on_lost_connection_) return;
  cache_.clear();
  if (foreign_) foreign_->forget();
  known_window_.clear();
}

// One partition's frames on their way to storage: those without a verdict,
// the round, and the segment out at storage.
struct Broker::PartitionPush {
  std::vector<PendingFrame>& group;
  std::vector<size_t> remaining;
  std::vector<std::pair<uint32_t, uint64_t>> followers;  // round 0's
  // A lost connection (storage restarted) leaves a push's fate unknown: it
  // may have committed before the answer died. The same frames go again on
  // the new connection, with what the broker learnt forgotten, and storage's
  // probe decides (a committed frame answers duplicate), so `error` keeps
  // meaning "nothing committed" (docs/semantics.md §2.4). Bounded: storage may keep
  // restarting.
  uint32_t lost_retries = 0;
  size_t round = 0;  // each duplicate answer removes at least one frame: at most K rounds
  SegmentPush segment;
  std::vector<Hash128> hashes;

  PartitionPush(std::vector<PendingFrame>& frames, std::vector<std::pair<uint32_t, uint64_t>> round_zero_followers)
      : group(frames), remaining(frames.size()), followers(std::move(round_zero_followers)) {
    assert(!frames.empty());
    for (size_t i = 0; i < frames.size(); ++i) remaining[i] = i;
  }
};

void Broker::push_partition(std::vector<PendingFrame>& group, std::vector<std::pair<uint32_t, uint64_t>> followers) {
  PartitionPush p(group, std::move(followers));
  while (next_segment(p)) push_once(p);
}

bool Broker::next_segment(PartitionPush& p) {
  if (p.remaining.empty()) return false;
  assert(p.round <= p.group.size() + p.lost_retries);
  if (p.round == 1) QDT_REACHED("broker.duplicate_round_2");
  if (p.round == 2) QDT_REACHED("broker.duplicate_round_3");
  if (p.lost_retries > 0 && p.round == p.lost_retries) QDT_REACHED("broker.repushed_after_lost_connection");
  const std::string& queue = p.group.front().queue;
  const std::string& partition = p.group.front().partition;
  SegmentPush& segment = p.segment;
  segment = SegmentPush{};
  segment.queue = queue;
  segment.partition = partition;
  if (p.round == 0) segment.followers = std::move(p.followers);  // indices match: round 0 sends every frame
  segment.frames.reserve(p.remaining.size());
  p.hashes.clear();
  p.hashes.reserve(p.remaining.size());
  for (size_t i : p.remaining) {
    segment.frames.push_back(p.group[i].frame);
    p.hashes.push_back(p.group[i].frame.hash);
  }
  const auto key = std::make_pair(queue, partition);
  const auto known = known_window_.find(key);
  segment.window_seconds_assumed = known == known_window_.end() ? -1 : known->second.window_seconds;
  // The cache only narrows the probe; unknown window or any doubt: -1.
  const int64_t window_seconds = segment.window_seconds_assumed;
  segment.p_verified = window_seconds <= 0 ? -1
                       : foreign_ ? foreign_->watermark(queue, partition, p.hashes, clock_.now_ms(), window_seconds, *this)
                                  : cache_.watermark(queue, partition, p.hashes, clock_.now_ms(), window_seconds, *this);
  if (segment.p_verified >= 0) segment.p_verified += watermark_slack_;
  if (segment.p_verified < 0) {
    (this->*settle_locally_)(p.group, p.remaining, segment, p.hashes);
    if (p.remaining.empty()) return false;
  }
  return true;
}

void Broker::push_once(PartitionPush& p) {
  PushResult result;
  std::optional<StorageError> failure;
  try {
    stats_.segments_pushed++;
    result = storage_.push(p.segment);
  } catch (const StorageError& e) {
    note_storage_error(e);
    failure = e;
  }
  // Outside the handler: the next push switches fibers.
  if (failure) take_failure(p, *failure);
  else take_answer(p, result);
}

void Broker::push_bundle(std::vector<std::vector<PendingFrame>>& groups) {
  std::vector<PartitionPush> parts;
  parts.reserve(groups.size());
  for (auto& group : groups) parts.emplace_back(group, std::vector<std::pair<uint32_t, uint64_t>>{});
  std::vector<PartitionPush*> out;
  for (PartitionPush& p : parts) {
    if (next_segment(p)) out.push_back(&p);
  }
  if (out.size() == 1) push_once(*out.front());
  if (out.size() >= 2) {
    QDT_REACHED("broker.bundle_pushed");
    std::vector<SegmentPush> segments;
    segments.reserve(out.size());
    for (PartitionPush* p : out) segments.push_back(std::move(p->segment));
    std::vector<PushResult> results;
    std::optional<StorageError> failure;
    try {
      stats_.segments_pushed += segments.size();
      stats_.bundles_pushed++;
      results = storage_.push_bundle(segments);
      assert(results.size() == segments.size());
    } catch (const StorageError& e) {
      note_storage_error(e);
      failure = e;
    }
    // All or nothing: every partition of the bundle takes the one outcome.
    for (size_t k = 0; k < out.size(); ++k) {
      if (failure) take_failure(*out[k], *failure);
      else take_answer(*out[k], results[k]);
    }
  }
  // Later rounds (duplicates answered, a lost connection) one partition at a time.
  for (PartitionPush& p : parts) {
    while (next_segment(p)) push_once(p);
  }
}

void Broker::note_storage_error(const StorageError& e) {
  stats_.storage_errors++;
  if (e.connection_lost()) forget_storage();
}

void Broker::take_failure(PartitionPush& p, const StorageError& e) {
  if (e.connection_lost() && p.lost_retries < kLostConnectionRetriesMax) {
    ++p.lost_retries;
    ++p.round;
    return;
  }
  for (size_t i : p.remaining) {
    p.group[i].status = ItemStatus::error;
    p.group[i].error = std::string("storage: ") + e.what();
    p.group[i].message_id = kZeroUuidText;
  }
  p.remaining.clear();
}

void Broker::take_answer(PartitionPush& p, const PushResult& result) {
  const std::string& queue = p.group.front().queue;
  const std::string& partition = p.group.front().partition;
  (this->*learn_window_)(std::make_pair(queue, partition), result.window_seconds);
  ++p.round;
  if (result.queued) {
    if (foreign_) {
      foreign_->record_queued(queue, partition, result.base_offset, p.hashes, result.created_at_ms);
    } else {
      cache_.record_queued(queue, partition, result.base_offset,
                           result.base_offset + static_cast<int64_t>(p.hashes.size()) - 1, result.created_at_ms,
                           p.hashes, result.window_seconds);
    }
    for (size_t i : p.remaining) {
      p.group[i].status = ItemStatus::queued;
      p.group[i].message_id = to_string(p.group[i].frame.message_id);
    }
    p.remaining.clear();
    return;
  }
  stats_.duplicate_rounds++;
  assert(!result.duplicates.empty());
  std::vector<bool> settled(p.remaining.size(), false);
  for (const auto& [frame_index, offset] : result.duplicates) {
    assert(frame_index < p.remaining.size() && !settled[frame_index]);
    settled[frame_index] = true;
    PendingFrame& f = p.group[p.remaining[frame_index]];
    f.message_id = (this->*duplicate_id_)(queue, partition, offset, f.frame.hash);
    // After a lost connection the original storage names may be this very
    // frame: its first attempt committed and the answer died. Message ids
    // are unique per frame, so the id says so exactly; the item was written
    // by this request and answers queued (docs/semantics.md §2.4), not duplicate.
    const bool own_commit = p.lost_retries > 0 && f.message_id == to_string(f.frame.message_id);
    if (own_commit) QDT_REACHED("broker.repush_found_its_own_commit");
    f.status = own_commit ? ItemStatus::queued : ItemStatus::duplicate;
  }
  std::vector<size_t> survivors;
  for (size_t k = 0; k < p.remaining.size(); ++k) {
    if (!settled[k]) survivors.push_back(p.remaining[k]);
  }
  p.remaining = std::move(survivors);
}

void Broker::settle_held_hits(std::vector<PendingFrame>& group, std::vector<size_t>& remaining, SegmentPush& segment,
                              std::vector<Hash128>& hashes) {
  // The designer's shortcut: the cache holds the hash, so it is a duplicate.
  // (The reference never does this: a held row may be out of storage's window.)
  const std::string queue = segment.queue;
  const std::string partition = segment.partition;
  std::vector<std::optional<int64_t>> held(remaining.size());
  bool any = false;
  for (size_t k = 0; k < remaining.size(); ++k) {
    held[k] = cache_.held_offset(queue, partition, hashes[k]);
    any = any || held[k].has_value();
  }
  if (!any) return;  // the segment goes to storage untouched
  std::vector<size_t> survivors;
  std::vector<int64_t> new_index(remaining.size(), -1);
  SegmentPush rest;
  rest.queue = queue;
  rest.partition = partition;
  rest.window_seconds_assumed = segment.window_seconds_assumed;
  rest.p_verified = segment.p_verified;
  std::vector<Hash128> rest_hashes;
  for (size_t k = 0; k < remaining.size(); ++k) {
    if (held[k]) {
      PendingFrame& f = group[remaining[k]];
      f.status = ItemStatus::duplicate;
      f.message_id = resolve_original_id(queue, partition, *held[k], hashes[k]);
      continue;
    }
    new_index[k] = static_cast<int64_t>(survivors.size());
    survivors.push_back(remaining[k]);
    rest.frames.push_back(std::move(segment.frames[k]));
    rest_hashes.push_back(hashes[k]);
  }
  // A follower of a frame settled here is not recorded with any push: its
  // answer is the leader's, and the leader never reached storage.
  for (const auto& [frame, request] : segment.followers) {
    if (new_index[frame] >= 0) rest.followers.emplace_back(static_cast<uint32_t>(new_index[frame]), request);
  }
  remaining = std::move(survivors);
  segment = std::move(rest);
  hashes = std::move(rest_hashes);
}

// First-wins (docs/semantics.md §2.5): a repeat inside the request follows the leader.
void Broker::repeat_follows(PendingFrame& leader, const PushItem& item, size_t index) {}

// Variant last-wins: the later occurrence takes over the frame: its payload, its lead.
void Broker::repeat_takes_over(PendingFrame& leader, const PushItem& item, size_t index) {
  leader.frame.payload = json_text(*item.data);
  leader.leader_item = index;
}

// Variant fresh-id-on-duplicate: a duplicate answers a new id.
std::string Broker::fresh_duplicate_id(const std::string& queue, const std::string& partition, int64_t offset,
                                      const Hash128& hash) {
  return to_string(make_uuid_v7(clock_.now_ms(), random_.next_u64(), random_.next_u64()));
}

std::string Broker::resolve_original_id(const std::string& queue, const std::string& partition, int64_t offset,
                                       const Hash128& hash) {
  std::optional<CoveringSegment> segment;
  // A lost connection says nothing of the segment (storage restarted), and
  // after a re-push this read alone tells the frame's own commit (queued)
  // from another's (duplicate), so it goes again, bounded as a push does.
  for (uint32_t lost = 0;; ++lost) {
    try {
      segment = storage_.covering_segment(queue, partition, offset);
      break;
    } catch (const StorageError& e) {
      if (e.connection_lost()) forget_storage();
      if (e.connection_lost() && lost < kLostConnectionRetriesMax) {
        QDT_REACHED("broker.fetch_again_after_lost_connection");
        continue;
      }
      // Unreadable is the same as gone: the zero id still means "not written".
      QDT_REACHED("broker.duplicate_id_unreadable");
      break;
    }
  }
  if (segment) {
    auto frame = frame_at(segment->frames, static_cast<size_t>(offset - segment->base_offset));
    // Another key at the offset: storage lost power under synchronous off
    // after the probe, and the offset now holds a message written since.
    if (frame && hash_transaction_id(frame->transaction_id) == hash) return to_string(frame->message_id);
    if (frame) QDT_REACHED("broker.duplicate_offset_holds_another_key");
  }
  QDT_REACHED("broker.zero_id_duplicate");
  return kZeroUuidText;
}

}  // namespace qdt::impl
