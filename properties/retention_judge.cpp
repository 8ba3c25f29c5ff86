#include "properties/retention_judge.h"

#include <algorithm>
#include <cassert>

namespace qdt::properties {
namespace {

bool same_span(const history::SidecarRowRecord& r, const model::Segment& s) {
  return r.base_offset == s.base_offset && r.end_offset == s.end_offset;
}

// Storage's spans not in the model's list, and the model's not in storage's.
void diff(const std::vector<history::SidecarRowRecord>& got, const std::vector<model::Segment>& want,
          std::vector<history::SidecarRowRecord>& only_got, std::vector<model::Segment>& only_want) {
  for (const history::SidecarRowRecord& r : got) {
    if (std::none_of(want.begin(), want.end(), [&](const model::Segment& s) { return same_span(r, s); })) {
      only_got.push_back(r);
    }
  }
  for (const model::Segment& s : want) {
    if (std::none_of(got.begin(), got.end(), [&](const history::SidecarRowRecord& r) { return same_span(r, s); })) {
      only_want.push_back(s);
    }
  }
}

}  // namespace

RetentionJudgement judge_retention(const model::Partition* partition, const model::QueueOptions& options,
                                   const history::RetentionEvent& event) {
  RetentionJudgement j;
  if (event.failed) {
    // A failed pass commits nothing: any recorded deletion is early.
    j.early = event.deleted;
    return j;
  }
  const std::vector<model::Segment> due =
      partition ? partition->retention_due(event.now_ms, options) : std::vector<model::Segment>{};
  diff(event.deleted, due, j.early, j.left_behind);
  return j;
}

PurgeJudgement judge_purge(const model::Partition* partition, int64_t floor_seconds, const history::PurgeEvent& event) {
  assert(floor_seconds >= model::kSidecarFloorSeconds);
  PurgeJudgement j;
  if (event.failed) {
    j.extra = event.rows;
    return j;
  }
  const int64_t batch = std::max<int64_t>(event.batch, 1);  // a step removes at most `batch` >= 1 rows
  const auto rows = static_cast<int64_t>(event.rows.size());
  j.over_batch = event.batch <= 0 || rows > event.batch;
  j.more_wrong = event.more != (rows == event.batch);
  const std::vector<model::Segment> due =
      partition ? partition->purge_due(event.now_ms, floor_seconds, batch) : std::vector<model::Segment>{};
  diff(event.rows, due, j.extra, j.missing);
  return j;
}

std::string show_spans(const std::vector<history::SidecarRowRecord>& spans) {
  std::string out;
  for (const history::SidecarRowRecord& r : spans) {
    out += (out.empty() ? "" : ", ") + ("[" + std::to_string(r.base_offset) + ", " + std::to_string(r.end_offset) +
                                        "] created at " + std::to_string(r.created_at_ms) + " ms");
  }
  return out.empty() ? "none" : out;
}

std::string show_spans(const std::vector<model::Segment>& segments) {
  std::string out;
  for (const model::Segment& s : segments) {
    out += (out.empty() ? "" : ", ") + ("[" + std::to_string(s.base_offset) + ", " + std::to_string(s.end_offset) +
                                        "] created at " + std::to_string(s.created_at_ms) + " ms");
  }
  return out.empty() ? "none" : out;
}

}  // namespace qdt::properties
