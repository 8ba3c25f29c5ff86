#pragma once
// Dense numbers for keys: the one flat table of the oracle. The model's
// offsets by transactionId, the checkers' KeyIds and MessageIds and their
// small-key tables each had a hand-written copy of it (the same probe four
// times, growth three ways, no test of its own); this is the one place that
// probes, and dense_table_test.cpp the test that breaks when it does.
//
// Keys are numbered 0, 1, 2... in the order they are first inserted: callers
// index their per-key vectors by the number, and the number depends only on
// the order of insertions, never on the hashes or the table's size.
//
// Open addressing over one array of (tag, number) slots, at most half full,
// linear probing: a lookup touches one slot, compares a key only when the
// tags agree, and growing moves no node (the node tables these replaced
// were memory-bound in the one pass over a history). The tag is the upper
// half of the key's 64-bit hash and a key's home slot is the tag's top bits,
// so growing re-places the slots from their tags alone: no key is read and
// nothing is hashed again. Hashes must be well mixed in their upper half.
//
// Three ways to hold the keys, all through DenseTable:
// - DenseTable itself: the caller holds the keys and passes, per call, the
//   key's hash and an accessor comparing it with the key of a number (the
//   model: a key number -> the transactionId of its first message).
// - DenseValues<Key, Hash>: small keys copied by value.
// - DenseTexts<Parts>: keys of `Parts` strings, their characters copied once
//   into one arena with an end offset per part (no allocation per key).
#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "model/text_hash.h"

namespace qdt::model {

class DenseTable {
 public:
  // Numbers are [0, size()).
  size_t size() const { return size_; }
  // Slots (a power of two, 0 before the first key); at least 2 * size().
  size_t capacity() const { return slots_.size(); }
  // Room for `keys` keys without growing.
  void reserve(size_t keys) {
    if (2 * keys > slots_.size()) grow(2 * keys);
  }
  // The number of the key hashed to `hash`; `equal(number)` says whether the
  // key of `number` is that key (called only when the tags agree).
  template <class Equal>
  std::optional<uint32_t> find(uint64_t hash, Equal&& equal) const {
    if (slots_.empty()) return std::nullopt;
    const uint32_t tag = tag_of(hash);
    const size_t mask = slots_.size() - 1;
    for (size_t i = home(tag);; i = (i + 1) & mask) {  // never full: ends at an empty slot
      const Slot s = slots_[i];
      if (s.number == 0) return std::nullopt;
      if (s.tag == tag && equal(s.number - 1)) return s.number - 1;
    }
  }
  // As find(); a new key is numbered size() (then `second` is true) and the
  // caller must hold it under that number before the next call.
  template <class Equal>
  std::pair<uint32_t, bool> insert(uint64_t hash, Equal&& equal) {
    if (2 * (size_t{size_} + 1) > slots_.size()) grow(2 * (size_t{size_} + 1));  // at most half full
    const uint32_t tag = tag_of(hash);
    const size_t mask = slots_.size() - 1;
    for (size_t i = home(tag);; i = (i + 1) & mask) {
      Slot& s = slots_[i];
      if (s.number == 0) {
        s = Slot{tag, ++size_};
        return {size_ - 1, true};
      }
      if (s.tag == tag && equal(s.number - 1)) return {s.number - 1, false};
    }
  }

 private:
  struct Slot {
    uint32_t tag = 0;     // the upper half of the key's hash
    uint32_t number = 0;  // number + 1; 0: empty
  };
  static uint32_t tag_of(uint64_t hash) { return static_cast<uint32_t>(hash >> 32); }
  // The tag's top log2(capacity) bits.
  size_t home(uint32_t tag) const { return static_cast<size_t>(tag) >> shift_; }
  void grow(size_t at_least) {
    assert(at_least <= (size_t{1} << 32));  // a home is at most 32 bits of the tag
    const size_t capacity = std::max<size_t>(16, std::bit_ceil(at_least));
    std::vector<Slot> old(capacity);
    old.swap(slots_);
    shift_ = 32 - std::countr_zero(capacity);
    const size_t mask = capacity - 1;
    for (const Slot& s : old) {
      if (s.number == 0) continue;
      size_t i = home(s.tag);
      while (slots_[i].number != 0) i = (i + 1) & mask;
      slots_[i] = s;
    }
    assert(2 * size_ <= slots_.size());
  }

  std::vector<Slot> slots_;
  uint32_t size_ = 0;
  int shift_ = 32;  // 32 - log2(capacity)
};

// Small keys, copied by value: cheap to copy and compare. `Hash` may be weak
// in its low and high bits: every hash is mixed again.
template <class Key, class Hash>
class DenseValues {
 public:
  size_t size() const { return keys_.size(); }
  const Key& key(uint32_t number) const {
    assert(number < keys_.size());
    return keys_[number];
  }
  void reserve(size_t n) {
    keys_.reserve(n);
    table_.reserve(n);
  }
  // The number of `key`, numbered when new (then `second` is true).
  std::pair<uint32_t, bool> insert(const Key& key) {
    const auto inserted = table_.insert(hash(key), [&](uint32_t n) { return keys_[n] == key; });
    if (inserted.second) keys_.push_back(key);
    assert(keys_.size() == table_.size());
    return inserted;
  }
  std::optional<uint32_t> find(const Key& key) const {
    return table_.find(hash(key), [&](uint32_t n) { return keys_[n] == key; });
  }

 private:
  static uint64_t hash(const Key& key) {  // MurmurHash3's finalizer
    uint64_t h = Hash{}(key);
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    return h ^ (h >> 33);
  }

  DenseTable table_;
  std::vector<Key> keys_;  // by number
};

// Keys of `Parts` strings (an id; a queue, partition and transactionId),
// their characters held once: views returned stay valid until the next
// insert.
template <size_t Parts>
class DenseTexts {
 public:
  static_assert(Parts > 0);
  using Key = std::array<std::string_view, Parts>;
  size_t size() const { return table_.size(); }
  // Room for `n` keys of `characters` characters in all without growing.
  void reserve(size_t n, size_t characters) {
    table_.reserve(n);
    ends_.reserve(1 + n * Parts);
    characters_.reserve(characters);
  }
  std::string_view text(uint32_t number, size_t part = 0) const {
    assert(number < size() && part < Parts);
    const size_t at = number * Parts + part;
    return {characters_.data() + ends_[at], ends_[at + 1] - ends_[at]};
  }
  std::pair<uint32_t, bool> insert(const Key& key) {
    const auto inserted = table_.insert(hash(key), [&](uint32_t n) { return equal(n, key); });
    if (inserted.second) {
      for (std::string_view part : key) {
        assert(characters_.size() + part.size() <= std::numeric_limits<uint32_t>::max());
        characters_.insert(characters_.end(), part.begin(), part.end());
        ends_.push_back(static_cast<uint32_t>(characters_.size()));
      }
    }
    assert(ends_.size() == 1 + table_.size() * Parts);
    return inserted;
  }
  std::optional<uint32_t> find(const Key& key) const {
    return table_.find(hash(key), [&](uint32_t n) { return equal(n, key); });
  }

 private:
  static uint64_t hash(const Key& key) {
    uint64_t h = 0;
    for (std::string_view part : key) h = text_hash(part, h);
    return h;
  }
  bool equal(uint32_t number, const Key& key) const {  // text() without its checks: the probe's hot path
    const uint32_t* end = ends_.data() + number * Parts;
    for (size_t p = 0; p < Parts; ++p) {
      if (std::string_view(characters_.data() + end[p], end[p + 1] - end[p]) != key[p]) return false;
    }
    return true;
  }

  DenseTable table_;
  std::vector<char> characters_;   // every key's parts, in numbering order
  std::vector<uint32_t> ends_{0};  // ends_[number * Parts + part + 1]: where that part ends in characters_
};

}  // namespace qdt::model
