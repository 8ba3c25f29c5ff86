#include "properties/key_ids.h"

#include <cassert>
#include <variant>

namespace qdt::properties {

KeyIds::KeyIds(const history::History& history) : history_(history) {
  size_t frames = 0;
  size_t items = 0;
  for (const history::Event& event : history.events) {
    if (const auto* push = std::get_if<history::PushEvent>(&event)) frames += push->frames.size();
  }
  for (const history::RequestRecord& r : history.requests) items += r.items.size();
  ids_.reserve(frames + items);
  views_.reserve(frames + items);
  auto id = [&](std::string_view queue, std::string_view partition, std::string_view txn) {
    auto [it, fresh] = ids_.try_emplace(KeyView{queue, partition, txn}, static_cast<uint32_t>(ids_.size()));
    if (fresh) views_.push_back(it->first);
    return it->second;
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

std::span<const uint32_t> KeyIds::items(const history::RequestRecord& request) const {
  assert(holds(request));
  const auto i = static_cast<size_t>(&request - history_.requests.data());
  return {items_.data() + items_start_[i], items_start_[i + 1] - items_start_[i]};
}

}  // namespace qdt::properties
