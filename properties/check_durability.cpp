// durability (docs/semantics.md §8, storage that loses power): after every crash_storage,
// every message storage had committed before the crash (a queued push that
// no retention pass or delete_segment removed before it) is still there with
// its id, and PRAGMA integrity_check says "ok". Under synchronous off no
// commit was ever durable (properties/power_loss.h): such a crash expects
// nothing, and the commits before it are expected by no later crash.
//
// Why a property of its own rather than client-visible alone: client-visible
// judges the final read, so a lost message that retention later deletes, or
// whose offset a later push reuses, would go unseen; and a commit whose
// answer the producer never received (a response lost) is no client's
// `queued`, yet storage promised it. The expectation is built from the
// commit events alone (the model's order); what storage recovered is the
// observation judged, never adopted: a later crash still expects what an
// earlier one lost.
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <variant>

#include "properties/checks.h"
#include "properties/event_pass.h"
#include "properties/failure_sink.h"
#include "properties/power_loss.h"
#include "properties/recovered_view.h"
#include "properties/step_index.h"

namespace qdt::properties {
namespace {

using Key = RecoveredView::Key;

struct Committed {
  std::string message_id;
  std::string transaction_id;
  size_t event = 0;
};

// Judged once the events are over, against the crashes recorded beside them.
// The offsets where what storage recovered differs from what was committed
// are kept up to date as commits, deletions and recovered changes come, so
// that a crash costs what changed since the last one plus what it reports.
class Durability final : public PassChecker {
 public:
  explicit Durability(const HistoryIndex& index) : PassChecker("durability", {}), index_(index) {}

  void finish(const PassState& /*state*/) override {
    const history::History& history = index_.history();
    const StepIndex& steps = index_.steps();
    size_t next_event = 0;
    for (size_t c = 0; c < history.storage_crashes.size(); ++c) {
      const history::StorageCrash& crash = history.storage_crashes[c];
      for (; next_event < crash.event_index && next_event < history.events.size(); ++next_event) {
        const history::Event& ev = history.events[next_event];
        if (const auto* push = std::get_if<history::PushEvent>(&ev)) {
          if (push->failed || !push->queued) continue;
          const Key key{push->queue, push->partition};
          auto& offsets = expected_[key];
          for (size_t i = 0; i < push->frames.size(); ++i) {
            const int64_t offset = push->base_offset + static_cast<int64_t>(i);
            offsets[offset] = {push->frames[i].message_id, push->frames[i].transaction_id, next_event};
            judge(key, offset);
          }
        } else if (const auto* del = std::get_if<history::DeleteSegmentEvent>(&ev)) {
          erase_span({del->queue, del->partition}, del->base_offset, del->end_offset);
        } else if (const auto* ret = std::get_if<history::RetentionEvent>(&ev)) {
          if (ret->failed) continue;
          for (const auto& span : ret->deleted) {
            erase_span({ret->queue, ret->partition}, span.base_offset, span.end_offset);
          }
        }
      }
      if (loses_every_commit(crash)) {
        // Nothing was promised: synchronous off never made a commit durable.
        expected_.clear();
        wrong_.clear();
      }
      recovered_.apply(crash.recovered);
      for (const history::RecoveredChange& change : crash.recovered) {
        const Key key{change.queue, change.partition};
        for (const int64_t offset : change.removed) judge(key, offset);
        for (const history::ReadMessage& m : change.written) judge(key, m.offset);
      }
      const std::string at = "storage crash " + std::to_string(c) + " (synchronous " + crash.synchronous + ", at " +
                             std::to_string(crash.at_ms) + " ms, after " + std::to_string(crash.event_index) +
                             (crash.event_index == 1 ? " event" : " events") + "): ";
      if (loses_every_commit(crash)) {
        // Nothing synced, so nothing can come back: not even a commit.
        for (const auto& [key, messages] : recovered_.partitions()) {
          if (messages.empty()) continue;
          const history::ReadMessage& m = messages.begin()->second;
          sink_.add(Rule::durability_survived_sync_off,
                    {.partition = partition_label(key.first, key.second),
                     .expected = "nothing recovered",
                     .actual = std::to_string(messages.size()) + " message(s) recovered",
                     .detail = at + "recovered " + std::to_string(messages.size()) + " message(s) from offset " +
                               std::to_string(m.offset) + " (txn " + m.transaction_id +
                               "), but under synchronous off nothing is ever synced, so nothing can survive"});
        }
      }
      if (crash.integrity != "ok") {
        sink_.add(Rule::durability_integrity,
                  {.expected = "ok",
                   .actual = crash.integrity,
                   .detail = at + "the integrity check after recovery (PRAGMA integrity_check) said " +
                             crash.integrity + ", not ok"});
      }
      for (const auto& [key, offsets] : wrong_) {
        const RecoveredView::Messages* found = recovered_.find(key);
        const auto& committed_at = expected_.at(key);
        for (const int64_t offset : offsets) {
          const Committed& committed = committed_at.at(offset);
          const auto* push = std::get_if<history::PushEvent>(&history.events[committed.event]);
          const std::string step = push != nullptr ? steps.step_of(*push, 0) : std::string();
          const auto it = found != nullptr ? found->find(offset) : RecoveredView::Messages::const_iterator();
          if (found == nullptr || it == found->end()) {
            sink_.add(Rule::durability_lost_commit,
                      {.step = step,
                       .partition = partition_label(key.first, key.second),
                       .event = committed.event,
                       .expected = "offset " + std::to_string(offset) + " id " + committed.message_id,
                       .actual = "offset " + std::to_string(offset) + " missing",
                       .detail = at + "lost offset " + std::to_string(offset) + " (txn " + committed.transaction_id +
                                 ", id " + committed.message_id + "), which " +
                                 event_label(history, steps, committed.event, step) +
                                 " had committed before the crash"});
          } else {
            sink_.add(Rule::durability_changed_commit,
                      {.step = step,
                       .partition = partition_label(key.first, key.second),
                       .event = committed.event,
                       .expected = "offset " + std::to_string(offset) + " id " + committed.message_id,
                       .actual = "offset " + std::to_string(offset) + " id " + it->second.message_id,
                       .detail = at + "offset " + std::to_string(offset) + " holds id " + it->second.message_id +
                                 " (txn " + it->second.transaction_id + "), but " +
                                 event_label(history, steps, committed.event, step) + " had committed id " +
                                 committed.message_id + " (txn " + committed.transaction_id + ") there"});
          }
        }
      }
    }
  }

 private:
  // Whether `offset` of `key` is committed and recovered as something else
  // (or not at all), kept in wrong_.
  void judge(const Key& key, int64_t offset) {
    bool is_wrong = false;
    if (const auto e = expected_.find(key); e != expected_.end()) {
      if (const auto committed = e->second.find(offset); committed != e->second.end()) {
        const RecoveredView::Messages* found = recovered_.find(key);
        const auto it = found != nullptr ? found->find(offset) : RecoveredView::Messages::const_iterator();
        is_wrong = found == nullptr || it == found->end() || it->second.message_id != committed->second.message_id;
      }
    }
    if (is_wrong) {
      wrong_[key].insert(offset);
    } else if (const auto w = wrong_.find(key); w != wrong_.end()) {
      w->second.erase(offset);
      if (w->second.empty()) wrong_.erase(w);
    }
  }

  void erase_span(const Key& key, int64_t base, int64_t end) {
    if (const auto e = expected_.find(key); e != expected_.end()) {
      e->second.erase(e->second.lower_bound(base), e->second.upper_bound(end));
    }
    if (const auto w = wrong_.find(key); w != wrong_.end()) {
      w->second.erase(w->second.lower_bound(base), w->second.upper_bound(end));
      if (w->second.empty()) wrong_.erase(w);
    }
  }

  const HistoryIndex& index_;
  std::map<Key, std::map<int64_t, Committed>> expected_;  // committed and not deleted, by partition and offset
  RecoveredView recovered_;                               // what the latest crash recovered
  std::map<Key, std::set<int64_t>> wrong_;                // expected_ offsets recovered_ lacks or holds otherwise
};

}  // namespace

std::unique_ptr<PassChecker> make_durability(const HistoryIndex& index) { return std::make_unique<Durability>(index); }

std::vector<Failure> check_durability(const history::History& history) { return check_alone(make_durability, history); }

}  // namespace qdt::properties
