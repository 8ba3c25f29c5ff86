#include "properties/model_follower.h"

#include <cassert>
#include <variant>

namespace qdt::properties {

const model::Partition* ModelFollower::find(const std::string& queue, const std::string& partition) const {
  auto it = partitions_.find(PartitionView{queue, partition});
  return it == partitions_.end() ? nullptr : it->second;
}

model::QueueOptions ModelFollower::options(const std::string& queue) const {
  auto it = options_.find(queue);
  return it == options_.end() ? model::QueueOptions{} : it->second;  // model::Model's default for a queue never configured
}

model::Partition& ModelFollower::partition(const std::string& queue, const std::string& partition) {
  auto [it, fresh] = partitions_.try_emplace(PartitionView{queue, partition}, nullptr);
  // std::map nodes stay put: the pointer holds while the model lives.
  if (fresh) it->second = &model_.partition(queue, partition);
  return *it->second;
}

const std::vector<model::Frame>& ModelFollower::frames(const history::PushEvent& push) const {
  // A push is asked for before it is applied, then applied: copied once.
  if (frames_of_ == &push) return frames_;
  frames_of_ = &push;
  frames_.resize(push.frames.size());
  for (size_t i = 0; i < push.frames.size(); ++i) {
    frames_[i].message_id.assign(push.frames[i].message_id);
    frames_[i].transaction_id.assign(push.frames[i].transaction_id);
  }
  return frames_;
}

void ModelFollower::apply(const history::Event& event) {
  if (const auto* push = std::get_if<history::PushEvent>(&event)) {
    if (push->failed || !push->queued || push->frames.empty()) return;
    partition(push->queue, push->partition).push(frames(*push), push->now_ms, 0);  // window 0: written as storage did
  } else if (const auto* configure = std::get_if<history::ConfigureEvent>(&event)) {
    // A negative option is model-agreement's finding; the model keeps the old options.
    if (configure->window_seconds < 0 || configure->retention_seconds < 0 || configure->completed_retention_seconds < 0) {
      return;
    }
    model_.configure(configure->queue, model::QueueOptions{configure->window_seconds, configure->retention_seconds,
                                                           configure->completed_retention_seconds});
    options_[configure->queue] = model_.options(configure->queue);
  } else if (const auto* del = std::get_if<history::DeleteSegmentEvent>(&event)) {
    if (del->base_offset <= del->end_offset) {
      partition(del->queue, del->partition).delete_segment(del->base_offset, del->end_offset);
    }
  } else if (const auto* retention = std::get_if<history::RetentionEvent>(&event)) {
    if (retention->failed) return;
    model::Partition& p = partition(retention->queue, retention->partition);
    for (const history::SidecarRowRecord& span : retention->deleted) {
      if (span.base_offset <= span.end_offset) p.delete_segment(span.base_offset, span.end_offset);
    }
  } else if (const auto* purge = std::get_if<history::PurgeEvent>(&event)) {
    if (purge->failed) return;
    model::Partition& p = partition(purge->queue, purge->partition);
    for (const history::SidecarRowRecord& row : purge->rows) {
      if (row.base_offset <= row.end_offset) p.purge_rows(row.base_offset, row.end_offset);
    }
  } else if (const auto* ack = std::get_if<history::AckEvent>(&event)) {
    // The model commits by its own resolution of the key, not storage's
    // answer; an answer storage could not give (failed, unreadable) changed
    // nothing, and ack-resolution reports the unreadable one.
    if (ack->failed || !ack->answer_problem.empty()) return;
    partition(ack->queue, ack->partition).record_ack(ack->consumer_group, ack->transaction_id);
  }
  // Fetches and reads change nothing.
}

}  // namespace qdt::properties
