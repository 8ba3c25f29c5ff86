// client-visible (docs/semantics.md §5; one file past 400 lines: its rules
// share the bounds they derive): a black-box check in the manner of Jepsen, judged
// from what producers received (RequestRecord responses) and a final read of
// every partition (History::final_reads), never from storage's push verdicts
// or fetched ids. Skipped when the recorder did not fill final_reads.
//
// Storage times are bounded from the outside: a delivery's frames committed
// with received_at_ms <= created_at <= answered_at_ms (RequestRecord, storage
// clock). Without recorded_request_times every time bound is "unknown" and
// each rule below falls back to its lenient side. Inputs the checker may use
// besides the clients' view: the queue options (ConfigureEvent), the instants
// of retention passes (RetentionEvent.now_ms, never what they deleted), the
// ids acks resolved (AckEvent), and the fault log (delete_segment faults,
// failed fetches).
//
// Rules (each chosen to be sound: a correct storage never fails them):
// 1. Queued is readable. An id answered `queued` to anyone is in the final
//    read of its partition, with its key, unless its segment may be gone by
//    the model: a delete_segment fault on the partition after it was
//    received, or a retention pass at T with retentionSeconds R > 0 and
//    received < T - R, or completedRetentionSeconds C > 0, received < T - C
//    and an ack of the partition resolved before T of this key, or of a key
//    with a copy not answered before this one was received (acks commit
//    cumulatively, some copy of the key above the committed offset, so a
//    later offset's ack completes the earlier ones; untimed, or a key with
//    copies no client saw: any resolved ack), or a power loss under synchronous off at or after received
//    (properties/power_loss.h).
// 2. A duplicate names an original. A non-zero id must be one answered
//    `queued` for the same key and partition to a delivery received before
//    the duplicate was answered and possibly inside the window at its probe
//    (answered >= dup.received - max window in force), with no power loss
//    under synchronous off between its answer and the probe; an id no client was
//    answered must be read (final read or a client read) with that key and
//    partition, or the key must have a delivery whose commit the clients
//    cannot see (lost in a crash). The
//    zero id needs such an original whose segment may be unreadable: its id
//    is absent from the final read, or the partition had a failed fetch, or
//    the original is unseen (crash). No original at all: a lost write.
// 3. No key readable twice within a window. For two final-read messages of
//    one key (consecutive in offset order, so the lower committed first) both
//    answered `queued` to someone, the copies are legitimate only if their
//    commits may be farther apart than the smallest window in force between
//    them: second.answered - first.received > W_lo (or W_lo == 0). Sound
//    because storage queues the second only when the first is out of the
//    window at the probe (distance > W(probe) >= W_lo) or its sidecar row was
//    purged, which needs age > max(W(purge), ...) >= W_lo. Copies whose
//    commit no client saw answered (crashed deliveries) are not judged.
// 4. A layer-2 follower names a recorded leader: every PushEvent follower
//    record names a delivery that carried that key in that partition, and a
//    frame of its segment that a recorded delivery of the same key produced.
//    (The record's identity only; the follower's answer is rule 2's.)
#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <memory_resource>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <variant>
#include <vector>

#include "properties/checks.h"
#include "properties/event_pass.h"
#include "properties/failure_sink.h"
#include "properties/key_ids.h"
#include "properties/key_view.h"
#include "properties/message_ids.h"
#include "properties/power_loss.h"
#include "properties/step_index.h"

namespace qdt::properties {
namespace {

using PartitionKey = std::pair<std::string, std::string>;
using Key = std::tuple<std::string, std::string, std::string>;  // queue, partition, txn

struct Answer {
  const history::RequestRecord* request = nullptr;
  size_t item = 0;
  uint32_t number = 0;  // of id() (MessageIds)
  const std::string& id() const { return request->responses[item].message_id; }
};

struct Pass {
  int64_t now_ms = 0;
  int64_t retention_seconds = 0;
  int64_t completed_retention_seconds = 0;
};

// A failure of rule 1, kept to be reported in the order of its id.
struct Unreadable {
  std::string_view id;
  Rule rule;
  Failure failure;
};

class ClientView {
 public:
  ClientView(const history::History& h, const StepIndex& steps, const KeyIds& keys, const MessageIds& messages,
             FailureSink& sink)
      : h_(h), steps_(steps), keys_(keys), messages_(messages), sink_(sink), timed_(h.recorded_request_times) {}

  void run() {
    collect();
    // Rule 1 reports in the order of the ids' strings: its failures are
    // sorted, not the answers (a string sort of every queued id cost more
    // than the rule).
    std::vector<Unreadable> readable;
    for (const Answer& answer : queued_) check_readable(answer, readable);
    std::sort(readable.begin(), readable.end(), [](const auto& x, const auto& y) { return x.id < y.id; });
    for (Unreadable& u : readable) sink_.add(u.rule, std::move(u.failure));
    for (const Answer& d : duplicates_) check_duplicate(d);
    for (size_t f = 0; f < h_.final_reads.size(); ++f) check_read_twice(h_.final_reads[f], messages_.final_read(f));
    check_followers();
  }

 private:
  void collect() {
    // By id number, the first queued answer (index into queued_ + 1; 0: none).
    first_queued_.assign(messages_.size(), 0);
    unseen_.assign(keys_.size(), false);
    for (size_t n = 0; n < h_.requests.size(); ++n) {
      const history::RequestRecord& r = h_.requests[n];
      if (!r.delivered || r.rejected) continue;
      if (r.lost_in_crash || r.responses.size() != r.items.size()) {
        for (uint32_t key : keys_.items(r)) unseen_[key] = true;
        continue;
      }
      const std::span<const uint32_t> numbers = messages_.responses(n);
      for (size_t i = 0; i < r.items.size(); ++i) {
        const std::string& status = r.responses[i].status;
        const Answer a{&r, i, numbers[i]};
        if (status == "queued" && first_queued_[a.number] == 0) {  // the first answer of each id kept
          queued_.push_back(a);
          first_queued_[a.number] = static_cast<uint32_t>(queued_.size());
        }
        if (status == "duplicate") duplicates_.push_back(a);
      }
    }
    std::map<std::string, history::ConfigureEvent> options;
    // A power loss that empties storage takes the queues' settings too: every
    // queue is back to the defaults (a 3600 s window, no retention).
    std::map<size_t, int64_t> emptied_at_ms;  // event index -> instant
    for (const history::StorageCrash& crash : h_.storage_crashes) {
      if (loses_every_commit(crash)) emptied_at_ms.emplace(crash.event_index, crash.at_ms);
    }
    for (size_t e = 0; e < h_.events.size(); ++e) {
      const history::Event& event = h_.events[e];
      if (const auto emptied = emptied_at_ms.find(e); emptied != emptied_at_ms.end()) {
        options.clear();
        for (auto& [queue, windows] : windows_) windows.emplace_back(emptied->second, history::ConfigureEvent{}.window_seconds);
      }
      if (const auto* c = std::get_if<history::ConfigureEvent>(&event)) {
        options[c->queue] = *c;
        windows_[c->queue].emplace_back(c->now_ms, c->window_seconds);
      } else if (const auto* pass = std::get_if<history::RetentionEvent>(&event); pass && !pass->failed) {
        auto o = options.find(pass->queue);
        const history::ConfigureEvent c = o == options.end() ? history::ConfigureEvent{} : o->second;
        passes_[{pass->queue, pass->partition}].push_back(
            Pass{pass->now_ms, c.retention_seconds, c.completed_retention_seconds});
      } else if (const auto* del = std::get_if<history::DeleteSegmentEvent>(&event)) {
        deletes_[{del->queue, del->partition}].push_back(del->now_ms);
      } else if (const auto* fetch = std::get_if<history::FetchEvent>(&event); fetch && fetch->failed) {
        fetch_faults_.insert({fetch->queue, fetch->partition});
      } else if (const auto* ack = std::get_if<history::AckEvent>(&event); ack && ack->acked && !ack->failed) {
        const std::optional<uint32_t> key = keys_.find(KeyView{ack->queue, ack->partition, ack->transaction_id});
        acks_[{ack->queue, ack->partition}].push_back({ack->now_ms, key ? *key : kUnknownKey});
      }
    }
    queued_by_key_.resize(keys_.size());
    for (const Answer& answer : queued_) queued_by_key_[keys_.items(*answer.request)[answer.item]].push_back(answer);
  }

  // The smallest (or largest) window in force at some instant of [from, to]:
  // the one in force before `from` and every one configured within. A
  // configure at the very instant of a push may have committed on either side
  // of it, so both count (the bound only gets more lenient).
  int64_t window_bound(const std::string& queue, int64_t from, int64_t to, bool smallest) const {
    int64_t before = 3600;
    int64_t out = -1;
    auto take = [&](int64_t w) { out = out < 0 ? w : smallest ? std::min(out, w) : std::max(out, w); };
    if (auto it = windows_.find(queue); it != windows_.end()) {
      for (const auto& [now_ms, window] : it->second) {
        if (now_ms < from) before = window;
        if (now_ms >= from && now_ms <= to) take(window);
      }
    }
    take(before);
    return out;
  }

  // Whether a client read (ReadEvent) or the final read returned the id with
  // that partition and key. Indexed on first use: only a duplicate naming an
  // id no client was answered queued asks.
  bool was_read(const ReadKey& k) {
    if (!read_ids_indexed_) {
      read_ids_indexed_ = true;
      for (const history::Event& event : h_.events) {
        const auto* read = std::get_if<history::ReadEvent>(&event);
        if (read == nullptr || read->failed) continue;
        for (const history::ReadMessage& m : read->messages) {
          read_ids_.insert({m.message_id, {read->queue, read->partition, m.transaction_id}});
        }
      }
      for (const history::FinalRead& read : h_.final_reads) {
        for (const history::ReadMessage& m : read.messages) {
          read_ids_.insert({m.message_id, {read.queue, read.partition, m.transaction_id}});
        }
      }
    }
    return read_ids_.contains(k);
  }

  // The first queued answer of the id numbered `id`; nullptr when none.
  const Answer* queued(uint32_t id) const { return first_queued_[id] == 0 ? nullptr : &queued_[first_queued_[id] - 1]; }

  // The first message of the final read of that partition with the id numbered `id`.
  const history::ReadMessage* in_final_read(std::string_view queue, std::string_view partition, uint32_t id) const {
    for (const MessageIds::ReadCopy& copy : messages_.final_copies(id)) {
      const history::FinalRead& read = h_.final_reads[copy.read];
      if (read.queue == queue && read.partition == partition) return &read.messages[copy.message];
    }
    return nullptr;
  }

  bool may_be_gone(const Answer& a) const {
    const history::ItemRecord& item = a.request->items[a.item];
    const int64_t received = a.request->received_at_ms;
    // Storage emptied by a power loss at or after the commit (power_loss.h).
    if (emptied_between(h_, timed_ ? received - 1 : std::numeric_limits<int64_t>::min(),
                        std::numeric_limits<int64_t>::max())) {
      return true;
    }
    if (auto it = deletes_.find({item.queue, item.partition}); it != deletes_.end()) {
      if (!timed_ || std::any_of(it->second.begin(), it->second.end(), [&](int64_t t) { return t >= received; })) {
        return true;
      }
    }
    auto it = passes_.find({item.queue, item.partition});
    if (it == passes_.end()) return false;
    const auto acks = acks_.find({item.queue, item.partition});
    for (const Pass& p : it->second) {
      if (p.retention_seconds > 0 && (!timed_ || received < p.now_ms - p.retention_seconds * 1000)) return true;
      if (p.completed_retention_seconds > 0 && acks != acks_.end() && committed_by(a, acks->second, p.now_ms) &&
          (!timed_ || received < p.now_ms - p.completed_retention_seconds * 1000)) {
        return true;
      }
    }
    return false;
  }

  // Whether an ack resolved by `before_ms` may have committed a's offset. An
  // ack commits some copy of its key above the group's committed offset, not
  // necessarily the one its answer names: of a's own key, or of a key with a
  // copy that may have committed after a did (one not answered before a was
  // received: a later offset, or a later frame of the same segment), or
  // whose copies no client saw answered.
  bool committed_by(const Answer& a, const std::vector<std::pair<int64_t, uint32_t>>& acks, int64_t before_ms) const {
    const uint32_t own = keys_.items(*a.request)[a.item];
    for (const auto& [now_ms, key] : acks) {
      if (now_ms > before_ms) continue;
      if (key == own || !timed_ || key == kUnknownKey || unseen_[key]) return true;
      for (const Answer& copy : queued_by_key_[key]) {
        if (copy.request->answered_at_ms >= a.request->received_at_ms) return true;
      }
    }
    return false;
  }

  void check_readable(const Answer& a, std::vector<Unreadable>& failures) {
    const history::ItemRecord& item = a.request->items[a.item];
    auto at = [&] {
      return "item " + std::to_string(a.item) + " (txn " + item.transaction_id + ") of request " +
             std::to_string(a.request->request) + " was answered queued with id " + a.id();
    };
    const history::ReadMessage* m = in_final_read(item.queue, item.partition, a.number);
    if (m != nullptr) {
      if (m->transaction_id != item.transaction_id) {
        failures.push_back({a.id(), Rule::client_visible_queued_id_holds_other_key,
                            {.step = a.request->step,
                             .partition = partition_label(item.queue, item.partition),
                             .expected = "txn " + item.transaction_id,
                             .actual = "txn " + m->transaction_id,
                             .detail = at() + ", but the final read holds that id at offset " +
                                       std::to_string(m->offset) + " with txn " + m->transaction_id}});
      }
      return;
    }
    if (may_be_gone(a)) return;
    const std::string label = partition_label(item.queue, item.partition);
    failures.push_back({a.id(), Rule::client_visible_queued_not_readable,
                        {.step = a.request->step, .partition = label,
                         .expected = "id " + a.id() + " readable",
                         .actual = "not in the final read",
                         .detail = at() + ", but the final read of " + label +
                                   " does not hold it, and no retention pass, delete_segment fault or power loss "
                                   "under synchronous off could have removed its segment"}});
  }

  // A queued answer of the duplicate's key that may be its original.
  bool may_be_original(const Answer& q, const Answer& d) const {
    if (!timed_) return true;
    const history::ItemRecord& item = d.request->items[d.item];
    if (q.request->received_at_ms > d.request->answered_at_ms) return false;  // committed after the probe
    // A power loss emptied storage between the commit and the probe.
    if (emptied_between(h_, q.request->answered_at_ms, d.request->received_at_ms)) return false;
    const int64_t w_max = window_bound(item.queue, d.request->received_at_ms, d.request->answered_at_ms, false);
    return q.request->answered_at_ms >= d.request->received_at_ms - w_max * 1000;
  }

  void check_duplicate(const Answer& d) {
    const history::ItemRecord& item = d.request->items[d.item];
    const Key key{item.queue, item.partition, item.transaction_id};
    const std::string label = partition_label(item.queue, item.partition);
    const std::string& id = d.id();
    const bool unseen = unseen_[keys_.items(*d.request)[d.item]];
    const std::string at = "item " + std::to_string(d.item) + " (txn " + item.transaction_id + ") answered duplicate";
    if (id != history::kZeroUuid) {
      if (const Answer* q = queued(d.number)) {
        const history::ItemRecord& original = q->request->items[q->item];
        if (std::tie(original.queue, original.partition, original.transaction_id) == key && may_be_original(*q, d)) {
          return;
        }
        sink_.add(Rule::client_visible_duplicate_names_no_original,
                  {.step = d.request->step, .partition = label,
                   .detail = at + " with id " + id + ", but that id was answered queued to step " + q->request->step +
                             " for txn " + original.transaction_id + " in " +
                             partition_label(original.queue, original.partition) +
                             ", which is no original of this key that committed before the probe, inside the "
                             "window"});
        return;
      }
      // An id no client was answered: only a read of the key, or a commit no
      // client saw answered, can vouch for it.
      if (unseen || was_read({id, {item.queue, item.partition, item.transaction_id}})) return;
      sink_.add(Rule::client_visible_duplicate_id_unknown,
                {.step = d.request->step, .partition = label,
                 .detail = at + " with id " + id + ", which no producer was answered queued and no read shows"});
      return;
    }
    // The zero id: an original must exist whose segment may be unreadable.
    if (unseen || fetch_faults_.contains({item.queue, item.partition})) {
      if (unseen || has_original(d, false)) return;
    } else if (has_original(d, true)) {
      return;
    }
    const bool readable = has_original(d, false);
    sink_.add(Rule::client_visible_zero_id_unexplained,
              {.step = d.request->step, .partition = label,
               .expected = readable ? "duplicate with the original's id" : "queued",
               .actual = "duplicate with the zero id",
               .detail = at + " with the zero id (an original whose segment can no longer be read), but no original "
                              "of the key can explain it: " +
                         (readable ? "every possible original is still readable in the final read"
                                   : "the key was never answered queued nor read (a lost write)")});
  }

  // Whether a queued answer of the duplicate's key may be its original.
  bool has_original(const Answer& d, bool unreadable_only) const {
    for (const Answer& q : queued_by_key_[keys_.items(*d.request)[d.item]]) {
      const history::ItemRecord& original = q.request->items[q.item];
      if (!may_be_original(q, d)) continue;
      if (!unreadable_only || in_final_read(original.queue, original.partition, q.number) == nullptr) return true;
    }
    return false;
  }

  // `numbers`: of the read's ids, in message order.
  void check_read_twice(const history::FinalRead& read, std::span<const uint32_t> numbers) {
    // txn -> previous copy (offset order); views into the read, hashed: a
    // std::map of copied strings cost a node and a key copy per message.
    std::pmr::monotonic_buffer_resource arena;
    std::pmr::unordered_map<std::string_view, const history::ReadMessage*> last(&arena);
    last.reserve(read.messages.size());
    std::vector<const history::ReadMessage*> ordered;
    ordered.reserve(read.messages.size());
    for (const history::ReadMessage& m : read.messages) ordered.push_back(&m);
    std::sort(ordered.begin(), ordered.end(), [](auto* a, auto* b) { return a->offset < b->offset; });
    const std::string label = partition_label(read.queue, read.partition);
    for (const history::ReadMessage* m : ordered) {
      auto [it, first] = last.try_emplace(m->transaction_id, m);
      if (first) continue;
      const history::ReadMessage* earlier = it->second;
      it->second = m;
      const Answer* q1 = queued(numbers[static_cast<size_t>(earlier - read.messages.data())]);
      const Answer* q2 = queued(numbers[static_cast<size_t>(m - read.messages.data())]);
      if (!timed_ || q1 == nullptr || q2 == nullptr) continue;  // commit time unseen: not judged
      const int64_t from = q1->request->received_at_ms;
      const int64_t to = q2->request->answered_at_ms;
      const int64_t w_lo = window_bound(read.queue, from, to, true);
      if (w_lo == 0 || to - from > w_lo * 1000) continue;
      sink_.add(Rule::client_visible_readable_twice,
                {.step = q2->request->step, .partition = label,
                 .expected = "readable once",
                 .actual = "offsets " + std::to_string(earlier->offset) + " and " + std::to_string(m->offset),
                 .detail = "txn " + m->transaction_id + " is readable twice: offset " +
                           std::to_string(earlier->offset) + " (id " + earlier->message_id + ", step " +
                           q1->request->step + ") and offset " + std::to_string(m->offset) + " (id " +
                           m->message_id + ", step " + q2->request->step + "), committed at most " +
                           std::to_string(to - from) + " ms apart, inside the smallest window " +
                           std::to_string(w_lo) + " s in force between them"});
    }
  }

  void check_followers() {
    const StepIndex& steps = steps_;
    auto carries = [](const history::RequestRecord* r, const std::string& q, const std::string& p,
                      const std::string& txn) {
      return r != nullptr && std::any_of(r->items.begin(), r->items.end(), [&](const history::ItemRecord& i) {
               return i.queue == q && i.partition == p && i.transaction_id == txn;
             });
    };
    for (size_t e = 0; e < h_.events.size(); ++e) {
      const auto* push = std::get_if<history::PushEvent>(&h_.events[e]);
      if (push == nullptr || push->followers.empty()) continue;
      const std::string label = partition_label(push->queue, push->partition);
      for (const history::FollowerRecord& f : push->followers) {
        const std::string at = event_label(h_, steps, e, steps.step_of(f.request)) +
                               ": the layer-2 follower record (a request fused behind another's frame) of request " +
                               std::to_string(f.request) + " (txn " + f.transaction_id + ")";
        if (!carries(steps.find(f.request), push->queue, push->partition, f.transaction_id)) {
          sink_.add(Rule::client_visible_follower_record,
                    {.step = steps.step_of(f.request), .partition = label, .event = e,
                     .detail = at + " names no recorded delivery carrying that key"});
          continue;
        }
        const bool leader_known =
            f.frame < push->frames.size() &&
            carries(steps.find(push->frames[f.frame].origin_request), push->queue, push->partition, f.transaction_id);
        if (!leader_known) {
          sink_.add(Rule::client_visible_follower_record,
                    {.step = steps.step_of(f.request), .partition = label, .event = e,
                     .detail = at + " names frame " + std::to_string(f.frame) +
                               ", which no recorded delivery of that key produced"});
        }
      }
    }
  }

  const history::History& h_;
  const StepIndex& steps_;
  const KeyIds& keys_;
  const MessageIds& messages_;
  FailureSink& sink_;
  const bool timed_;
  // Every id answered queued with its first answer, in the requests' order.
  std::vector<Answer> queued_;
  std::vector<uint32_t> first_queued_;  // by id number: index into queued_ + 1; 0 when never answered queued
  std::pmr::monotonic_buffer_resource arena_;  // for the indexes below: freed at once
  // queued_ by the answer's key id: the candidates for a duplicate's original.
  std::pmr::vector<std::pmr::vector<Answer>> queued_by_key_{&arena_};
  std::vector<Answer> duplicates_;
  std::vector<bool> unseen_;  // by key id: a delivery of the key committed what no client saw answered
  std::map<std::string, std::vector<std::pair<int64_t, int64_t>>> windows_;  // queue -> (now, window) in order
  std::map<PartitionKey, std::vector<Pass>> passes_;
  std::map<PartitionKey, std::vector<int64_t>> deletes_;
  std::set<PartitionKey> fetch_faults_;
  // Per partition, the resolved acks in history order: instant and key id.
  static constexpr uint32_t kUnknownKey = std::numeric_limits<uint32_t>::max();
  std::map<PartitionKey, std::vector<std::pair<int64_t, uint32_t>>> acks_;
  std::pmr::unordered_set<ReadKey, ReadKeyHash> read_ids_{&arena_};  // every id read, with its partition and key
  bool read_ids_indexed_ = false;
};

class ClientVisible final : public PassChecker {
 public:
  explicit ClientVisible(const HistoryIndex& index) : PassChecker("client-visible", {}), index_(index) {}
  void finish(const PassState& /*state*/) override {
    if (index_.history().recorded_final_reads) {
      ClientView(index_.history(), index_.steps(), index_.keys(), index_.messages(), sink_).run();
    }
  }

 private:
  const HistoryIndex& index_;
};

}  // namespace

std::unique_ptr<PassChecker> make_client_visible(const HistoryIndex& index) {
  return std::make_unique<ClientVisible>(index);
}

std::vector<Failure> check_client_visible(const history::History& history) {
  return check_alone(make_client_visible, history);
}

}  // namespace qdt::properties
