#pragma once
// What each push item must answer, derived from the verdicts storage gave the
// frames of its request (docs/semantics.md §2.4-§2.6) and the covering-segment fetches that
// resolved duplicate ids.
//
// A frame is identified by (origin_request, queue, partition, transactionId,
// message_id). Its final verdict comes from the last push event that decided
// it: queued (every frame of a queued segment), duplicate (listed in the
// answer) or error (the transaction failed). A frame that survived a duplicate
// round and was never pushed again has no verdict. A frame queued at offset X
// and later listed as a duplicate of X found its own commit (the broker pushed
// it again after the connection died with the answer, maybe after attempts
// that failed in between): it answers queued at X. Unless a power loss
// emptied storage between the commit and that push (properties/power_loss.h):
// then X holds another frame written since, and the frame is a duplicate of
// it. When storage is emptied after such a push, before the broker's fetch
// told its own commit from another's, the fetch reads what storage holds
// since: the frame may also answer duplicate with an id a fetch of X read
// after the loss (docs/storage.md, power loss).
//
// An item whose request carries no frame of its key is a layer-2 follower
// (docs/semantics.md §2.5): it must be named in some PushEvent's `followers` (request id and
// transactionId), which points at its leader frame (that event's
// frames[frame], identified by origin_request and message_id). It answers
// exactly what that frame finally answered: queued -> duplicate with the
// leader's id; duplicate -> duplicate with the ids the leader may carry;
// error -> error. With no recorded leader nothing is acceptable.
//
// A duplicate's id is what a fetch of (broker, queue, partition, offset)
// recorded after the push. Concurrent requests on one broker may fetch the
// same offset in either order, so every id fetched after the push is accepted;
// the fetches themselves are checked against storage elsewhere.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <memory_resource>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/dense_table.h"
#include "properties/history.h"
#include "properties/key_ids.h"
#include "properties/key_view.h"
#include "properties/message_ids.h"
#include "properties/step_index.h"

namespace qdt::properties {

struct Expected {
  std::set<std::string> statuses;     // acceptable statuses; empty: nothing is acceptable
  std::set<std::string> message_ids;  // acceptable ids when queued or duplicate
  std::string because;                // how the expectation was derived, in sentences, for failure details
  // Ids acceptable with one status only: once storage may have lost the
  // commit a re-push found, the frame's own id is no duplicate's original and
  // an id the fetch read since the loss is no queued frame's.
  std::set<std::string> queued_only_ids;
  std::set<std::string> duplicate_only_ids;
  // The ids acceptable with `status`; with any status.
  std::set<std::string> ids_for(const std::string& status) const;
  std::set<std::string> all_ids() const;
  bool accepts(const history::ResponseItem& response) const;
  // What accepts() lets through, in words: "duplicate with id m1 or error",
  // "no answer" when no status is.
  std::string allowed() const;
};

// "m1", "m1 or m2", "m1, m2 or m3".
std::string join_or(const std::set<std::string>& values);

// model::request_leaders over the items of `request`: each item's group leader.
std::vector<size_t> request_leaders(const history::RequestRecord& request);

class Verdicts {
 public:
  // `history` must outlive the verdicts (as must `keys`, the history's).
  explicit Verdicts(const history::History& history);  // numbers the keys itself
  Verdicts(const history::History& history, const KeyIds& keys);
  // With the history's message id numbers too: accepts() then compares a
  // response of the history with a frame's id by number.
  Verdicts(const history::History& history, const KeyIds& keys, const MessageIds& messages);
  // The answer of item `index` of `request`; `leader` is its group's leader
  // (model::request_leaders), equal to `index` when it leads.
  Expected expected(const history::RequestRecord& request, size_t index, size_t leader) const;
  // expected(request, index, leader).accepts(response), without building the
  // expectation's sets and text.
  bool accepts(const history::RequestRecord& request, size_t index, size_t leader,
               const history::ResponseItem& response) const;

 private:
  enum class Kind { undecided, queued, duplicate, error };
  struct Outcome {
    std::string_view message_id;  // views into the history, which outlives the verdicts
    Kind kind = Kind::undecided;
    size_t event_index = 0;
    int64_t offset = -1;  // queued: where it landed; duplicate: the original
    uint32_t broker = 0;
    uint32_t number = 0;  // of message_id (MessageIds), when the verdicts have the numbers
    // Where the frame was last queued, kept across later verdicts: a failed
    // attempt (power lost) may come between the commit and the duplicate
    // that finds it again.
    int64_t stored_offset = -1;
    size_t stored_event = 0;
    // queued by finding its own commit: the first event after storage was
    // emptied behind that push, kNotLost when it never was.
    size_t lost_at = kNotLost;
  };
  static constexpr size_t kNotLost = SIZE_MAX;
  using FrameKey = RequestKey;  // (origin request, queue, partition, txn)
  struct FetchKey {
    uint32_t broker = 0;
    std::string_view queue;
    std::string_view partition;
    int64_t offset = 0;
    bool operator==(const FetchKey&) const = default;
  };
  struct FetchKeyHash {
    size_t operator()(const FetchKey& k) const {
      const std::hash<std::string_view> h;
      const size_t where = h(k.queue) * 0x9e3779b97f4a7c15ULL + h(k.partition);
      return (where * 0x9e3779b97f4a7c15ULL + static_cast<uint64_t>(k.offset)) * 0x9e3779b97f4a7c15ULL + k.broker;
    }
  };
  // What one fetch read: the zero id with no key when it failed or found nothing.
  struct Fetched {
    std::string message_id;
    std::string transaction_id;
    bool operator==(const Fetched&) const = default;
  };
  struct Fetches {
    std::vector<size_t> event_indices;         // ascending
    std::vector<std::vector<Fetched>> suffix;  // distinct reads at or after each position
  };
  void build(const history::History& history);
  // The outcomes of the frames `request` pushed with the key of its item `index`; nullptr when none.
  const std::pmr::vector<Outcome>* frame_outcomes(const history::RequestRecord& request, size_t index) const;
  Expected own_answer(const history::RequestRecord& request, size_t index) const;
  Expected follower_answer(const history::RequestRecord& request, const history::ItemRecord& item) const;
  // What the frame (origin_request, queue, partition, txn) with `message_id` finally answered, added to `x`.
  void add_frame_answer(const std::pmr::vector<Outcome>& outcomes, std::string_view message_id,
                        const history::ItemRecord& item, bool as_follower, const std::string& own_step,
                        Expected& x) const;
  // events[e] as a failure cites it (failure_sink.h's event_label).
  std::string cite(size_t e, const std::string& own_step) const;
  // The ids a duplicate of `item`'s key may answer from the fetches after
  // it: a frame of another key at the offset is no original (its segment is
  // gone, storage emptied since the probe): the zero id (docs/semantics.md §2.6).
  std::vector<std::string> fetched_after(const Outcome& o, const history::ItemRecord& item) const;
  // The same for a fetch of (o.broker, offset) at event index `from` or later.
  std::vector<std::string> fetched_from(const Outcome& o, int64_t offset, size_t from,
                                        const history::ItemRecord& item) const;

  // The indexes only grow while the verdicts are built and are freed
  // together: their nodes and outcome lists come from one arena, not one
  // allocation each per frame.
  std::pmr::monotonic_buffer_resource arena_;
  std::unique_ptr<const KeyIds> owned_keys_;  // when constructed without the history's
  const KeyIds* keys_ = nullptr;
  const history::History* history_ = nullptr;
  const MessageIds* messages_ = nullptr;  // optional
  mutable std::optional<StepIndex> steps_;  // built on the first text that cites an event
  // (origin request, key id) -> the frame's outcomes, one per message id:
  // numbered in a flat table, the outcomes by that number (a node table was
  // a twentieth of the checkers' time).
  model::DenseValues<RequestKeyId, RequestKeyIdHash> frames_;
  std::pmr::vector<std::pmr::vector<Outcome>> outcomes_{&arena_};
  std::unordered_map<FetchKey, Fetches, FetchKeyHash> fetches_;
  struct Leader {
    RequestKeyId frame;
    std::string_view message_id;
    size_t event_index = 0;
  };
  // (follower request, queue, partition, txn) -> its leader frames
  std::unordered_map<FrameKey, std::vector<Leader>, RequestKeyHash> followers_;
};

}  // namespace qdt::properties
