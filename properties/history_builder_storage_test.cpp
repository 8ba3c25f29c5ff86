// The HistoryBuilder's steps that are not pushes (faults, retention passes,
// purge steps, acks, reads) and what the recorder keeps current after every
// call (producers' outcomes, the final read of every partition). The push
// path is history_builder_test.cpp.
#include <algorithm>
#include <cassert>

#include "properties/history_builder_test.h"

namespace qdt::properties::testing {

HistoryBuilder& HistoryBuilder::delete_segment(const std::string& queue, const std::string& partition, int64_t offset) {
  model::Partition& p = model_.partition(queue, partition);
  for (const model::Segment& s : p.segments()) {
    if (s.present && s.base_offset <= offset && offset <= s.end_offset) {
      history_.events.emplace_back(
          history::DeleteSegmentEvent{queue, partition, now_ms_, s.base_offset, s.end_offset, true});
      p.delete_segment(s.base_offset, s.end_offset);
      break;
    }
  }
  refresh_final_reads();
  return *this;
}

HistoryBuilder& HistoryBuilder::retention(const std::string& queue) {
  std::vector<std::string> partitions;
  for (const auto& [key, partition] : model_.partitions()) {
    if (key.first == queue) partitions.push_back(key.second);
  }
  for (const std::string& name : partitions) {
    model::Partition& p = model_.partition(queue, name);
    history::RetentionEvent ev;
    ev.queue = queue;
    ev.partition = name;
    ev.now_ms = now_ms_;
    if (take_failure(Txn::retention)) {
      ev.failed = true;
      ev.fault = history::FaultRecord{1, 13};  // SQLITE_FULL on the first delete
    } else {
      for (const model::Segment& s : p.retention_due(now_ms_, model_.options(queue))) {
        ev.deleted.push_back({s.base_offset, s.end_offset, s.created_at_ms});
        p.delete_segment(s.base_offset, s.end_offset);
      }
    }
    history_.events.emplace_back(std::move(ev));
  }
  refresh_final_reads();
  return *this;
}

HistoryBuilder& HistoryBuilder::purge(const std::string& queue, const std::string& partition, int64_t batch) {
  assert(batch > 0);
  model::Partition& p = model_.partition(queue, partition);
  history::PurgeEvent ev;
  ev.queue = queue;
  ev.partition = partition;
  ev.now_ms = now_ms_;
  ev.floor_seconds = model_.sidecar_floor_seconds(queue);
  ev.batch = batch;
  if (take_failure(Txn::purge)) {
    ev.failed = true;
    ev.fault = history::FaultRecord{1, 10};
  } else {
    for (const model::Segment& s : p.purge_due(now_ms_, ev.floor_seconds, batch)) {
      ev.rows.push_back({s.base_offset, s.end_offset, s.created_at_ms});
      p.purge_rows(s.base_offset, s.end_offset);
    }
    ev.more = static_cast<int64_t>(ev.rows.size()) == batch;
  }
  ev.txns_start_after = p.txns_start();
  history_.events.emplace_back(std::move(ev));
  return *this;
}

HistoryBuilder& HistoryBuilder::ack(const std::string& step, const std::string& queue, const std::string& partition,
                                    const std::string& transaction_id, const std::string& group) {
  model::Partition& p = model_.partition(queue, partition);
  history::AckEvent ev;
  ev.step = step;
  ev.queue = queue;
  ev.partition = partition;
  ev.transaction_id = transaction_id;
  ev.consumer_group = group;
  ev.now_ms = now_ms_;
  if (take_failure(Txn::ack)) {
    ev.failed = true;
    ev.fault = history::FaultRecord{1, 10};
  } else {
    const model::AckAnswer a = p.ack(transaction_id);
    ev.acked = a.acked;
    ev.offset = a.offset;
    ev.message_id = a.acked ? a.message_id : "";
    if (a.acked) p.record_ack(group, transaction_id);
  }
  history_.events.emplace_back(std::move(ev));
  return *this;
}

HistoryBuilder& HistoryBuilder::read(const std::string& step, const std::string& queue, const std::string& partition,
                                     int64_t from, int64_t limit) {
  history::ReadEvent ev{step, queue, partition, from, limit, {}};
  if (take_failure(Txn::read)) {
    ev.failed = true;
  } else {
    for (const model::Message& m : model_.partition(queue, partition).read(from, limit)) {
      ev.messages.push_back({m.offset, m.message_id, m.transaction_id});
    }
  }
  history_.events.emplace_back(std::move(ev));
  return *this;
}

// What the producer reports: the last response it received, else timeouts.
void HistoryBuilder::refresh_outcome(uint64_t push_id) {
  auto [it, inserted] = outcome_index_.try_emplace(push_id, history_.outcomes.size());
  if (inserted) history_.outcomes.emplace_back();
  history::PushOutcomeRecord& o = history_.outcomes[it->second];
  o = history::PushOutcomeRecord{};
  o.push_id = push_id;
  const history::RequestRecord* last = nullptr;
  for (const history::RequestRecord& r : history_.requests) {
    if (r.push_id != push_id) continue;
    o.step = r.step;
    o.producer = r.producer;
    o.attempts = std::max(o.attempts, r.attempt + 1);
    if (r.delivered && r.response_received && !r.lost_in_crash) last = &r;
  }
  if (last != nullptr && last->rejected) {
    o.rejected = true;
    return;
  }
  if (last != nullptr) {
    for (const history::ResponseItem& item : last->responses) {
      o.statuses.push_back(item.status);
      o.message_ids.push_back(item.message_id);
    }
    return;
  }
  o.statuses.assign(push_items_[push_id].size(), "timeout");
  o.message_ids.assign(push_items_[push_id].size(), "");
}

void HistoryBuilder::refresh_final_reads() {
  history_.final_reads.clear();
  for (const auto& [key, partition] : model_.partitions()) {
    history::FinalRead read{key.first, key.second, {}};
    for (const model::Message& m : partition.read(0, 0)) read.messages.push_back({m.offset, m.message_id, m.transaction_id});
    history_.final_reads.push_back(std::move(read));
  }
}

}  // namespace qdt::properties::testing
