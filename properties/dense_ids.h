#pragma once
// Dense numbers for small keys (a request and a key id, a push and a key id):
// the checkers keep per-key state in vectors indexed by these numbers. The
// table is open addressing over one array of (hash, number), so a lookup
// touches one slot and then the key, instead of chasing a node of a
// std::unordered_map per entry, and growing it moves no node: those node
// tables were memory-bound in the one pass over a history.
//
// Keys must be cheap to copy and compare; `Hash` may be weak in its low bits
// (every hash is mixed again).
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace qdt::properties {

template <class Key, class Hash>
class DenseIds {
 public:
  // Numbers are [0, size()).
  size_t size() const { return keys_.size(); }
  const Key& key(uint32_t number) const {
    assert(number < keys_.size());
    return keys_[number];
  }
  // Room for `n` keys without growing.
  void reserve(size_t n) {
    keys_.reserve(n);
    if (2 * n > slots_.size()) grow(2 * n);
  }
  // The number of `key`, numbered when new (then `second` is true).
  std::pair<uint32_t, bool> insert(const Key& key) {
    if (2 * (keys_.size() + 1) > slots_.size()) grow(2 * (keys_.size() + 1));  // at most half full
    const uint64_t h = mix(Hash{}(key));
    const auto tag = static_cast<uint32_t>(h >> 32);
    const size_t mask = slots_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
      Slot& s = slots_[i];
      if (s.number == 0) {
        keys_.push_back(key);
        s = Slot{tag, static_cast<uint32_t>(keys_.size())};
        return {s.number - 1, true};
      }
      if (s.hash == tag && keys_[s.number - 1] == key) return {s.number - 1, false};
    }
  }
  std::optional<uint32_t> find(const Key& key) const {
    if (slots_.empty()) return std::nullopt;
    const uint64_t h = mix(Hash{}(key));
    const auto tag = static_cast<uint32_t>(h >> 32);
    const size_t mask = slots_.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {  // never full: ends at an empty slot
      const Slot& s = slots_[i];
      if (s.number == 0) return std::nullopt;
      if (s.hash == tag && keys_[s.number - 1] == key) return s.number - 1;
    }
  }

 private:
  struct Slot {
    uint32_t hash = 0;    // the upper half of the mixed hash
    uint32_t number = 0;  // number + 1; 0: empty
  };
  static uint64_t mix(uint64_t h) {
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    return h ^ (h >> 33);
  }
  void grow(size_t at_least) {
    size_t capacity = 16;
    while (capacity < at_least) capacity *= 2;
    slots_.assign(capacity, Slot{});
    const size_t mask = capacity - 1;
    for (size_t n = 0; n < keys_.size(); ++n) {
      const uint64_t h = mix(Hash{}(keys_[n]));
      size_t i = h & mask;
      while (slots_[i].number != 0) i = (i + 1) & mask;
      slots_[i] = Slot{static_cast<uint32_t>(h >> 32), static_cast<uint32_t>(n + 1)};
    }
  }

  std::vector<Slot> slots_;  // a power of two (empty before the first key)
  std::vector<Key> keys_;    // by number
};

}  // namespace qdt::properties
