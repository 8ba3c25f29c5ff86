// model-agreement (docs/semantics.md §5): every verdict and id equals the model's, the model
// being fed the same commit order and storage times.
//
// Storage level: each event is replayed through model::Model and storage's
// answer compared with the model's: push verdicts, fetched ids, the segments
// each retention pass deleted and the rows each purge step removed (decided
// by the model's retention rules, never adopted from storage), ack and read
// answers. Failed events are not answers and are not compared. When they
// disagree the model follows storage (properties/model_follower.h), so one
// divergence is reported once instead of poisoning every later comparison.
// Response level: every item of every answered request must say what its
// frame's final verdict implies (properties/verdicts.h).
#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <variant>

#include "model/model.h"
#include "properties/checks.h"
#include "properties/event_pass.h"
#include "properties/failure_sink.h"
#include "properties/model_answers.h"
#include "properties/model_follower.h"
#include "properties/retention_judge.h"
#include "properties/step_index.h"
#include "properties/verdicts.h"

namespace qdt::properties {
namespace {

using Duplicates = std::vector<std::pair<uint32_t, int64_t>>;

std::string describe(bool queued, int64_t base, const Duplicates& d) { return describe_push_answer(queued, base, d); }

class ModelAgreement final : public PassChecker {
 public:
  explicit ModelAgreement(const HistoryIndex& index)
      : PassChecker("model-agreement", {.model = true}), h_(index.history()), index_(index), steps_(index.steps()) {}

  // Judged before the model applies the event: the model follows storage.
  void before(size_t e, const history::Event& event, const PassState& state) override {
    follower_ = &state.model;
    if (const auto* push = std::get_if<history::PushEvent>(&event)) {
      on_push(*push, e);
    } else if (const auto* fetch = std::get_if<history::FetchEvent>(&event)) {
      on_fetch(*fetch, e);
    } else if (const auto* configure = std::get_if<history::ConfigureEvent>(&event)) {
      if (configure->window_seconds < 0 || configure->retention_seconds < 0 ||
          configure->completed_retention_seconds < 0) {
        sink_.add(Rule::model_agreement_negative_option,
                  {.event = e,
                   .expected = "0 s or more",
                   .actual = "window " + std::to_string(configure->window_seconds) + " s, retention " +
                             std::to_string(configure->retention_seconds) + " s, completed retention " +
                             std::to_string(configure->completed_retention_seconds) + " s",
                   .detail = "configure " + cite(e) + " set a negative option on queue " + configure->queue +
                             ": a window or retention is zero or more seconds"});
      }
    } else if (const auto* retention = std::get_if<history::RetentionEvent>(&event)) {
      on_retention(*retention, e);
    } else if (const auto* purge = std::get_if<history::PurgeEvent>(&event)) {
      on_purge(*purge, e);
    } else if (const auto* ack = std::get_if<history::AckEvent>(&event)) {
      on_ack(*ack, e);
    } else if (const auto* read = std::get_if<history::ReadEvent>(&event)) {
      on_read(*read, e);
    }
    // Deletions by the delete_segment fault are an input, not a verdict.
  }

  void finish(const PassState& /*state*/) override { check_responses(); }

 private:
  void on_push(const history::PushEvent& push, size_t e) {
    if (push.failed || push.frames.empty()) return;  // committed nothing
    // Built only for a failure: most pushes have none.
    auto label = [&] { return partition_label(push.queue, push.partition); };
    const std::string& step = steps_.step_of(push, 0);
    const int64_t window = follower_->options(push.queue).window_seconds;
    if (push.window_seconds != window) {
      sink_.add(Rule::model_agreement_probe_window,
                {.step = step,
                 .partition = label(),
                 .event = e,
                 .expected = std::to_string(window) + " s window",
                 .actual = std::to_string(push.window_seconds) + " s window",
                 .detail = cite(e, step) + ": storage probed with a " + std::to_string(push.window_seconds) +
                           " s window, but the queue's window is " + std::to_string(window) + " s"});
    }
    const model::PushAnswer want = model_probe(*follower_, push);
    Duplicates got = push.duplicates;
    std::sort(got.begin(), got.end());
    if (want.queued != push.queued || (want.queued && want.base_offset != push.base_offset)) {
      const Rule rule = !want.queued  ? Rule::model_agreement_duplicate_answered_queued
                        : !push.queued ? Rule::model_agreement_queued_answered_duplicate
                                       : Rule::model_agreement_queued_at_wrong_offset;
      std::string expected = describe(want.queued, want.base_offset, want.duplicates);
      std::string actual = describe(push.queued, push.base_offset, got);
      std::string detail = cite(e, step) + ": model answers " + expected + ", storage answered " + actual;
      sink_.add(rule, {.step = step,
                       .partition = label(),
                       .event = e,
                       .expected = std::move(expected),
                       .actual = std::move(actual),
                       .detail = std::move(detail)});
    } else if (!want.queued && want.duplicates != got) {
      for (const auto& [index, offset] : want.duplicates) {
        // A copy: clang 14 (the fuzzing build) cannot capture a structured binding.
        auto it = std::find_if(got.begin(), got.end(), [&, i = index](const auto& d) { return d.first == i; });
        if (it != got.end() && it->second == offset) continue;
        const std::string& frame_step = steps_.step_of(push, index);
        sink_.add(Rule::model_agreement_duplicate_of_wrong_offset,
                  {.step = frame_step,
                   .partition = label(),
                   .event = e,
                   .expected = "frame " + std::to_string(index) + " repeats offset " + std::to_string(offset),
                   .actual = describe(false, -1, got),
                   .detail = cite(e, frame_step) + ": for the model frame " + std::to_string(index) + " (txn " +
                             push.frames[index].transaction_id + ") repeats offset " + std::to_string(offset) +
                             ", storage answered " + describe(false, -1, got)});
      }
      for (const auto& [index, offset] : got) {
        if (std::none_of(want.duplicates.begin(), want.duplicates.end(),
                         [&, i = index](const auto& d) { return d.first == i; })) {
          const std::string& frame_step = steps_.step_of(push, index);
          sink_.add(Rule::model_agreement_duplicate_without_original,
                    {.step = frame_step,
                     .partition = label(),
                     .event = e,
                     .expected = "frame " + std::to_string(index) + " not a repeat",
                     .actual = "frame " + std::to_string(index) + " repeats offset " + std::to_string(offset),
                     .detail = cite(e, frame_step) + ": storage answered frame " + std::to_string(index) +
                               " as a repeat of offset " + std::to_string(offset) +
                               ", but the model finds no original of its key (stored, in the window, its sidecar "
                               "row present)"});
        }
      }
    }
    if (!push.queued) {
      for (const auto& [index, offset] : push.duplicates) {
        pending_step_[{push.broker, push.queue, push.partition, offset}] = steps_.step_of(push, index);
      }
    }
  }

  void on_fetch(const history::FetchEvent& fetch, size_t e) {
    const model::Partition* partition = follower_->find(fetch.queue, fetch.partition);
    // A fetch that failed cannot read the segment: the id degrades to zero (docs/semantics.md §2.6).
    const std::string want = partition && !fetch.failed ? partition->resolve_id(fetch.offset) : model::kZeroId;
    std::string step;
    if (auto it = pending_step_.find({fetch.broker, fetch.queue, fetch.partition, fetch.offset});
        it != pending_step_.end()) {
      step = it->second;
    }
    auto add = [&](Rule rule, std::string expected, std::string actual, const std::string& what) {
      sink_.add(rule, {.step = step,
                       .partition = partition_label(fetch.queue, fetch.partition),
                       .event = e,
                       .expected = std::move(expected),
                       .actual = std::move(actual),
                       .detail = "fetch " + cite(e, step) + " of offset " + std::to_string(fetch.offset) + what});
    };
    if (fetch.message_id != want) {
      add(Rule::model_agreement_fetch_wrong_id, "id " + want, "id " + fetch.message_id,
          " returned id " + fetch.message_id + ", but the model's id for it is " + want +
              (want == model::kZeroId ? " (the zero id: the segment is gone or the fetch failed)" : ""));
    } else if (fetch.failed && fetch.found) {
      add(Rule::model_agreement_fetch_failed_but_found, "not found", "found",
          " failed, yet it reports the frame found");
    } else if (fetch.found && want != model::kZeroId &&
               fetch.transaction_id != partition->messages()[static_cast<size_t>(fetch.offset)].transaction_id) {
      const std::string& held = partition->messages()[static_cast<size_t>(fetch.offset)].transaction_id;
      add(Rule::model_agreement_fetch_wrong_key, "txn " + held, "txn " + fetch.transaction_id,
          " returned txn " + fetch.transaction_id + ", but the model holds txn " + held + " there");
    }
  }

  void on_retention(const history::RetentionEvent& retention, size_t e) {
    const RetentionJudgement j = judge_retention(follower_->find(retention.queue, retention.partition),
                                                 follower_->model().options(retention.queue), retention);
    if (j.agrees()) return;
    sink_.add(Rule::model_agreement_retention_deleted,
              {.partition = partition_label(retention.queue, retention.partition),
               .event = e,
               .detail = "retention " + cite(e) + " deleted segments the model keeps: " + show_spans(j.early) +
                         "; and left segments the model deletes: " + show_spans(j.left_behind)});
  }

  void on_purge(const history::PurgeEvent& purge, size_t e) {
    const std::string label = partition_label(purge.queue, purge.partition);
    const int64_t floor = follower_->model().sidecar_floor_seconds(purge.queue);
    if (purge.floor_seconds != floor && !purge.failed) {
      sink_.add(Rule::model_agreement_purge_floor,
                {.partition = label,
                 .event = e,
                 .expected = "floor " + std::to_string(floor) + " s",
                 .actual = "floor " + std::to_string(purge.floor_seconds) + " s",
                 .detail = "purge " + cite(e) + " used a floor of " + std::to_string(purge.floor_seconds) +
                           " s (it purges only sidecar rows older than that), but the model's floor is " +
                           std::to_string(floor) + " s"});
    }
    const PurgeJudgement j = judge_purge(follower_->find(purge.queue, purge.partition), floor, purge);
    if (j.extra.empty() && j.missing.empty()) return;  // batch and `more` are retention-model's
    sink_.add(Rule::model_agreement_purge_rows,
              {.partition = label,
               .event = e,
               .detail = "purge " + cite(e) + " removed sidecar rows the model keeps: " + show_spans(j.extra) +
                         "; kept rows the model removes: " + show_spans(j.missing) +
                         " (the model purges only rows created before " +
                         std::to_string(purge.now_ms - floor * 1000) + " ms)"});
  }

  void on_ack(const history::AckEvent& ack, size_t e) {
    if (ack.failed) return;  // changes nothing; the step answers error
    const model::Partition* partition = follower_->find(ack.queue, ack.partition);
    const model::AckAnswer want = partition ? partition->ack(ack.transaction_id) : model::AckAnswer{};
    if (want.acked == ack.acked && (!want.acked || (want.offset == ack.offset && want.message_id == ack.message_id))) {
      return;
    }
    auto show = [](bool acked, int64_t offset, const std::string& id) {
      return acked ? "acked offset " + std::to_string(offset) + " id " + id
                   : std::string("unresolvable (no sidecar row holds the key)");
    };
    sink_.add(Rule::model_agreement_ack_answer,
              {.step = ack.step,
               .partition = partition_label(ack.queue, ack.partition),
               .event = e,
               .expected = show(want.acked, want.offset, want.message_id),
               .actual = show(ack.acked, ack.offset, ack.message_id),
               .detail = "ack " + cite(e, ack.step) + " of txn " + ack.transaction_id + ": model answers " +
                         show(want.acked, want.offset, want.message_id) + ", storage answered " +
                         show(ack.acked, ack.offset, ack.message_id)});
  }

  void on_read(const history::ReadEvent& read, size_t e) {
    if (read.failed) return;  // the step answers error
    const model::Partition* partition = follower_->find(read.queue, read.partition);
    const std::vector<model::Message> want =
        partition ? partition->read(read.from, read.limit) : std::vector<model::Message>{};
    const std::string label = partition_label(read.queue, read.partition);
    if (want.size() != read.messages.size()) {
      sink_.add(Rule::model_agreement_read_answer,
                {.step = read.step,
                 .partition = label,
                 .event = e,
                 .expected = std::to_string(want.size()) + " messages",
                 .actual = std::to_string(read.messages.size()) + " messages",
                 .detail = "read " + cite(e, read.step) + " from offset " + std::to_string(read.from) +
                           ": model returns " + std::to_string(want.size()) + " messages, storage returned " +
                           std::to_string(read.messages.size())});
      return;
    }
    for (size_t i = 0; i < want.size(); ++i) {
      const history::ReadMessage& got = read.messages[i];
      if (got.offset != want[i].offset || got.message_id != want[i].message_id ||
          got.transaction_id != want[i].transaction_id) {
        std::string expected = "offset " + std::to_string(want[i].offset) + " id " + want[i].message_id + " txn " +
                               want[i].transaction_id;
        std::string actual =
            "offset " + std::to_string(got.offset) + " id " + got.message_id + " txn " + got.transaction_id;
        std::string detail = "read " + cite(e, read.step) + " message " + std::to_string(i) + ": model returns " +
                             expected + ", storage returned " + actual;
        sink_.add(Rule::model_agreement_read_answer, {.step = read.step,
                                                      .partition = label,
                                                      .event = e,
                                                      .expected = std::move(expected),
                                                      .actual = std::move(actual),
                                                      .detail = std::move(detail)});
        return;
      }
    }
  }

  bool all_accepted(const Verdicts& verdicts, const history::RequestRecord& r) const {
    const std::span<const size_t> leaders = index_.leaders(r);
    for (size_t i = 0; i < r.items.size(); ++i) {
      if (r.responses[i].transaction_id != r.items[i].transaction_id) return false;
      if (!verdicts.accepts(r, i, leaders[i], r.responses[i])) return false;
    }
    return true;
  }

  void check_responses() {
    const Verdicts& verdicts = index_.verdicts();
    for (const history::RequestRecord& r : h_.requests) {
      if (r.rejected || !r.delivered || r.lost_in_crash) continue;  // no answer to judge (liveness covers them)
      if (r.responses.size() != r.items.size()) {
        sink_.add(Rule::model_agreement_response_shape,
                  {.step = r.step,
                   .expected = std::to_string(r.items.size()) + " answers",
                   .actual = std::to_string(r.responses.size()) + " answers",
                   .detail = "request " + std::to_string(r.request) + " sent " + std::to_string(r.items.size()) +
                             " items but its response has " + std::to_string(r.responses.size()) +
                             " entries: one answer per item"});
        continue;
      }
      if (all_accepted(verdicts, r)) continue;  // the common case, without building every expectation's text
      for (const ItemAnswer& a : item_answers(verdicts, r)) {
        const std::string label = partition_label(a.queue, a.partition);
        if (a.transaction_mismatch) {
          sink_.add(Rule::model_agreement_answer_wrong_key,
                    {.step = r.step,
                     .partition = label,
                     .expected = "txn " + a.transaction_id,
                     .actual = "txn " + a.got.transaction_id,
                     .detail = "item " + std::to_string(a.item) + " sent txn " + a.transaction_id +
                               ", but its answer names txn " + a.got.transaction_id});
        } else if (!a.agrees()) {
          sink_.add(Rule::model_agreement_item_answer,
                    {.step = r.step,
                     .partition = label,
                     .expected = a.want.allowed(),
                     .actual = a.got.status + " " + a.got.message_id,
                     .detail = "item " + std::to_string(a.item) + " (txn " + a.transaction_id + ") was answered " +
                               a.got.status + " " + a.got.message_id + ", but the model allows " + a.want.allowed() +
                               ": " + a.want.because});
        }
      }
    }
  }

  std::string cite(size_t e, const std::string& own_step = "") const { return event_label(h_, steps_, e, own_step); }

  const history::History& h_;
  const HistoryIndex& index_;
  const StepIndex& steps_;
  const ModelFollower* follower_ = nullptr;  // the pass's, set per event
  // The step whose duplicate a later fetch of (broker, queue, partition, offset) resolves.
  std::map<std::tuple<uint32_t, std::string, std::string, int64_t>, std::string> pending_step_;
};

}  // namespace

std::unique_ptr<PassChecker> make_model_agreement(const HistoryIndex& index) {
  return std::make_unique<ModelAgreement>(index);
}

std::vector<Failure> check_model_agreement(const history::History& history) {
  return check_alone(make_model_agreement, history);
}

}  // namespace qdt::properties
