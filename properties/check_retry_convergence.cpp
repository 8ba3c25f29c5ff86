// retry-convergence (docs/semantics.md §5, 2.12): all responses a retrying producer received
// for one item name the same id (or zero), and one push stores at most one
// message per key within the window.
//
// A push is every RequestRecord sharing push_id (0: not recorded, the request
// is its own push): its attempts and the network's duplicated deliveries.
//
// Response level: per push and item index, the queued or duplicate responses
// the producer actually received (delivered, response_received, not rejected)
// name at most one non-zero id. Errors say nothing about ids and are ignored.
// Two different ids are accepted only when storage was allowed to write the
// later one as a new message (docs/semantics.md §2.7): at its commit the window was 0, or
// the earlier message was outside the window or its sidecar row was purged.
// Otherwise a dedup-off queue, or a retry after the window, would fail a
// correct implementation.
//
// Storage level: frames of one push's requests (FrameRecord::origin_request)
// that storage queued under one key are compared, newest first, with the
// earlier copies of that push still holding a sidecar row, exactly as
// no-double-write compares every stored message.
#include <algorithm>
#include <cassert>
#include <map>
#include <memory>
#include <memory_resource>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "model/dense_table.h"
#include "properties/checks.h"
#include "properties/event_pass.h"
#include "properties/failure_sink.h"
#include "properties/key_ids.h"
#include "properties/message_ids.h"
#include "properties/step_index.h"
#include "properties/storage_replay.h"

namespace qdt::properties {
namespace {

// The push a request belongs to: its push_id, or its own id when none was recorded.
std::pair<bool, uint64_t> push_of(const history::RequestRecord& r) {
  return r.push_id != 0 ? std::make_pair(true, r.push_id) : std::make_pair(false, r.request);
}

struct Commit {
  int64_t window_seconds = 0;  // in force for the commit
  int64_t now_ms = 0;
  bool recorded = false;  // the event is a queued push
};

// Whether storage was allowed to write `later` while `earlier` held the same
// key in the same partition (docs/semantics.md §2.7, 2.8).
bool fresh_allowed(const StoredMessage& earlier, const StoredMessage& later, const Commit& commit) {
  if (commit.window_seconds == 0) return true;
  if (!earlier.sidecar_present && earlier.sidecar_purged_by < later.event_index) return true;
  return earlier.created_at_ms < commit.now_ms - commit.window_seconds * 1000;
}

// A key (KeyIds) within one push, and for responses one item index of it.
struct PushKey {
  std::pair<bool, uint64_t> push;
  size_t item = 0;  // 0 for the storage level
  uint32_t key = 0;
  bool operator==(const PushKey&) const = default;
};

struct PushKeyHash {
  size_t operator()(const PushKey& k) const {
    const size_t push = std::hash<uint64_t>{}(k.push.second) ^ (k.push.first ? 0x51ed27ULL : 0);
    return ((static_cast<uint64_t>(k.key) * 0x9e3779b97f4a7c15ULL + push) * 0x9e3779b97f4a7c15ULL + k.item) ^
           (k.key >> 7);
  }
};

// One id a push item received (its text and number, MessageIds) with the first record that received it.
struct ReceivedId {
  std::string_view text;
  uint32_t number = 0;
  const history::RequestRecord* request = nullptr;
};
// The ids one push item received.
using Received = std::pmr::vector<ReceivedId>;

class RetryConvergence final : public PassChecker {
 public:
  explicit RetryConvergence(const HistoryIndex& index)
      : PassChecker("retry-convergence", {.replay = true}), index_(index), keys_(index.keys()) {
    commits_.resize(index.history().events.size());
    pushes_.reserve(index.history().events.size());
  }

  void before(size_t e, const history::Event& event, const PassState& state) override {
    const auto* push = std::get_if<history::PushEvent>(&event);
    if (!push || push->failed || !push->queued) return;
    const StepIndex& steps = index_.steps();
    const int64_t window = state.push_window_seconds;
    commits_[e] = Commit{window, push->now_ms, true};
    const PartitionReplay* partition = state.push_partition;
    const std::span<const uint32_t> keys = keys_.frames(e);
    const int64_t oldest_ms = push->now_ms - window * 1000;
    for (size_t j = 0; j < push->frames.size(); ++j) {
      const history::FrameRecord& f = push->frames[j];
      const history::RequestRecord* origin = steps.find(f.origin_request);
      if (origin == nullptr) continue;
      const int64_t offset = push->base_offset + static_cast<int64_t>(j);
      // Offsets this push's frames stored under the key, ascending, still unpurged as far as known.
      const auto [number, fresh] = pushes_.insert(PushKey{push_of(*origin), 0, keys[j]});
      if (fresh) stored_by_push_.emplace_back();
      std::pmr::vector<int64_t>& earlier = stored_by_push_[number];
      const std::string& step = steps.step_of(*push, j);
      auto what = [&] {
        return "txn " + f.transaction_id + " was stored at offset " + std::to_string(offset) + " by " +
               event_label(index_.history(), steps, e, step) + " for request " + std::to_string(f.origin_request) +
               " (push " + std::to_string(origin->push_id) + ", attempt " + std::to_string(origin->attempt) +
               ", window " + std::to_string(window) + " s)";
      };
      for (size_t k = earlier.size(); window > 0 && k-- > 0;) {
        if (earlier[k] >= push->base_offset) {  // the same segment: committed together, inside the window
          sink_.add(Rule::retry_convergence_key_twice_in_segment,
                    {.step = step,
                     .partition = partition_label(push->queue, push->partition),
                     .event = e,
                     .expected = "duplicate of offset " + std::to_string(earlier[k]),
                     .actual = "stored at offset " + std::to_string(offset),
                     .detail = what() + " together with offset " + std::to_string(earlier[k]) +
                               " of the same push in one segment: one push stores at most one message per key"});
          break;
        }
        const StoredMessage* m = partition ? partition->at(earlier[k]) : nullptr;
        if (m == nullptr || !m->sidecar_present) {  // purged (or never stored): no longer counts
          earlier.erase(earlier.begin() + static_cast<ptrdiff_t>(k));
          continue;
        }
        if (m->created_at_ms < oldest_ms) break;
        sink_.add(Rule::retry_convergence_stored_again,
                  {.step = step,
                   .partition = partition_label(push->queue, push->partition),
                   .event = e,
                   .expected = "duplicate of offset " + std::to_string(m->offset),
                   .actual = "stored at offset " + std::to_string(offset),
                   .detail = what() + " while offset " + std::to_string(m->offset) + " (id " + m->message_id() +
                             ", request " + std::to_string(m->origin_request()) + "), stored by " +
                             event_label(index_.history(), steps, m->event_index, step) +
                             " for the same push, was still in the window with its sidecar row (the key's dedup "
                             "entry) present: a retry must find it, not store the key again"});
        break;
      }
      auto at = std::lower_bound(earlier.begin(), earlier.end(), offset);
      if (at == earlier.end() || *at != offset) earlier.insert(at, offset);
    }
  }

  // A power loss emptied storage: the copies stored before are gone, and
  // the ids answered then are found in what it emptied.
  void storage_emptied(size_t /*e*/, const PassState& before) override {
    for (std::pmr::vector<int64_t>& earlier : stored_by_push_) earlier.clear();
    emptied_.push_back(&before.replay);
  }

  void finish(const PassState& state) override {
    // Numbered in a flat table; the ids by that number.
    model::DenseValues<PushKey, PushKeyHash> items;
    std::pmr::vector<Received> received(&arena_);
    items.reserve(index_.history().requests.size());
    received.reserve(index_.history().requests.size());
    const MessageIds& messages = index_.messages();
    const std::optional<uint32_t> zero = messages.find(history::kZeroUuid);
    const std::vector<history::RequestRecord>& requests = index_.history().requests;
    for (size_t n = 0; n < requests.size(); ++n) {
      const history::RequestRecord& r = requests[n];
      if (!r.delivered || !r.response_received || r.rejected) continue;
      const std::span<const uint32_t> keys = keys_.items(r);
      const std::span<const uint32_t> numbers = messages.responses(n);
      for (size_t i = 0; i < r.responses.size() && i < r.items.size(); ++i) {
        const history::ResponseItem& got = r.responses[i];
        if (got.status != "queued" && got.status != "duplicate") continue;
        if (numbers[i] == zero) continue;
        const auto [number, fresh] = items.insert(PushKey{push_of(r), i, keys[i]});
        if (fresh) received.emplace_back();
        Received& ids = received[number];
        if (std::none_of(ids.begin(), ids.end(), [&](const ReceivedId& id) { return id.number == numbers[i]; })) {
          ids.push_back(ReceivedId{got.message_id, numbers[i], &r});
        }
      }
    }
    std::vector<std::pair<PushKey, Received*>> diverged;
    for (uint32_t n = 0; n < received.size(); ++n) {
      Received& ids = received[n];
      if (ids.size() < 2) continue;
      std::sort(ids.begin(), ids.end(), [](const ReceivedId& x, const ReceivedId& y) { return x.text < y.text; });
      diverged.emplace_back(items.key(n), &ids);
    }
    // Reported by push, item, then the key's strings (every record of a
    // group carries that key as item `item`).
    auto order = [](const std::pair<PushKey, Received*>& d) {
      const history::ItemRecord& item = d.second->front().request->items[d.first.item];
      return std::tie(d.first.push, d.first.item, item.queue, item.partition, item.transaction_id);
    };
    std::sort(diverged.begin(), diverged.end(), [&](const auto& x, const auto& y) { return order(x) < order(y); });
    std::vector<const StorageReplay*> epochs = emptied_;
    epochs.push_back(&state.replay);
    for (const auto& [where, ids] : diverged) judge_ids(where.item, *ids, epochs);
  }

 private:
  // Push item `i` received two or more different ids. `epochs`: storage as
  // each power loss emptied it, oldest first, then as the run ended.
  void judge_ids(size_t i, const Received& all_ids, const std::vector<const StorageReplay*>& epochs) {
    // An id stored before a power loss emptied storage conflicts with no
    // later one: the later answers came after it was lost.
    size_t latest = 0;
    std::vector<size_t> epoch_of(all_ids.size(), epochs.size());  // epochs.size(): stored nowhere
    for (size_t k = 0; k < all_ids.size(); ++k) {
      for (size_t ep = epochs.size(); ep-- > 0;) {
        if (epochs[ep]->locate(all_ids[k].number) != nullptr) {
          epoch_of[k] = ep;
          latest = std::max(latest, ep);
          break;
        }
      }
    }
    Received ids(&arena_);
    for (size_t k = 0; k < all_ids.size(); ++k) {
      if (epoch_of[k] == latest || epoch_of[k] == epochs.size()) ids.push_back(all_ids[k]);
    }
    if (ids.size() < 2) return;
    const StorageReplay& replay = *epochs[latest];
    // Order the ids by where they are stored; an id stored nowhere under the
    // item's key conflicts with every other.
    const history::RequestRecord& any = *ids.front().request;
    const history::ItemRecord& item = any.items[i];
    const PartitionReplay* partition = replay.find(item.queue, item.partition);
    std::map<int64_t, const StoredMessage*> stored;
    std::vector<std::string_view> unstored;
    for (const ReceivedId& id : ids) {
      const StorageReplay::Location* at = replay.locate(id.number);
      const StoredMessage* m = at && partition && at->queue == item.queue && at->partition == item.partition
                                   ? partition->at(at->offset)
                                   : nullptr;
      if (m != nullptr && m->transaction_id() == item.transaction_id) {
        stored.emplace(m->offset, m);
      } else {
        unstored.push_back(id.text);
      }
    }
    std::string conflict;
    if (!unstored.empty()) {
      conflict = "id " + std::string(unstored.front()) + " is not a message stored under the item's key, so the "
                 "answers cannot both be right";
    } else {
      for (auto later = std::next(stored.begin()); conflict.empty() && later != stored.end(); ++later) {
        const Commit& commit = commits_.at(later->second->event_index);
        assert(commit.recorded);
        for (auto earlier = stored.begin(); earlier != later; ++earlier) {
          if (fresh_allowed(*earlier->second, *later->second, commit)) continue;
          conflict = "offset " + std::to_string(later->first) + " (id " + later->second->message_id() +
                     ") was stored by " + event_label(index_.history(), index_.steps(), later->second->event_index) +
                     " while offset " + std::to_string(earlier->first) + " (id " + earlier->second->message_id() +
                     ", created at " + std::to_string(earlier->second->created_at_ms) + " ms) was in the " +
                     std::to_string(commit.window_seconds) +
                     " s window with its sidecar row (the key's dedup entry) present, so storage had to answer "
                     "duplicate instead";
          break;
        }
      }
    }
    if (conflict.empty()) return;
    std::string answers;
    for (size_t k = 0; k < ids.size(); ++k) {
      answers += (k == 0 ? "" : k + 1 == ids.size() ? " and " : ", ") + std::string(ids[k].text) + " (request " +
                 std::to_string(ids[k].request->request) + ", attempt " + std::to_string(ids[k].request->attempt) + ")";
    }
    sink_.add(Rule::retry_convergence_ids_diverged,
              {.step = any.step,
               .partition = partition_label(item.queue, item.partition),
               .expected = "one id",
               .actual = std::to_string(ids.size()) + " ids",
               .detail = "push " + std::to_string(any.push_id) + " item " + std::to_string(i) + " (txn " +
                         item.transaction_id + ") was answered " + std::to_string(ids.size()) +
                         " different ids across its deliveries, " + answers +
                         "; a retried push names one message: " + conflict});
  }

  const HistoryIndex& index_;
  const KeyIds& keys_;
  std::vector<Commit> commits_;  // by event: what a queued push's probe saw
  // (push, key) of every stored frame, numbered; by that number, the offsets.
  model::DenseValues<PushKey, PushKeyHash> pushes_;
  std::pmr::vector<std::pmr::vector<int64_t>> stored_by_push_{&arena_};
  std::vector<const StorageReplay*> emptied_;  // storage as each power loss found it, oldest first
};

}  // namespace

std::unique_ptr<PassChecker> make_retry_convergence(const HistoryIndex& index) {
  return std::make_unique<RetryConvergence>(index);
}

std::vector<Failure> check_retry_convergence(const history::History& history) {
  return check_alone(make_retry_convergence, history);
}

}  // namespace qdt::properties
