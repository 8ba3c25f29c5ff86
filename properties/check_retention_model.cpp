// retention-model (docs/semantics.md §5, 2.8): segments are deleted, and sidecar rows
// purged, exactly when the model's retention rules say, in steps of at most
// `purge_batch` rows; nothing is deleted early, nothing due is left behind.
//
// The model decides (model::Partition::retention_due / purge_due) from the
// queue options in force, each segment's created_at and the acks that
// resolved an offset; storage's RetentionEvents and PurgeEvents are only
// compared with that decision. After each comparison the model follows
// storage (ModelFollower), so one wrong pass is reported once.
// - a retention pass deletes exactly the model's due set at its now_ms;
// - a purge step removes exactly the first `batch` rows older than the
//   model's floor in offset order, never more than `batch`, reports
//   `more == (rows == batch)`, and leaves txns_start at the first offset
//   still in the sidecar;
// - a failed pass or step deletes nothing.
#include <string>
#include <variant>

#include "properties/checks.h"
#include "properties/event_pass.h"
#include "properties/failure_sink.h"
#include "properties/model_follower.h"
#include "properties/retention_judge.h"

namespace qdt::properties {
namespace {

std::string options_text(const model::QueueOptions& o) {
  return "retentionSeconds " + std::to_string(o.retention_seconds) + ", completedRetentionSeconds " +
         std::to_string(o.completed_retention_seconds);
}

// Why the model keeps a span storage deleted.
std::string why_kept(const model::Partition* partition, const model::QueueOptions& o, int64_t now_ms,
                     const history::SidecarRowRecord& span) {
  if (partition == nullptr || span.base_offset < 0 || span.end_offset > partition->last_offset()) {
    return "the model never stored it";
  }
  for (const model::Segment& s : partition->segments()) {
    if (s.base_offset != span.base_offset) continue;
    if (!s.present) return "it was already deleted";
    if (s.end_offset != span.end_offset)
      return "the segment there spans [" + std::to_string(s.base_offset) + ", " + std::to_string(s.end_offset) + "]";
    const int64_t age_ms = now_ms - s.created_at_ms;
    std::string out = "the model keeps it, created at " + std::to_string(s.created_at_ms) + " ms and " +
                      std::to_string(age_ms) + " ms old, under " + options_text(o);
    if (o.completed_retention_seconds > 0 && !partition->completed(s)) {
      out += "; not at or below every consumer group's committed offset";
    }
    return out;
  }
  return "no segment starts at offset " + std::to_string(span.base_offset);
}

void check_pass(const history::RetentionEvent& pass, size_t e, const ModelFollower& follower, FailureSink& sink) {
  const model::Partition* partition = follower.find(pass.queue, pass.partition);
  const model::QueueOptions options = follower.model().options(pass.queue);
  const RetentionJudgement j = judge_retention(partition, options, pass);
  const std::string label = partition_label(pass.queue, pass.partition);
  const std::string at = "retention " + event_label(e, "", pass.now_ms);
  auto segment = [](int64_t base, int64_t end) {
    return "segment [" + std::to_string(base) + ", " + std::to_string(end) + "]";
  };
  auto add = [&](Rule rule, const std::string& what, bool kept, std::string detail) {
    sink.add(rule, {.partition = label,
                    .event = e,
                    .expected = what + (kept ? " kept" : " deleted"),
                    .actual = kept ? "deleted" : "kept",
                    .detail = std::move(detail)});
  };
  for (const history::SidecarRowRecord& span : j.early) {
    const std::string what = segment(span.base_offset, span.end_offset);
    add(Rule::retention_model_deleted_early, what, true,
        at + (pass.failed ? " failed but" : "") + " deleted " + what + " early: " +
            (pass.failed ? "a failed pass deletes nothing" : why_kept(partition, options, pass.now_ms, span)));
  }
  for (const model::Segment& s : j.left_behind) {
    const std::string what = segment(s.base_offset, s.end_offset);
    add(Rule::retention_model_left_behind, what, false,
        at + " left " + what + " created at " + std::to_string(s.created_at_ms) + " ms behind; it is due (" +
            options_text(options) + (partition->completed(s) ? ", below every group's committed offset" : "") + ")");
  }
}

void check_step(const history::PurgeEvent& purge, size_t e, const ModelFollower& follower, FailureSink& sink) {
  const int64_t floor = follower.model().sidecar_floor_seconds(purge.queue);
  const PurgeJudgement j = judge_purge(follower.find(purge.queue, purge.partition), floor, purge);
  const std::string label = partition_label(purge.queue, purge.partition);
  const std::string at = "purge " + event_label(e, "", purge.now_ms) +
                         ", which may remove sidecar rows older than the floor of " + std::to_string(floor) +
                         " s, at most a batch of " + std::to_string(purge.batch) + ",";
  if (!j.extra.empty()) {
    sink.add(Rule::retention_model_purge_removed_kept_rows,
             {.partition = label,
              .event = e,
              .expected = "kept",
              .actual = "removed " + show_spans(j.extra),
              .detail = at +
                        (purge.failed ? " failed but removed rows " : " removed rows the model keeps in this step: ") +
                        show_spans(j.extra)});
  }
  if (!j.missing.empty()) {
    sink.add(Rule::retention_model_purge_left_rows,
             {.partition = label,
              .event = e,
              .expected = "removed " + show_spans(j.missing),
              .actual = "kept",
              .detail = at + " left rows the model removes in this step: " + show_spans(j.missing)});
  }
  if (j.over_batch) {
    sink.add(Rule::retention_model_purge_over_batch,
             {.partition = label,
              .event = e,
              .expected = "at most " + std::to_string(purge.batch) + " rows",
              .actual = std::to_string(purge.rows.size()) + " rows",
              .detail = at + " removed " + std::to_string(purge.rows.size()) + " rows, more than its batch"});
  }
  if (j.more_wrong && !purge.failed) {
    sink.add(Rule::retention_model_purge_more_flag,
             {.partition = label,
              .event = e,
              .expected = purge.more ? "more=false" : "more=true",
              .actual = purge.more ? "more=true" : "more=false",
              .detail = at + " removed " + std::to_string(purge.rows.size()) + " rows and reported more=" +
                        (purge.more ? "true" : "false") +
                        ", but more says whether a full batch was removed (another step is due)"});
  }
}

class RetentionModel final : public PassChecker {
 public:
  explicit RetentionModel(const HistoryIndex& /*index*/) : PassChecker("retention-model", {.model = true}) {}

  void before(size_t e, const history::Event& event, const PassState& state) override {
    if (const auto* pass = std::get_if<history::RetentionEvent>(&event)) check_pass(*pass, e, state.model, sink_);
    if (const auto* purge = std::get_if<history::PurgeEvent>(&event)) check_step(*purge, e, state.model, sink_);
  }

  void after(size_t e, const history::Event& event, const PassState& state) override {
    const auto* purge = std::get_if<history::PurgeEvent>(&event);
    if (!purge || purge->failed) return;
    const model::Partition* p = state.model.find(purge->queue, purge->partition);
    const int64_t want = p ? p->txns_start() : 0;
    if (purge->txns_start_after != want) {
      sink_.add(Rule::retention_model_txns_start,
                {.partition = partition_label(purge->queue, purge->partition),
                 .event = e,
                 .expected = "txns_start " + std::to_string(want),
                 .actual = "txns_start " + std::to_string(purge->txns_start_after),
                 .detail = "purge " + event_label(e, "", purge->now_ms) + " left txns_start at " +
                           std::to_string(purge->txns_start_after) + ", the first offset still in the sidecar is " +
                           std::to_string(want)});
    }
  }
};

}  // namespace

std::unique_ptr<PassChecker> make_retention_model(const HistoryIndex& index) {
  return std::make_unique<RetentionModel>(index);
}

std::vector<Failure> check_retention_model(const history::History& history) {
  return check_alone(make_retention_model, history);
}

}  // namespace qdt::properties
