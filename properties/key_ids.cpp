#include "properties/key_ids.h"

#include <cassert>
#include <variant>

#include "model/text_hash.h"

namespace qdt::properties {

using model::text_hash;

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
  size_t capacity = 16;
  while (capacity < 2 * (frames + items)) capacity *= 2;
  slots_.resize(capacity);
  characters_.reserve(characters);
  views_.reserve(frames + items);
  auto id = [&](std::string_view queue, std::string_view partition, std::string_view txn) {
    return number(KeyView{queue, partition, txn});
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

namespace {

uint64_t key_hash(const KeyView& key) {
  return text_hash(key.txn, text_hash(key.partition, text_hash(key.queue)));
}

}  // namespace

uint32_t KeyIds::number(const KeyView& key) {
  assert(2 * (views_.size() + 1) <= slots_.size());  // sized for every frame and item
  const uint64_t h = key_hash(key);
  const auto tag = static_cast<uint32_t>(h >> 32);
  const size_t mask = slots_.size() - 1;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    Slot& s = slots_[i];
    if (s.id == 0) {
      auto copy = [&](std::string_view text) {
        assert(characters_.size() + text.size() <= characters_.capacity());  // the views stay valid
        const size_t at = characters_.size();
        characters_.insert(characters_.end(), text.begin(), text.end());
        return std::string_view(characters_.data() + at, text.size());
      };
      const std::string_view queue = copy(key.queue);
      const std::string_view partition = copy(key.partition);
      views_.push_back(KeyView{queue, partition, copy(key.txn)});
      s = Slot{tag, static_cast<uint32_t>(views_.size())};
      return s.id - 1;
    }
    if (s.hash == tag && views_[s.id - 1] == key) return s.id - 1;
  }
}

std::optional<uint32_t> KeyIds::find(const KeyView& key) const {
  const uint64_t h = key_hash(key);
  const auto tag = static_cast<uint32_t>(h >> 32);
  const size_t mask = slots_.size() - 1;
  for (size_t i = h & mask;; i = (i + 1) & mask) {  // never full: ends at an empty slot
    const Slot& s = slots_[i];
    if (s.id == 0) return std::nullopt;
    if (s.hash == tag && views_[s.id - 1] == key) return s.id - 1;
  }
}

std::span<const uint32_t> KeyIds::items(const history::RequestRecord& request) const {
  assert(holds(request));
  const auto i = static_cast<size_t>(&request - history_.requests.data());
  return {items_.data() + items_start_[i], items_start_[i + 1] - items_start_[i]};
}

}  // namespace qdt::properties
