#include "properties/key_ids.h"

#include <cassert>
#include <variant>

namespace qdt::properties {

KeyIds::KeyIds(const history::History& history) : history_(history) {
  size_t frames = 0;
  size_t items = 0;
  size_t characters = 0;  // of every key numbered, an upper bound of the distinct ones'
  for (const history::Event& event : history.events) {
    const auto* push = std::get_if<history::PushEvent>(&event);
    if (push == nullptr) continue;
    frames += push->frames.size();
    for (const history::FrameRecord& f : push->frames) {
      characters += push->queue.size() + push->partition.size() + f.transaction_id.size();
    }
  }
  for (const history::RequestRecord& r : history.requests) {
    items += r.items.size();
    for (const history::ItemRecord& item : r.items) {
      characters += item.queue.size() + item.partition.size() + item.transaction_id.size();
    }
  }
  keys_.reserve(frames + items, characters);
  auto id = [&](std::string_view queue, std::string_view partition, std::string_view txn) {
    return keys_.insert({queue, partition, txn}).first;
  };
  frames_.reserve(frames);
  frames_start_.reserve(history.events.size() + 1);
  for (const history::Event& event : history.events) {
    frames_start_.push_back(frames_.size());
    const auto* push = std::get_if<history::PushEvent>(&event);
    if (push == nullptr) continue;
    for (const history::FrameRecord& f : push->frames) frames_.push_back(id(push->queue, push->partition, f.transaction_id));
  }
  frames_start_.push_back(frames_.size());
  items_.reserve(items);
  items_start_.reserve(history.requests.size() + 1);
  for (const history::RequestRecord& r : history.requests) {
    items_start_.push_back(items_.size());
    for (const history::ItemRecord& item : r.items) items_.push_back(id(item.queue, item.partition, item.transaction_id));
  }
  items_start_.push_back(items_.size());
}

std::optional<uint32_t> KeyIds::find(const KeyView& key) const { return keys_.find({key.queue, key.partition, key.txn}); }

std::span<const uint32_t> KeyIds::items(const history::RequestRecord& request) const {
  assert(holds(request));
  const auto i = static_cast<size_t>(&request - history_.requests.data());
  return {items_.data() + items_start_[i], items_start_[i + 1] - items_start_[i]};
}

}  // namespace qdt::properties
