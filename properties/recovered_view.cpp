#include "properties/recovered_view.h"

#include <algorithm>

namespace qdt::properties {
namespace {

bool same(const history::ReadMessage& a, const history::ReadMessage& b) {
  return a.message_id == b.message_id && a.transaction_id == b.transaction_id;
}

// The changes from `before` to `after` in one partition (either may be empty).
history::RecoveredChange diff(const RecoveredView::Key& key, const RecoveredView::Messages* before,
                              const std::vector<const history::ReadMessage*>& after) {
  history::RecoveredChange change{key.first, key.second, {}, {}};
  static const RecoveredView::Messages kNone;
  const RecoveredView::Messages& old = before != nullptr ? *before : kNone;
  auto o = old.begin();
  auto n = after.begin();
  while (o != old.end() || n != after.end()) {
    if (n == after.end() || (o != old.end() && o->first < (*n)->offset)) {
      change.removed.push_back(o->first);
      ++o;
    } else if (o == old.end() || (*n)->offset < o->first) {
      change.written.push_back(**n);
      ++n;
    } else {
      if (!same(o->second, **n)) change.written.push_back(**n);
      ++o;
      ++n;
    }
  }
  return change;
}

}  // namespace

void RecoveredView::apply(const std::vector<history::RecoveredChange>& changes) {
  for (const history::RecoveredChange& change : changes) {
    const Key key{change.queue, change.partition};
    Messages& messages = partitions_[key];
    for (const int64_t offset : change.removed) messages_ -= messages.erase(offset);
    for (const history::ReadMessage& m : change.written) {
      const auto [it, inserted] = messages.insert_or_assign(m.offset, m);
      if (inserted) ++messages_;
    }
    if (messages.empty()) partitions_.erase(key);
  }
}

std::vector<history::RecoveredChange> RecoveredView::advance_to(const std::vector<history::FinalRead>& reads) {
  std::map<Key, std::vector<const history::ReadMessage*>> after;
  for (const history::FinalRead& read : reads) {
    auto& messages = after[{read.queue, read.partition}];
    for (const history::ReadMessage& m : read.messages) messages.push_back(&m);
  }
  // A later read of the same offset wins, as it did when each crash kept its
  // whole read.
  for (auto& [key, messages] : after) {
    const auto by_offset = [](const history::ReadMessage* a, const history::ReadMessage* b) {
      return a->offset < b->offset;
    };
    if (!std::is_sorted(messages.begin(), messages.end(), by_offset)) {
      std::stable_sort(messages.begin(), messages.end(), by_offset);
    }
    std::vector<const history::ReadMessage*> last;
    last.reserve(messages.size());
    for (size_t i = 0; i < messages.size(); ++i) {
      if (i + 1 < messages.size() && messages[i + 1]->offset == messages[i]->offset) continue;
      last.push_back(messages[i]);
    }
    messages = std::move(last);
  }
  std::vector<history::RecoveredChange> changes;
  const auto record = [&changes](history::RecoveredChange change) {
    if (!change.written.empty() || !change.removed.empty()) changes.push_back(std::move(change));
  };
  static const std::vector<const history::ReadMessage*> kNone;
  auto b = partitions_.begin();
  auto a = after.begin();
  while (b != partitions_.end() || a != after.end()) {
    if (a == after.end() || (b != partitions_.end() && b->first < a->first)) {
      record(diff(b->first, &b->second, kNone));
      ++b;
    } else if (b == partitions_.end() || a->first < b->first) {
      record(diff(a->first, nullptr, a->second));
      ++a;
    } else {
      record(diff(a->first, &b->second, a->second));
      ++a;
      ++b;
    }
  }
  apply(changes);
  return changes;
}

const RecoveredView::Messages* RecoveredView::find(const Key& key) const {
  const auto it = partitions_.find(key);
  return it == partitions_.end() ? nullptr : &it->second;
}

size_t recorded_changes(const history::StorageCrash& crash) {
  size_t records = 0;
  for (const history::RecoveredChange& change : crash.recovered) {
    records += change.written.size() + change.removed.size();
  }
  return records;
}

}  // namespace qdt::properties
