#include "properties/history_builder_test.h"

#include <algorithm>
#include <cassert>
#include <deque>
#include <tuple>

namespace qdt::properties::testing {

HistoryBuilder::HistoryBuilder() {
  history_.recorded_outcomes = true;
  history_.recorded_final_reads = true;
  history_.recorded_request_times = true;
}

HistoryBuilder& HistoryBuilder::advance_ms(int64_t ms) {
  assert(ms >= 0);
  now_ms_ += ms;
  return *this;
}

HistoryBuilder& HistoryBuilder::configure(const std::string& queue, int64_t window_seconds,
                                          int64_t completed_retention_seconds, int64_t retention_seconds) {
  model_.configure(queue, model::QueueOptions{window_seconds, retention_seconds, completed_retention_seconds});
  history_.events.emplace_back(
      history::ConfigureEvent{queue, now_ms_, window_seconds, retention_seconds, completed_retention_seconds});
  return *this;
}

HistoryBuilder& HistoryBuilder::power_loss_off() {
  assert(history_.storage_crashes.empty() && "recovered is recorded as changes to a previous crash's view");
  history::StorageCrash crash;
  crash.event_index = history_.events.size();
  crash.at_ms = now_ms_;
  crash.synchronous = "off";
  crash.integrity = "ok";
  history_.storage_crashes.push_back(crash);
  model_ = model::Model{};
  refresh_final_reads();
  return *this;
}

HistoryBuilder& HistoryBuilder::fail(Txn kind, int count) {
  assert(count >= 0);
  fail_pending_[kind] += count;
  return *this;
}

bool HistoryBuilder::take_failure(Txn kind) {
  int& pending = fail_pending_[kind];
  if (pending == 0) return false;
  --pending;
  return true;
}

// What the recorder reads under the writer's lock, from the model's rows.
history::PartitionFingerprint HistoryBuilder::fingerprint(const PartitionKey& key) {
  const model::Partition& p = model_.partition(key.first, key.second);
  history::PartitionFingerprint f;
  f.last_offset = p.last_offset();
  f.txns_start = p.txns_start();
  // Counters that move with every segment or sidecar row written: the
  // database's row counts do (the recorder counts writes; only differences
  // between before and after mean anything).
  for (const auto& [other_key, other] : model_.partitions()) {
    for (const model::Segment& s : other.segments()) {
      f.segments += s.present ? 1 : 0;
      f.sidecar_rows += s.sidecar_present ? 1 : 0;
    }
  }
  return f;
}

void HistoryBuilder::push_partition(const PartitionKey& key, std::vector<Pending*>& group, uint32_t broker,
                                    std::vector<history::FollowerRecord> followers) {
  std::vector<Pending*> remaining = group;
  model::Partition& partition = model_.partition(key.first, key.second);
  while (!remaining.empty()) {
    history::PushEvent ev;
    ev.broker = broker;
    ev.queue = key.first;
    ev.partition = key.second;
    for (const Pending* p : remaining) ev.frames.push_back(p->frame);
    ev.followers = std::move(followers);  // round 0 only
    followers.clear();
    ev.now_ms = now_ms_;
    ev.last_offset_before = partition.last_offset();
    ev.rows_before = fingerprint(key);
    if (take_failure(Txn::push)) {
      ev.failed = true;
      ev.fault = history::FaultRecord{2, 10};  // SQLITE_IOERR on the probe
      ev.last_offset_after = ev.last_offset_before;
      ev.rows_after = ev.rows_before;
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
    ev.probe_ran = ev.window_seconds > 0 && ev.last_offset_before > std::max<int64_t>(-1, partition.txns_start() - 1);
    ev.rows_scanned = ev.probe_ran ? 1 : 0;
    const model::PushAnswer answer = partition.push(frames, now_ms_, ev.window_seconds);
    ev.queued = answer.queued;
    ev.base_offset = answer.base_offset;
    ev.duplicates = answer.duplicates;
    ev.last_offset_after = partition.last_offset();
    ev.rows_after = fingerprint(key);
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
      history::FetchEvent fetch{broker, key.first, key.second, offset, false, false, history::kZeroUuid, ""};
      std::string id = partition.resolve_id(offset);
      if (take_failure(Txn::fetch)) {
        fetch.failed = true;
        id = model::kZeroId;
      } else if (id != model::kZeroId) {
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
  return push_attempts({Attempt{step, items, push_id, 0}}, broker);
}

HistoryBuilder& HistoryBuilder::fuse(const std::vector<FusedRequest>& requests, uint32_t broker) {
  std::vector<Attempt> attempts;
  for (const FusedRequest& r : requests) {
    if (r.redelivery && !attempts.empty()) {
      attempts.push_back(attempts.back());
      continue;
    }
    const uint64_t push_id = ++pushes_;
    push_items_[push_id] = r.items;
    attempts.push_back(Attempt{r.step, r.items, push_id, 0});
  }
  return push_attempts(attempts, broker);
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
  return push_attempts({Attempt{step, push_items_.at(push_id), push_id, attempt}}, broker);
}

HistoryBuilder& HistoryBuilder::redeliver(const std::string& step, uint32_t broker) {
  const history::RequestRecord& last = latest(step);
  const uint64_t push_id = last.push_id;
  const uint32_t attempt = last.attempt;
  return push_attempts({Attempt{step, push_items_.at(push_id), push_id, attempt}}, broker);
}

HistoryBuilder& HistoryBuilder::push_lost(const std::string& step, const std::vector<Item>& items) {
  history::RequestRecord record;
  record.request = ++requests_;
  record.step = step;
  record.producer = "producer";
  record.push_id = ++pushes_;
  record.delivered = false;
  record.response_received = false;
  record.received_at_ms = now_ms_;
  record.answered_at_ms = now_ms_;
  push_items_[record.push_id] = items;
  history_.requests.push_back(std::move(record));
  refresh_outcome(history_.requests.back().push_id);
  return *this;
}

HistoryBuilder& HistoryBuilder::lose_response() {
  assert(!history_.requests.empty());
  history_.requests.back().response_received = false;
  refresh_outcome(history_.requests.back().push_id);
  return *this;
}

HistoryBuilder& HistoryBuilder::push_attempts(const std::vector<Attempt>& attempts, uint32_t broker) {
  using Key = std::tuple<std::string, std::string, std::string>;
  std::deque<Pending> frames;  // stable addresses
  std::vector<uint64_t> request_ids;
  std::vector<std::vector<Pending*>> frame_of_item(attempts.size());
  std::vector<std::vector<bool>> item_leads(attempts.size());
  std::vector<PartitionKey> order;
  std::map<PartitionKey, std::vector<Pending*>> groups;
  std::map<PartitionKey, std::vector<history::FollowerRecord>> followers;
  std::map<Key, Pending*> segment_leader;  // layer 2: across the fused requests
  for (size_t a = 0; a < attempts.size(); ++a) {
    const uint64_t request = ++requests_;
    request_ids.push_back(request);
    std::map<Key, Pending*> in_request;  // layer 1
    for (const Item& item : attempts[a].items) {
      const Key key{item.queue, item.partition, item.transaction_id};
      const PartitionKey pk{item.queue, item.partition};
      if (auto it = in_request.find(key); it != in_request.end()) {
        frame_of_item[a].push_back(it->second);
        item_leads[a].push_back(false);
        continue;
      }
      if (auto it = segment_leader.find(key); it != segment_leader.end()) {
        const std::vector<Pending*>& g = groups[pk];
        const auto index = static_cast<uint32_t>(std::find(g.begin(), g.end(), it->second) - g.begin());
        followers[pk].push_back(history::FollowerRecord{request, item.transaction_id, index});
        in_request[key] = it->second;
        frame_of_item[a].push_back(it->second);
        item_leads[a].push_back(false);
        continue;
      }
      frames.push_back(Pending{{next_id(), item.transaction_id, request}, "", ""});
      Pending* p = &frames.back();
      in_request[key] = p;
      segment_leader[key] = p;
      if (!groups.contains(pk)) order.push_back(pk);
      groups[pk].push_back(p);
      frame_of_item[a].push_back(p);
      item_leads[a].push_back(true);
    }
  }
  for (const PartitionKey& key : order) push_partition(key, groups[key], broker, followers[key]);

  for (size_t a = 0; a < attempts.size(); ++a) {
    history::RequestRecord record;
    record.request = request_ids[a];
    record.step = attempts[a].step;
    record.broker = broker;
    record.producer = "producer";
    record.push_id = attempts[a].push_id;
    record.attempt = attempts[a].attempt;
    record.received_at_ms = now_ms_;
    record.answered_at_ms = now_ms_;
    for (size_t i = 0; i < attempts[a].items.size(); ++i) {
      const Item& item = attempts[a].items[i];
      const Pending& f = *frame_of_item[a][i];
      record.items.push_back({item.queue, item.partition, item.transaction_id});
      const std::string status = item_leads[a][i] || f.status == "error" ? f.status : "duplicate";
      record.responses.push_back({status, f.message_id, item.transaction_id, item.queue});
    }
    history_.requests.push_back(std::move(record));
    refresh_outcome(attempts[a].push_id);
  }
  refresh_final_reads();
  return *this;
}

HistoryBuilder& HistoryBuilder::push(const std::string& step, const std::string& queue, const std::string& partition,
                                     const std::vector<std::string>& transaction_ids, uint32_t broker) {
  std::vector<Item> items;
  for (const std::string& t : transaction_ids) items.push_back({queue, partition, t});
  return push(step, items, broker);
}

HistoryBuilder& HistoryBuilder::push_unprobed(const std::string& step, const std::string& queue,
                                              const std::string& partition,
                                              const std::vector<std::string>& transaction_ids) {
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
  ev.rows_before = fingerprint(key);
  std::vector<model::Frame> frames;
  history::RequestRecord record;
  record.request = request;
  record.step = step;
  record.producer = "producer";
  record.push_id = ++pushes_;
  record.received_at_ms = now_ms_;
  record.answered_at_ms = now_ms_;
  for (const std::string& t : transaction_ids) {
    ev.frames.push_back({next_id(), t, request});
    frames.push_back({ev.frames.back().message_id, t});
    record.items.push_back({queue, partition, t});
    record.responses.push_back({"queued", ev.frames.back().message_id, t, queue});
    push_items_[record.push_id].push_back({queue, partition, t});
  }
  const model::PushAnswer answer = p.push(frames, now_ms_, 0);  // no probe: always written
  ev.queued = true;
  ev.base_offset = answer.base_offset;
  ev.last_offset_after = p.last_offset();
  ev.rows_after = fingerprint(key);
  history_.events.emplace_back(std::move(ev));
  history_.requests.push_back(std::move(record));
  refresh_outcome(history_.requests.back().push_id);
  refresh_final_reads();
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

std::set<Rule>& found() {
  static std::set<Rule> rules;
  return rules;
}

bool has_rule(const std::vector<Failure>& failures, Rule rule) {
  const bool has = std::any_of(failures.begin(), failures.end(), [&](const Failure& f) { return f.rule == rule; });
  if (has) found().insert(rule);
  return has;
}

const std::set<Rule>& rules_found() { return found(); }

std::string show(const std::vector<Failure>& failures) {
  std::string out;
  for (const Failure& f : failures) {
    out += "[" + (f.rule ? std::string(rule_id(*f.rule)) : f.property) + "] step=" + f.step +
           " partition=" + f.partition + ": " + f.detail + "\n";
  }
  return out.empty() ? "(no failures)" : out;
}

bool detail_has(const std::vector<Failure>& failures, const std::string& text) {
  return std::any_of(failures.begin(), failures.end(),
                     [&](const Failure& f) { return f.detail.find(text) != std::string::npos; });
}

}  // namespace qdt::properties::testing
