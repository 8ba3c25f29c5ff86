#include "properties/history_builder_test.h"

#include <algorithm>
#include <cassert>
#include <tuple>

namespace qdt::properties::testing {

HistoryBuilder& HistoryBuilder::advance_ms(int64_t ms) {
  assert(ms >= 0);
  now_ms_ += ms;
  return *this;
}

HistoryBuilder& HistoryBuilder::configure(const std::string& queue, int64_t window_seconds,
                                          int64_t completed_retention_seconds) {
  model_.configure(queue, model::QueueOptions{window_seconds, 0, completed_retention_seconds});
  history_.events.emplace_back(history::ConfigureEvent{queue, now_ms_, window_seconds, 0, completed_retention_seconds});
  return *this;
}

int64_t HistoryBuilder::txns_start(const PartitionKey& key) const {
  auto it = segments_.find(key);
  if (it == segments_.end()) return 0;
  for (const Segment& s : it->second) {
    if (s.sidecar_present) return s.base_offset;
  }
  return it->second.empty() ? 0 : it->second.back().end_offset + 1;
}

void HistoryBuilder::push_partition(const PartitionKey& key, std::vector<Pending*>& group, uint32_t broker) {
  std::vector<Pending*> remaining = group;
  model::Partition& partition = model_.partition(key.first, key.second);
  while (!remaining.empty()) {
    history::PushEvent ev;
    ev.broker = broker;
    ev.queue = key.first;
    ev.partition = key.second;
    for (const Pending* p : remaining) ev.frames.push_back(p->frame);
    ev.now_ms = now_ms_;
    ev.last_offset_before = partition.last_offset();
    ev.changes_before = changes_;
    if (fail_pending_ > 0) {
      --fail_pending_;
      ev.failed = true;
      ev.last_offset_after = ev.last_offset_before;
      ev.changes_after = changes_;
      history_.events.emplace_back(std::move(ev));
      for (Pending* p : remaining) {
        p->status = "error";
        p->message_id = history::kZeroUuid;
      }
      return;
    }
    std::vector<model::Frame> frames;
    for (const Pending* p : remaining) frames.push_back({p->frame.message_id, p->frame.transaction_id});
    ev.window_seconds = model_.options(key.first).window_seconds;
    ev.probe_ran = ev.window_seconds > 0 && ev.last_offset_before > std::max<int64_t>(-1, txns_start(key) - 1);
    ev.rows_scanned = ev.probe_ran ? 1 : 0;
    const model::PushAnswer answer = partition.push(frames, now_ms_, ev.window_seconds);
    ev.queued = answer.queued;
    ev.base_offset = answer.base_offset;
    ev.duplicates = answer.duplicates;
    if (answer.queued) {
      changes_ += 3;  // the offset bump, the segment and the sidecar row
      segments_[key].push_back(Segment{answer.base_offset, partition.last_offset(), now_ms_});
    }
    ev.last_offset_after = partition.last_offset();
    ev.changes_after = changes_;
    history_.events.emplace_back(std::move(ev));
    if (answer.queued) {
      for (Pending* p : remaining) {
        p->status = "queued";
        p->message_id = p->frame.message_id;
      }
      return;
    }
    std::vector<bool> settled(remaining.size(), false);
    for (const auto& [index, offset] : answer.duplicates) {
      settled[index] = true;
      history::FetchEvent fetch{broker, key.first, key.second, offset, false, history::kZeroUuid, ""};
      const std::string id = partition.resolve_id(offset);
      if (id != model::kZeroId) {
        fetch.found = true;
        fetch.message_id = id;
        fetch.transaction_id = partition.messages()[static_cast<size_t>(offset)].transaction_id;
      }
      history_.events.emplace_back(std::move(fetch));
      remaining[index]->status = "duplicate";
      remaining[index]->message_id = id;
    }
    std::vector<Pending*> survivors;
    for (size_t i = 0; i < remaining.size(); ++i) {
      if (!settled[i]) survivors.push_back(remaining[i]);
    }
    remaining = std::move(survivors);
  }
}

HistoryBuilder& HistoryBuilder::push(const std::string& step, const std::vector<Item>& items, uint32_t broker) {
  const uint64_t push_id = ++pushes_;
  push_items_[push_id] = items;
  return push_attempt(step, items, broker, push_id, 0);
}

const history::RequestRecord& HistoryBuilder::latest(const std::string& step) const {
  for (auto it = history_.requests.rbegin(); it != history_.requests.rend(); ++it) {
    if (it->step == step) return *it;
  }
  throw std::out_of_range("no request for step " + step);
}

HistoryBuilder& HistoryBuilder::retry(const std::string& step, uint32_t broker) {
  const history::RequestRecord& last = latest(step);
  const uint64_t push_id = last.push_id;
  const uint32_t attempt = last.attempt + 1;
  return push_attempt(step, push_items_.at(push_id), broker, push_id, attempt);
}

HistoryBuilder& HistoryBuilder::redeliver(const std::string& step, uint32_t broker) {
  const history::RequestRecord& last = latest(step);
  const uint64_t push_id = last.push_id;
  const uint32_t attempt = last.attempt;
  return push_attempt(step, push_items_.at(push_id), broker, push_id, attempt);
}

HistoryBuilder& HistoryBuilder::push_lost(const std::string& step, const std::vector<Item>& items) {
  history::RequestRecord record;
  record.request = ++requests_;
  record.step = step;
  record.producer = "producer";
  record.push_id = ++pushes_;
  record.delivered = false;
  record.response_received = false;
  push_items_[record.push_id] = items;
  history_.requests.push_back(std::move(record));
  return *this;
}

HistoryBuilder& HistoryBuilder::lose_response() {
  assert(!history_.requests.empty());
  history_.requests.back().response_received = false;
  return *this;
}

HistoryBuilder& HistoryBuilder::push_attempt(const std::string& step, const std::vector<Item>& items, uint32_t broker,
                                             uint64_t push_id, uint32_t attempt) {
  const uint64_t request = ++requests_;
  std::vector<Pending> frames;
  frames.reserve(items.size());
  std::vector<size_t> frame_of_item;
  std::map<std::tuple<std::string, std::string, std::string>, size_t> leader_frame;
  for (const Item& item : items) {
    auto [it, first] = leader_frame.try_emplace({item.queue, item.partition, item.transaction_id}, frames.size());
    if (first) frames.push_back(Pending{{next_id(), item.transaction_id, request}, "", ""});
    frame_of_item.push_back(it->second);
  }
  std::vector<PartitionKey> order;
  std::map<PartitionKey, std::vector<Pending*>> groups;
  for (size_t f = 0; f < frames.size(); ++f) {
    const Item& item = items[static_cast<size_t>(std::find(frame_of_item.begin(), frame_of_item.end(), f) -
                                                 frame_of_item.begin())];
    PartitionKey key{item.queue, item.partition};
    if (!groups.contains(key)) order.push_back(key);
    groups[key].push_back(&frames[f]);
  }
  for (const PartitionKey& key : order) push_partition(key, groups[key], broker);

  history::RequestRecord record;
  record.request = request;
  record.step = step;
  record.broker = broker;
  record.producer = "producer";
  record.push_id = push_id;
  record.attempt = attempt;
  for (size_t i = 0; i < items.size(); ++i) {
    const Pending& f = frames[frame_of_item[i]];
    const bool leads = std::find(frame_of_item.begin(), frame_of_item.end(), frame_of_item[i]) ==
                       frame_of_item.begin() + static_cast<std::ptrdiff_t>(i);
    record.items.push_back({items[i].queue, items[i].partition, items[i].transaction_id});
    const std::string status = leads || f.status == "error" ? f.status : "duplicate";
    record.responses.push_back({status, f.message_id, items[i].transaction_id, items[i].queue});
  }
  history_.requests.push_back(std::move(record));
  return *this;
}

HistoryBuilder& HistoryBuilder::push(const std::string& step, const std::string& queue, const std::string& partition,
                              const std::vector<std::string>& transaction_ids, uint32_t broker) {
  std::vector<Item> items;
  for (const std::string& t : transaction_ids) items.push_back({queue, partition, t});
  return push(step, items, broker);
}

HistoryBuilder& HistoryBuilder::push_unprobed(const std::string& step, const std::string& queue,
                                       const std::string& partition, const std::vector<std::string>& transaction_ids) {
  const uint64_t request = ++requests_;
  const PartitionKey key{queue, partition};
  model::Partition& p = model_.partition(queue, partition);
  history::PushEvent ev;
  ev.queue = queue;
  ev.partition = partition;
  ev.now_ms = now_ms_;
  ev.window_seconds = model_.options(queue).window_seconds;
  ev.probe_ran = ev.window_seconds > 0 && p.last_offset() >= 0;
  ev.last_offset_before = p.last_offset();
  ev.changes_before = changes_;
  std::vector<model::Frame> frames;
  history::RequestRecord record;
  record.request = request;
  record.step = step;
  record.producer = "producer";
  record.push_id = ++pushes_;
  for (const std::string& t : transaction_ids) {
    ev.frames.push_back({next_id(), t, request});
    frames.push_back({ev.frames.back().message_id, t});
    record.items.push_back({queue, partition, t});
    record.responses.push_back({"queued", ev.frames.back().message_id, t, queue});
    push_items_[record.push_id].push_back({queue, partition, t});
  }
  const model::PushAnswer answer = p.push(frames, now_ms_, 0);  // no probe: always written
  changes_ += 3;
  segments_[key].push_back(Segment{answer.base_offset, p.last_offset(), now_ms_});
  ev.queued = true;
  ev.base_offset = answer.base_offset;
  ev.last_offset_after = p.last_offset();
  ev.changes_after = changes_;
  history_.events.emplace_back(std::move(ev));
  history_.requests.push_back(std::move(record));
  return *this;
}

HistoryBuilder& HistoryBuilder::fail_pushes(int count) {
  assert(count >= 0);
  fail_pending_ += count;
  return *this;
}

HistoryBuilder& HistoryBuilder::delete_segment(const std::string& queue, const std::string& partition, int64_t offset) {
  for (Segment& s : segments_[{queue, partition}]) {
    if (s.present && s.base_offset <= offset && offset <= s.end_offset) {
      s.present = false;
      model_.partition(queue, partition).delete_segment(s.base_offset, s.end_offset);
      history_.events.emplace_back(
          history::DeleteSegmentEvent{queue, partition, now_ms_, s.base_offset, s.end_offset, true});
      break;
    }
  }
  return *this;
}

HistoryBuilder& HistoryBuilder::purge(const std::string& queue, const std::string& partition) {
  const PartitionKey key{queue, partition};
  history::PurgeEvent ev;
  ev.queue = queue;
  ev.partition = partition;
  ev.now_ms = now_ms_;
  ev.floor_seconds = model_.sidecar_floor_seconds(queue);
  const int64_t cutoff_ms = now_ms_ - ev.floor_seconds * 1000;
  for (Segment& s : segments_[key]) {
    if (s.sidecar_present && s.created_at_ms < cutoff_ms) {
      s.sidecar_present = false;
      model_.partition(queue, partition).purge_rows(s.base_offset, s.end_offset);
      ev.rows.push_back({s.base_offset, s.end_offset, s.created_at_ms});
    }
  }
  ev.txns_start_after = txns_start(key);
  history_.events.emplace_back(std::move(ev));
  return *this;
}

HistoryBuilder& HistoryBuilder::ack(const std::string& step, const std::string& queue, const std::string& partition,
                                    const std::string& transaction_id) {
  const model::AckAnswer a = model_.partition(queue, partition).ack(transaction_id);
  history_.events.emplace_back(history::AckEvent{step, queue, partition, transaction_id, "group", now_ms_, a.acked,
                                                 a.offset, a.acked ? a.message_id : ""});
  return *this;
}

HistoryBuilder& HistoryBuilder::read(const std::string& step, const std::string& queue, const std::string& partition,
                                     int64_t from, int64_t limit) {
  history::ReadEvent ev{step, queue, partition, from, limit, {}};
  for (const model::Message& m : model_.partition(queue, partition).read(from, limit)) {
    ev.messages.push_back({m.offset, m.message_id, m.transaction_id});
  }
  history_.events.emplace_back(std::move(ev));
  return *this;
}

history::PushEvent& nth_duplicate_push(history::History& h, size_t n) {
  for (history::Event& e : h.events) {
    if (auto* p = std::get_if<history::PushEvent>(&e); p && !p->failed && !p->queued) {
      if (n-- == 0) return *p;
    }
  }
  throw std::out_of_range("no such duplicate push");
}

history::RequestRecord& request(history::History& h, const std::string& step) {
  for (history::RequestRecord& r : h.requests) {
    if (r.step == step) return r;
  }
  throw std::out_of_range("no request for step " + step);
}

bool has_failure(const std::vector<Failure>& failures, const std::string& property, const std::string& step,
                 const std::string& partition) {
  return std::any_of(failures.begin(), failures.end(), [&](const Failure& f) {
    return f.property == property && f.step == step && f.partition == partition;
  });
}

std::string show(const std::vector<Failure>& failures) {
  std::string out;
  for (const Failure& f : failures) {
    out += "[" + f.property + "] step=" + f.step + " partition=" + f.partition + ": " + f.detail + "\n";
  }
  return out.empty() ? "(no failures)" : out;
}

}  // namespace qdt::properties::testing
