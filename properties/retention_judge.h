#pragma once
// What a retention pass or a purge step had to do, by the model (docs/semantics.md §2.8),
// against what storage recorded. Shared by retention-model (which reports
// each difference) and model-agreement (which reports that they differ).
// Spans are compared exactly (base and end offset).
#include <cstdint>
#include <string>
#include <vector>

#include "model/model.h"
#include "properties/history.h"

namespace qdt::properties {

struct RetentionJudgement {
  std::vector<history::SidecarRowRecord> early;  // deleted, but the model keeps them at that instant
  std::vector<model::Segment> left_behind;       // due by the model, not deleted
  bool agrees() const { return early.empty() && left_behind.empty(); }
};

// `partition` may be nullptr (the model holds nothing there).
RetentionJudgement judge_retention(const model::Partition* partition, const model::QueueOptions& options,
                                   const history::RetentionEvent& event);

struct PurgeJudgement {
  std::vector<history::SidecarRowRecord> extra;  // removed, but not among the model's rows of this step
  std::vector<model::Segment> missing;           // the model's rows of this step that stayed
  bool over_batch = false;                       // more than `batch` rows in one step
  bool more_wrong = false;                       // `more` != (rows == batch)
  bool agrees() const { return extra.empty() && missing.empty() && !over_batch && !more_wrong; }
};

// `floor_seconds` is the model's floor for the queue, not the event's.
PurgeJudgement judge_purge(const model::Partition* partition, int64_t floor_seconds, const history::PurgeEvent& event);

// "[0, 1] created at 1000000 ms, ..."
std::string show_spans(const std::vector<history::SidecarRowRecord>& spans);
std::string show_spans(const std::vector<model::Segment>& segments);

}  // namespace qdt::properties
