// first-wins (docs/semantics.md §5, 2.5): per request and per segment, one frame per key;
// followers carry the leader's final id.
//
// - a segment never holds two frames of one key (layer 2, and layer 1 when a
//   request's items meet in one segment);
// - one request puts one frame per (queue, partition, key) into storage: the
//   same frame may be pushed again after a duplicate round, but never a second
//   frame with another message id;
// - in each response, a follower answers duplicate with exactly the id its
//   leader answered, or error when the leader errored;
// - a layer-2 FollowerRecord names a frame of its segment (index in range)
//   of its own key, and the follower request's item of that key answers what
//   the leader frame's request answered for it (the same rule as layer 1).
#include <memory>
#include <memory_resource>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "model/dense_table.h"
#include "model/model.h"
#include "properties/checks.h"
#include "properties/event_pass.h"
#include "properties/failure_sink.h"
#include "properties/key_ids.h"
#include "properties/message_ids.h"
#include "properties/segment_keys.h"
#include "properties/step_index.h"
#include "properties/verdicts.h"

namespace qdt::properties {
namespace {

// The response a request gave for the first item of (queue, partition, txn); nullptr if none.
const history::ResponseItem* answer_of(const history::RequestRecord* r, const std::string& queue,
                                       const std::string& partition, const std::string& txn) {
  if (r == nullptr || r->rejected || r->responses.size() != r->items.size()) return nullptr;
  for (size_t i = 0; i < r->items.size(); ++i) {
    const history::ItemRecord& item = r->items[i];
    if (item.queue == queue && item.partition == partition && item.transaction_id == txn) return &r->responses[i];
  }
  return nullptr;
}

bool follows(const history::ResponseItem& leader, const history::ResponseItem& follower) {
  return leader.status == "error" ? follower.status == "error"
                                  : follower.status == "duplicate" && follower.message_id == leader.message_id;
}

void check_followers(const history::History& history, const history::PushEvent& push, size_t e,
                     const StepIndex& steps, FailureSink& sink) {
  if (push.followers.empty()) return;  // most segments: no label to build
  const std::string label = partition_label(push.queue, push.partition);
  for (const history::FollowerRecord& follower : push.followers) {
    const std::string at = event_label(history, steps, e, steps.step_of(follower.request)) +
                           " records request " + std::to_string(follower.request) + " (txn " +
                           follower.transaction_id + ") as a layer-2 follower (fused behind another request's frame "
                           "of its key) of frame " + std::to_string(follower.frame);
    if (follower.frame >= push.frames.size()) {
      sink.add(Rule::first_wins_follower_wrong_frame,
               {.step = steps.step_of(follower.request),
                .partition = label,
                .event = e,
                .expected = "a frame below " + std::to_string(push.frames.size()),
                .actual = "frame " + std::to_string(follower.frame),
                .detail = at + ", but the segment has only " + std::to_string(push.frames.size()) + " frames"});
      continue;
    }
    const history::FrameRecord& leader = push.frames[follower.frame];
    if (leader.transaction_id != follower.transaction_id) {
      sink.add(Rule::first_wins_follower_wrong_frame,
               {.step = steps.step_of(follower.request),
                .partition = label,
                .event = e,
                .expected = "a frame of txn " + follower.transaction_id,
                .actual = "a frame of txn " + leader.transaction_id,
                .detail = at + " (id " + leader.message_id + "), whose key is txn " + leader.transaction_id +
                          ", not its own"});
      continue;
    }
    const history::ResponseItem* led =
        answer_of(steps.find(leader.origin_request), push.queue, push.partition, leader.transaction_id);
    const history::ResponseItem* got =
        answer_of(steps.find(follower.request), push.queue, push.partition, follower.transaction_id);
    if (led == nullptr || got == nullptr || follows(*led, *got)) continue;  // unanswered: liveness' concern
    sink.add(Rule::first_wins_follower_answer,
             {.step = steps.step_of(follower.request),
              .partition = label,
              .event = e,
              .expected = led->status == "error" ? std::string("error") : "duplicate " + led->message_id,
              .actual = got->status + " " + got->message_id,
              .detail = at + " (id " + leader.message_id + ", request " + std::to_string(leader.origin_request) +
                        "): the leader answered " + led->status + " " + led->message_id +
                        ", the follower answered " + got->status + " " + got->message_id +
                        ", but a follower answers duplicate with its leader's id, or error when the leader failed"});
  }
}

class FirstWins final : public PassChecker {
 public:
  explicit FirstWins(const HistoryIndex& index)
      : PassChecker("first-wins", {}), index_(index), keys_(index.keys()), messages_(index.messages()) {
    frames_.reserve(index.history().events.size());
    first_frame_.reserve(index.history().events.size());
  }

  void before(size_t e, const history::Event& event, const PassState& /*state*/) override {
    const auto* push = std::get_if<history::PushEvent>(&event);
    if (push == nullptr) return;
    const StepIndex& steps = index_.steps();
    check_followers(index_.history(), *push, e, steps, sink_);
    const std::span<const uint32_t> keys = keys_.frames(e);
    const std::span<const uint32_t> ids = messages_.frames(e);
    first_frame_of_key(keys, first_of_key_);
    const std::vector<size_t>& first_of_key = first_of_key_;
    for (size_t j = 0; j < push->frames.size(); ++j) {
      const history::FrameRecord& f = push->frames[j];
      if (const size_t first = first_of_key[j]; first != j) {
        const std::string& step = steps.step_of(*push, j);
        sink_.add(Rule::first_wins_key_twice_in_segment,
                  {.step = step,
                   .partition = partition_label(push->queue, push->partition),
                   .event = e,
                   .expected = "one frame of txn " + f.transaction_id,
                   .actual = "frames " + std::to_string(first) + " and " + std::to_string(j),
                   .detail = event_label(index_.history(), steps, e, step) + ": frames " + std::to_string(first) +
                             " (id " + push->frames[first].message_id + ", request " +
                             std::to_string(push->frames[first].origin_request) + ") and " + std::to_string(j) +
                             " (id " + f.message_id + ", request " + std::to_string(f.origin_request) +
                             ") share txn " + f.transaction_id +
                             " in one segment, where the first frame of a key wins and the others follow it"});
      }
      const auto [frame, fresh] = frames_.insert(RequestKeyId{f.origin_request, keys[j]});
      if (fresh) first_frame_.emplace_back(ids[j], e);
      const auto [first_id, first_event] = first_frame_[frame];
      if (!fresh && first_id != ids[j]) {
        const std::string& step = steps.step_of(f.origin_request);
        sink_.add(Rule::first_wins_two_frames_per_key,
                  {.step = step,
                   .partition = partition_label(push->queue, push->partition),
                   .event = e,
                   .expected = "id " + std::string(messages_.text(first_id)),
                   .actual = "id " + f.message_id,
                   .detail = "request " + std::to_string(f.origin_request) + " pushed two different frames of txn " +
                             f.transaction_id + ", id " + std::string(messages_.text(first_id)) + " in " +
                             event_label(index_.history(), steps, first_event, step) + " and id " + f.message_id +
                             " in " + event_label(index_.history(), steps, e, step) +
                             "; a request puts one frame per key into storage (it may push that frame again, never "
                             "a new one)"});
      }
    }
  }

  void finish(const PassState& /*state*/) override {
    for (const history::RequestRecord& r : index_.history().requests) {
      if (r.rejected || r.responses.size() != r.items.size()) continue;  // model-agreement reports the shape
      const std::span<const size_t> leaders = index_.leaders(r);
      for (size_t i = 0; i < r.items.size(); ++i) {
        const size_t l = leaders[i];
        if (l == i) continue;
        const history::ResponseItem& leader = r.responses[l];
        const history::ResponseItem& follower = r.responses[i];
        if (follows(leader, follower)) continue;
        const std::string want = leader.status == "error" ? std::string("error") : "duplicate " + leader.message_id;
        sink_.add(Rule::first_wins_repeated_item_answer,
                  {.step = r.step,
                   .partition = partition_label(r.items[i].queue, r.items[i].partition),
                   .expected = want,
                   .actual = follower.status + " " + follower.message_id,
                   .detail = "item " + std::to_string(i) + " repeats the key of item " + std::to_string(l) +
                             " (txn " + r.items[i].transaction_id + "), so it answers what item " +
                             std::to_string(l) + " answered, duplicate for queued: item " + std::to_string(l) +
                             " answered " + leader.status + " " + leader.message_id + ", item " + std::to_string(i) +
                             " answered " + follower.status + " " + follower.message_id + "; expected " + want});
      }
    }
  }

 private:
  const HistoryIndex& index_;
  const KeyIds& keys_;
  const MessageIds& messages_;
  std::vector<size_t> first_of_key_;  // the current push's, reused
  model::DenseValues<RequestKeyId, RequestKeyIdHash> frames_;  // (request, key id) of every frame walked
  std::vector<std::pair<uint32_t, size_t>> first_frame_;  // by frames_ number: (message id number, event) of the first

};

}  // namespace

std::unique_ptr<PassChecker> make_first_wins(const HistoryIndex& index) { return std::make_unique<FirstWins>(index); }

std::vector<Failure> check_first_wins(const history::History& history) { return check_alone(make_first_wins, history); }

}  // namespace qdt::properties
