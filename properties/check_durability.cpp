// durability (docs/semantics.md §8, storage that loses power): after every crash_storage,
// every message storage had committed before the crash (a queued push that
// no retention pass or delete_segment removed before it) is still there with
// its id, and PRAGMA integrity_check says "ok".
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
#include <string>
#include <utility>
#include <variant>

#include "properties/checks.h"
#include "properties/event_pass.h"
#include "properties/failure_sink.h"
#include "properties/step_index.h"

namespace qdt::properties {
namespace {

using Key = std::pair<std::string, std::string>;

struct Committed {
  std::string message_id;
  std::string transaction_id;
  size_t event = 0;
};

void erase_span(std::map<int64_t, Committed>& offsets, int64_t base, int64_t end) {
  offsets.erase(offsets.lower_bound(base), offsets.upper_bound(end));
}

// Judged once the events are over, against the crashes recorded beside them.
class Durability final : public PassChecker {
 public:
  explicit Durability(const HistoryIndex& index) : PassChecker("durability", {}), index_(index) {}

  void finish(const PassState& /*state*/) override {
    const history::History& history = index_.history();
    const StepIndex& steps = index_.steps();
    std::map<Key, std::map<int64_t, Committed>> expected;
    size_t next_event = 0;
    for (size_t c = 0; c < history.storage_crashes.size(); ++c) {
      const history::StorageCrash& crash = history.storage_crashes[c];
      for (; next_event < crash.event_index && next_event < history.events.size(); ++next_event) {
        const history::Event& ev = history.events[next_event];
        if (const auto* push = std::get_if<history::PushEvent>(&ev)) {
          if (push->failed || !push->queued) continue;
          auto& offsets = expected[{push->queue, push->partition}];
          for (size_t i = 0; i < push->frames.size(); ++i) {
            offsets[push->base_offset + static_cast<int64_t>(i)] = {push->frames[i].message_id,
                                                                    push->frames[i].transaction_id, next_event};
          }
        } else if (const auto* del = std::get_if<history::DeleteSegmentEvent>(&ev)) {
          erase_span(expected[{del->queue, del->partition}], del->base_offset, del->end_offset);
        } else if (const auto* ret = std::get_if<history::RetentionEvent>(&ev)) {
          if (ret->failed) continue;
          for (const auto& span : ret->deleted)
            erase_span(expected[{ret->queue, ret->partition}], span.base_offset, span.end_offset);
        }
      }
      const std::string at = "storage crash " + std::to_string(c) + " (" + crash.synchronous + ", after event " +
                             std::to_string(crash.event_index) + "): ";
      if (crash.integrity != "ok") sink_.add("", "", at + "PRAGMA integrity_check after recovery: " + crash.integrity);
      std::map<Key, std::map<int64_t, const history::ReadMessage*>> recovered;
      for (const auto& read : crash.recovered) {
        for (const auto& m : read.messages) recovered[{read.queue, read.partition}][m.offset] = &m;
      }
      for (const auto& [key, offsets] : expected) {
        const auto& found = recovered[key];
        for (const auto& [offset, committed] : offsets) {
          const auto it = found.find(offset);
          const auto* push = std::get_if<history::PushEvent>(&history.events[committed.event]);
          const std::string step = push != nullptr ? steps.step_of(*push, 0) : std::string();
          if (it == found.end()) {
            sink_.add(step, partition_label(key.first, key.second),
                      at + "lost offset " + std::to_string(offset) + " (" + committed.transaction_id + ", id " +
                          committed.message_id + ", committed at event " + std::to_string(committed.event) + ")");
          } else if (it->second->message_id != committed.message_id) {
            sink_.add(step, partition_label(key.first, key.second),
                      at + "offset " + std::to_string(offset) + " holds " + it->second->message_id + " (" +
                          it->second->transaction_id + "), committed was " + committed.message_id + " (" +
                          committed.transaction_id + ", event " + std::to_string(committed.event) + ")");
          }
        }
      }
    }
  }

 private:
  const HistoryIndex& index_;
};

}  // namespace

std::unique_ptr<PassChecker> make_durability(const HistoryIndex& index) { return std::make_unique<Durability>(index); }

std::vector<Failure> check_durability(const history::History& history) { return check_alone(make_durability, history); }

}  // namespace qdt::properties
