#include "model/model.h"

#include <algorithm>
#include <cassert>
#include <string_view>
#include <tuple>

#include "model/text_hash.h"

namespace qdt::model {

const std::vector<int64_t>* Partition::offsets_of(const std::string& transaction_id) const {
  const std::optional<uint32_t> key =
      key_numbers_.find(text_hash(transaction_id), [&](uint32_t k) { return holds(k, transaction_id); });
  return key ? &offsets_by_key_[*key] : nullptr;
}

void Partition::add_offset(int64_t offset) {
  assert(offset >= 0 && static_cast<size_t>(offset) < messages_.size());
  const std::string& txn = messages_[static_cast<size_t>(offset)].transaction_id;
  const auto [key, fresh] = key_numbers_.insert(text_hash(txn), [&](uint32_t k) { return holds(k, txn); });
  if (fresh) {
    offsets_by_key_.push_back({offset});
  } else {
    offsets_by_key_[key].push_back(offset);  // offsets grow: still ascending
  }
  assert(offsets_by_key_.size() == key_numbers_.size());
}

PushAnswer Partition::probe(const std::vector<Frame>& frames, int64_t now_ms, int64_t window_seconds) const {
  assert(!frames.empty());
  assert(window_seconds >= 0);
  PushAnswer answer;
  answer.probe_runs = window_seconds > 0;
  if (answer.probe_runs) {
    const int64_t oldest_ms = now_ms - window_seconds * 1000;  // inclusive (docs/semantics.md §2.7)
    for (size_t i = 0; i < frames.size(); ++i) {
      const std::vector<int64_t>* offsets = offsets_of(frames[i].transaction_id);
      if (offsets == nullptr) continue;
      // Ascending offsets: the first live, in-window one is the smallest.
      for (int64_t offset : *offsets) {
        const Message& m = messages_[static_cast<size_t>(offset)];
        if (m.sidecar_present && m.created_at_ms >= oldest_ms) {
          answer.duplicates.emplace_back(static_cast<uint32_t>(i), offset);
          break;
        }
      }
    }
  }
  answer.queued = answer.duplicates.empty();
  if (answer.queued) answer.base_offset = last_offset() + 1;
  return answer;
}

PushAnswer Partition::push(const std::vector<Frame>& frames, int64_t now_ms, int64_t window_seconds) {
  const PushAnswer answer = probe(frames, now_ms, window_seconds);
  if (!answer.queued) return answer;  // a duplicate writes nothing
  for (const Frame& f : frames) {
    Message m;
    m.offset = static_cast<int64_t>(messages_.size());
    m.message_id = f.message_id;
    m.transaction_id = f.transaction_id;
    m.created_at_ms = now_ms;
    const int64_t offset = m.offset;
    messages_.push_back(std::move(m));
    add_offset(offset);
  }
  segments_.push_back(Segment{answer.base_offset, last_offset(), now_ms});
  assert(last_offset() == answer.base_offset + static_cast<int64_t>(frames.size()) - 1);
  return answer;
}

std::string Partition::resolve_id(int64_t offset) const {
  if (offset < 0 || offset > last_offset()) return kZeroId;
  const Message& m = messages_[static_cast<size_t>(offset)];
  return m.segment_present ? m.message_id : kZeroId;
}

void Partition::delete_segment(int64_t base_offset, int64_t end_offset) {
  assert(base_offset <= end_offset);
  const int64_t first = std::max<int64_t>(base_offset, 0);
  const int64_t last = std::min(end_offset, last_offset());
  for (int64_t o = first; o <= last; ++o) messages_[static_cast<size_t>(o)].segment_present = false;
  for (Segment& s : segments_) {
    if (s.base_offset >= base_offset && s.end_offset <= end_offset) s.present = false;
  }
}

std::vector<Segment> Partition::retention_due(int64_t now_ms, const QueueOptions& options) const {
  assert(options.retention_seconds >= 0 && options.completed_retention_seconds >= 0);
  std::vector<Segment> due;
  for (const Segment& s : segments_) {
    if (!s.present) continue;
    const bool expired = options.retention_seconds > 0 && s.created_at_ms < now_ms - options.retention_seconds * 1000;
    const bool done = options.completed_retention_seconds > 0 &&
                      s.created_at_ms < now_ms - options.completed_retention_seconds * 1000 && completed(s);
    if (expired || done) due.push_back(s);
  }
  return due;
}

std::vector<Segment> Partition::purge_due(int64_t now_ms, int64_t floor_seconds, int64_t batch) const {
  assert(floor_seconds >= kSidecarFloorSeconds);
  assert(batch > 0);
  const int64_t cutoff_ms = now_ms - floor_seconds * 1000;  // strictly older rows go
  std::vector<Segment> due;
  for (const Segment& s : segments_) {
    if (static_cast<int64_t>(due.size()) >= batch) break;
    if (s.sidecar_present && s.created_at_ms < cutoff_ms) due.push_back(s);
  }
  return due;
}

void Partition::record_ack(const std::string& group, const std::string& transaction_id) {
  const std::vector<int64_t>* offsets = offsets_of(transaction_id);
  if (offsets == nullptr) return;
  const auto [it, fresh] = committed_.try_emplace(group, -1);
  bool held = false;
  for (int64_t offset : *offsets) {  // ascending
    if (!messages_[static_cast<size_t>(offset)].sidecar_present) continue;
    held = true;
    if (offset > it->second) {
      it->second = offset;
      return;
    }
  }
  // An ack that resolves nothing leaves no committed offset behind.
  if (!held && fresh) committed_.erase(it);
}

int64_t Partition::committed(const std::string& group) const {
  const auto it = committed_.find(group);
  return it == committed_.end() ? -1 : it->second;
}

bool Partition::completed(const Segment& segment) const {
  if (committed_.empty()) return false;
  for (const auto& [group, offset] : committed_) {
    if (segment.end_offset > offset) return false;
  }
  return true;
}

int64_t Partition::txns_start() const {
  for (const Segment& s : segments_) {
    if (s.sidecar_present) return s.base_offset;
  }
  return last_offset() + 1;
}

size_t Partition::purge(int64_t now_ms, int64_t floor_seconds) {
  assert(floor_seconds >= 0);
  const int64_t cutoff_ms = now_ms - floor_seconds * 1000;  // strictly older rows go
  size_t purged = 0;
  for (Message& m : messages_) {
    if (m.sidecar_present && m.created_at_ms < cutoff_ms) {
      m.sidecar_present = false;
      ++purged;
    }
  }
  for (Segment& s : segments_) s.sidecar_present = s.sidecar_present && s.created_at_ms >= cutoff_ms;
  return purged;
}

size_t Partition::purge_rows(int64_t base_offset, int64_t end_offset) {
  assert(base_offset <= end_offset);
  const int64_t first = std::max<int64_t>(base_offset, 0);
  const int64_t last = std::min(end_offset, last_offset());
  size_t purged = 0;
  for (int64_t o = first; o <= last; ++o) {
    Message& m = messages_[static_cast<size_t>(o)];
    if (m.sidecar_present) {
      m.sidecar_present = false;
      ++purged;
    }
  }
  for (Segment& s : segments_) {
    if (s.base_offset >= base_offset && s.end_offset <= end_offset) s.sidecar_present = false;
  }
  return purged;
}

AckAnswer Partition::ack(const std::string& transaction_id) const {
  AckAnswer answer;
  const std::vector<int64_t>* offsets = offsets_of(transaction_id);
  if (offsets == nullptr) return answer;
  // Through the sidecar only, whatever the window (docs/semantics.md §2.9).
  for (int64_t offset : *offsets) {
    if (messages_[static_cast<size_t>(offset)].sidecar_present) {
      answer.acked = true;
      answer.offset = offset;
      answer.message_id = resolve_id(offset);
      break;
    }
  }
  assert(!answer.acked || answer.offset >= 0);
  return answer;
}

std::vector<Message> Partition::read(int64_t from, int64_t limit) const {
  std::vector<Message> out;
  for (int64_t o = std::max<int64_t>(from, 0); o <= last_offset(); ++o) {
    if (limit > 0 && static_cast<int64_t>(out.size()) >= limit) break;
    const Message& m = messages_[static_cast<size_t>(o)];
    if (m.segment_present) out.push_back(m);
  }
  return out;
}

size_t Partition::stored() const {
  return static_cast<size_t>(
      std::count_if(messages_.begin(), messages_.end(), [](const Message& m) { return m.segment_present; }));
}

void Model::configure(const std::string& queue, const QueueOptions& options) {
  assert(options.window_seconds >= 0);
  queues_[queue] = options;
}

QueueOptions Model::options(const std::string& queue) const {
  auto it = queues_.find(queue);
  return it == queues_.end() ? QueueOptions{} : it->second;
}

Partition& Model::partition(const std::string& queue, const std::string& partition) {
  return partitions_[{queue, partition}];
}

const Partition* Model::find(const std::string& queue, const std::string& partition) const {
  auto it = partitions_.find({queue, partition});
  return it == partitions_.end() ? nullptr : &it->second;
}

int64_t Model::sidecar_floor_seconds(const std::string& queue) const {
  const QueueOptions o = options(queue);
  return std::max({o.window_seconds, o.completed_retention_seconds, kSidecarFloorSeconds});
}

std::vector<size_t> request_leaders(const std::vector<ItemKey>& items) {
  std::map<std::tuple<std::string, std::string, std::string>, size_t> first;
  std::vector<size_t> leaders;
  leaders.reserve(items.size());
  for (size_t i = 0; i < items.size(); ++i) {
    const auto [it, inserted] =
        first.try_emplace(std::make_tuple(items[i].queue, items[i].partition, items[i].transaction_id), i);
    leaders.push_back(it->second);
    assert(leaders.back() <= i);
  }
  return leaders;
}

}  // namespace qdt::model
