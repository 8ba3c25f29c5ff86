#pragma once
// The hashes a dedup cache partition holds (docs/semantics.md §2.11), flat: every held
// occurrence in offset order in one contiguous buffer (16 bytes each), plus
// an open-addressing index from a hash to one occurrence of it (5 bytes a
// slot: a 32-bit sequence number and a control byte).
//
// Occurrences are numbered by position from the front (0 .. size()-1); each
// also has a 32-bit sequence number, seq(i) = front_seq + i modulo 2^32,
// which a pop_front does not change (the index stores those, so trimming the
// front rewrites nothing). insert() shifts the positions after the point and
// moves the index entries that named them.
//
// The index is a multiset without counts. It names, per indexed hash, its
// newest occurrence (the highest position). Occurrences only ever leave from
// the front (expiry of a prefix), so when the front occurrence leaves, it is
// the last one of its hash exactly when the index names it: that is
// unindex_if_named(0), the refcounted rule. unindex() drops the hash whatever
// occurrences remain (the plain-set variant). Both rules are bound by the
// cache's policy (dedup_cache_policy.h); this class only keeps the index
// pointing at the same occurrences while positions move.
//
// Table: any capacity (>= kMinSlots; the home slot is a multiply-shift of the
// hash, so no power-of-two jump doubles the memory), linear probing, a 7-bit
// tag per slot so a probe reads the 16-byte hash only on a tag match; erasure
// leaves a tombstone (or an empty slot when the next slot is empty). The
// load, tombstones included, stays at most 3/4; a rehash (grow, shrink below
// 1/4, or purge of tombstones) leaves it at 3/5. Nothing here
// depends on iteration order: the table is probed, never iterated for a
// result; a rehash reinserts by slot order, which only affects placement.
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "impl/broker/flat_deque.h"
#include "impl/hash.h"

namespace qdt::impl {

class HashMultiset {
 public:
  static constexpr size_t kMinSlots = 8;
  static constexpr size_t kSlotBytes = sizeof(uint32_t) + sizeof(uint8_t);

  // Occurrences.
  size_t size() const { return hashes_.size(); }
  const Hash128& operator[](size_t i) const { return hashes_[i]; }
  uint32_t seq(size_t i) const { return front_seq_ + static_cast<uint32_t>(i); }
  // The position of the occurrence numbered s (which must be held or be seq(size())).
  size_t position(uint32_t s) const {
    const size_t i = static_cast<uint32_t>(s - front_seq_);
    assert(i <= size());
    return i;
  }
  // Inserts n occurrences before position i (i == size() appends). Positions
  // from i on move up by n; the new ones are not indexed (index() them).
  void insert(size_t i, const Hash128* first, size_t n);
  // The front occurrence leaves; the index must no longer name it.
  void pop_front();
  // Room for n more occurrences (exact) and n more indexed hashes without growing.
  void reserve_more(size_t n);

  // The index.
  size_t distinct() const { return size_; }
  bool contains(const Hash128& h) const { return find(h) != kNone; }
  // The position the index names for h.
  std::optional<size_t> indexed_position(const Hash128& h) const;
  // Occurrence i joined: index it if its hash is absent or named at a lower position.
  void index(size_t i);
  // Drop h from the index (nothing when absent).
  void unindex(const Hash128& h);
  // Drop occurrence i's hash if the index names occurrence i.
  void unindex_if_named(size_t i);

  void clear();
  // What it holds on the heap: buffer capacities (malloc headers not included).
  size_t heap_bytes() const { return hashes_.capacity_bytes() + slots_.size() * kSlotBytes; }
  size_t hash_capacity() const { return hashes_.capacity(); }
  size_t slot_capacity() const { return slots_.size(); }
  size_t tombstones() const { return tombstones_; }
  // The table's 64-bit mix of a hash: the low bits pick the home slot, the top 7 the tag.
  static uint64_t fold(const Hash128& h);

 private:
  static constexpr size_t kNone = ~size_t{0};
  static constexpr uint8_t kEmpty = 0;
  static constexpr uint8_t kTombstone = 1;

  // The first slot on h's probe path whose tag matches and that `match` accepts, or kNone.
  template <class Match>
  size_t probe(const Hash128& h, Match match) const;
  size_t find(const Hash128& h) const;  // slot or kNone
  // The slot of hash h if it names sequence number s, or kNone. Matches by
  // number and reads no occurrence, so it works while entries are renumbered.
  size_t slot_naming(const Hash128& h, uint32_t s) const;
  void erase_slot(size_t slot);
  bool full_after(size_t n) const;  // n more entries would pass the 3/4 load
  void rehash(size_t slots);
  void place(uint64_t fold, uint32_t s);  // into a table known to lack the hash and to have room

  FlatDeque<Hash128> hashes_;
  uint32_t front_seq_ = 0;
  std::vector<uint32_t> slots_;  // seq of the named occurrence
  std::vector<uint8_t> ctrl_;    // kEmpty, kTombstone, or 0x80 | 7-bit tag
  size_t size_ = 0;              // full slots
  size_t tombstones_ = 0;
};

}  // namespace qdt::impl
