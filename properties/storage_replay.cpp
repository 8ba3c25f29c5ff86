#include "properties/storage_replay.h"

#include <algorithm>
#include <cassert>
#include <optional>
#include <variant>

namespace qdt::properties {
const StoredMessage* PartitionReplay::at(int64_t offset) const {
  // Offsets from 0 without gaps: the offset is the index.
  if (offset >= 0 && static_cast<uint64_t>(offset) < by_offset_.size() &&
      by_offset_[static_cast<size_t>(offset)].first == offset) {
    return by_offset_[static_cast<size_t>(offset)].second;
  }
  auto it = std::lower_bound(by_offset_.begin(), by_offset_.end(), offset,
                             [](const auto& entry, int64_t o) { return entry.first < o; });
  return it == by_offset_.end() || it->first != offset ? nullptr : it->second;
}

std::pmr::vector<std::pair<int64_t, StoredMessage*>>::iterator PartitionReplay::lower_bound(int64_t offset) {
  return std::lower_bound(by_offset_.begin(), by_offset_.end(), offset,
                          [](const auto& entry, int64_t o) { return entry.first < o; });
}

StoredMessage* PartitionReplay::insert(const StoredMessage& m) {
  auto at = by_offset_.end();
  if (!by_offset_.empty() && m.offset <= by_offset_.back().first) {  // out of order: a broken storage's doing
    at = lower_bound(m.offset);
    if (at->first == m.offset) return nullptr;
  }
  StoredMessage* stored = &stored_.emplace_back(m);
  by_offset_.insert(at, {m.offset, stored});
  return stored;
}

std::span<const int64_t> StorageReplay::live_offsets(std::string_view queue, std::string_view partition,
                                                     std::string_view transaction_id) const {
  if (live_.empty()) return {};  // nothing stored yet
  const std::optional<uint32_t> key = index_.keys().find(KeyView{queue, partition, transaction_id});
  return key ? live_offsets(*key) : std::span<const int64_t>();
}

int64_t StorageReplay::window_seconds(std::string_view queue) const {
  // Every checker of a pass asks for the same event's queue in turn.
  if (last_window_queue_.data() != nullptr && last_window_queue_ == queue) return last_window_;
  auto it = windows_.find(queue);
  if (it == windows_.end()) return 3600;
  last_window_queue_ = it->first;  // the configure event's name, which outlives the replay
  last_window_ = it->second;
  return last_window_;
}

const PartitionReplay* StorageReplay::find(std::string_view queue, std::string_view partition) const {
  // Every checker of a pass asks for the same event's partition in turn.
  if (last_ != nullptr && same_partition(last_key_, queue, partition)) return last_;
  auto it = partitions_.find({queue, partition});
  if (it == partitions_.end()) return nullptr;
  last_key_ = it->first;
  last_ = &it->second;
  return last_;
}

bool StorageReplay::same_partition(const PartitionKey& a, std::string_view queue, std::string_view partition) {
  // `a` views an applied event's names, alive as long as the replay: a view
  // at the same address is the same name. Every checker passes the same
  // event's strings, so the characters are mostly not compared.
  auto same = [](std::string_view x, std::string_view y) {
    return (x.data() == y.data() && x.size() == y.size()) || x == y;
  };
  return same(a.first, queue) && same(a.second, partition);
}

const StorageReplay::Location* StorageReplay::locate(std::string_view message_id) const {
  if (locations_.empty()) return nullptr;  // nothing stored yet
  const std::optional<uint32_t> id = index_.messages().find(message_id);
  return id ? locate(*id) : nullptr;
}

void PartitionReplay::delete_span(int64_t base_offset, int64_t end_offset) {
  for (auto it = lower_bound(base_offset); it != by_offset_.end() && it->first <= end_offset; ++it) {
    it->second->segment_present = false;
  }
}

PartitionReplay& StorageReplay::partition(std::string_view queue, std::string_view partition) {
  // The replay owns every partition: only find()'s const view of it is const.
  if (last_ != nullptr && same_partition(last_key_, queue, partition)) return const_cast<PartitionReplay&>(*last_);
  auto it = partitions_.try_emplace({queue, partition}, &arena_).first;
  last_key_ = it->first;
  last_ = &it->second;
  return it->second;
}

void StorageReplay::apply(const history::Event& event, size_t event_index) {
  if (const auto* push = std::get_if<history::PushEvent>(&event)) {
    if (push->failed || !push->queued) return;
    PartitionReplay& p = partition(push->queue, push->partition);
    const KeyIds& ids = index_.keys();
    if (live_.empty()) live_.resize(ids.size());
    const MessageIds& messages = index_.messages();
    if (locations_.empty()) locations_.resize(messages.size());
    const std::span<const uint32_t> keys = ids.frames(event_index);
    const std::span<const uint32_t> message_ids = messages.frames(event_index);
    for (size_t i = 0; i < push->frames.size(); ++i) {
      const history::FrameRecord& f = push->frames[i];
      StoredMessage m;
      m.frame = &f;
      m.offset = push->base_offset + static_cast<int64_t>(i);
      m.created_at_ms = push->now_ms;
      m.event_index = event_index;
      m.key = keys[i];
      const int64_t offset = m.offset;
      StoredMessage* stored = p.insert(m);
      if (stored == nullptr) continue;  // overlap: first write kept
      std::pmr::vector<int64_t>& live = live_[m.key];
      // Ascending, no repeats (offsets usually arrive in order).
      auto at = std::lower_bound(live.begin(), live.end(), offset);
      if (at == live.end() || *at != offset) live.insert(at, offset);
      Location& location = locations_[message_ids[i]];
      if (location.message == nullptr) location = Location{push->queue, push->partition, offset, stored};  // the first kept
    }
  } else if (const auto* configure = std::get_if<history::ConfigureEvent>(&event)) {
    windows_[configure->queue] = configure->window_seconds;
    last_window_queue_ = {};  // the window may have changed
  } else if (const auto* del = std::get_if<history::DeleteSegmentEvent>(&event)) {
    partition(del->queue, del->partition).delete_span(del->base_offset, del->end_offset);
  } else if (const auto* retention = std::get_if<history::RetentionEvent>(&event)) {
    if (retention->failed) return;  // a failed pass deleted nothing
    PartitionReplay& p = partition(retention->queue, retention->partition);
    for (const history::SidecarRowRecord& span : retention->deleted) p.delete_span(span.base_offset, span.end_offset);
  } else if (const auto* purge = std::get_if<history::PurgeEvent>(&event)) {
    if (purge->failed) return;  // a failed step purged nothing
    PartitionReplay& p = partition(purge->queue, purge->partition);
    for (const history::SidecarRowRecord& row : purge->rows) {
      assert(row.base_offset <= row.end_offset);
      for (auto it = p.lower_bound(row.base_offset); it != p.by_offset_.end() && it->first <= row.end_offset; ++it) {
        StoredMessage& m = *it->second;
        if (!m.sidecar_present) continue;
        m.sidecar_present = false;
        m.sidecar_purged_by = event_index;
        std::pmr::vector<int64_t>& live = live_[m.key];
        auto at = std::lower_bound(live.begin(), live.end(), m.offset);
        assert(at != live.end() && *at == m.offset);
        live.erase(at);
      }
    }
    p.txns_start_ = purge->txns_start_after;
  }
}

}  // namespace qdt::properties
