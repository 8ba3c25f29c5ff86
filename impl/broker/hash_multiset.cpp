#include "impl/broker/hash_multiset.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>

namespace qdt::impl {

namespace {

// The home slot takes the fold's high bits (multiply-shift, any table size),
// the tag its low 7.
__extension__ using Uint128 = unsigned __int128;  // GCC and Clang; -Wpedantic otherwise objects
size_t home_of(uint64_t fold, size_t slots) { return static_cast<size_t>((Uint128{fold} * slots) >> 64); }
uint8_t tag_of(uint64_t fold) { return static_cast<uint8_t>(0x80 | (fold & 0x7f)); }
size_t next_slot(size_t i, size_t slots) { return i + 1 == slots ? 0 : i + 1; }

// The table a rehash builds for n entries: a load of 3/5, so the next one
// comes after n/4 more entries (growth) or about n/2 fewer (shrink).
size_t slots_for(size_t n) { return std::max(HashMultiset::kMinSlots, n * 5 / 3 + 1); }

}  // namespace

uint64_t HashMultiset::fold(const Hash128& h) {
  // The stored hash is already uniform (xxh3), but tests and benchmarks use
  // small counters in the low bytes: mix every bit into every bit (splitmix64's
  // finalizer) so both the home slot and the tag depend on the whole key.
  uint64_t hi = 0;
  uint64_t lo = 0;
  std::memcpy(&hi, h.bytes.data(), 8);
  std::memcpy(&lo, h.bytes.data() + 8, 8);
  uint64_t v = hi ^ std::rotl(lo * 0x9e3779b97f4a7c15ULL, 32);
  v ^= v >> 30;
  v *= 0xbf58476d1ce4e5b9ULL;
  v ^= v >> 27;
  v *= 0x94d049bb133111ebULL;
  v ^= v >> 31;
  return v;
}

template <class Match>
size_t HashMultiset::probe(const Hash128& h, Match match) const {
  if (slots_.empty()) return kNone;
  const uint64_t f = fold(h);
  const uint8_t tag = tag_of(f);
  const size_t n = slots_.size();
  // The load stays below 1, so an empty slot ends every probe.
  for (size_t k = home_of(f, n), probes = 0; probes < n; k = next_slot(k, n), ++probes) {
    if (ctrl_[k] == kEmpty) return kNone;
    if (ctrl_[k] == tag && match(k)) return k;
  }
  assert(false);
  return kNone;
}

size_t HashMultiset::find(const Hash128& h) const {
  return probe(h, [&](size_t k) { return hashes_[position(slots_[k])] == h; });
}

size_t HashMultiset::slot_naming(const Hash128& h, uint32_t s) const {
  return probe(h, [&](size_t k) { return slots_[k] == s; });
}

void HashMultiset::place(uint64_t fold_value, uint32_t s) {
  size_t i = home_of(fold_value, slots_.size());
  for (size_t probes = 0; ctrl_[i] != kEmpty && ctrl_[i] != kTombstone; i = next_slot(i, slots_.size())) {
    assert(++probes < slots_.size());
  }
  if (ctrl_[i] == kTombstone) --tombstones_;
  ctrl_[i] = tag_of(fold_value);
  slots_[i] = s;
}

void HashMultiset::rehash(size_t slots) {
  assert(slots >= kMinSlots && size_ * 4 < slots * 3);
  std::vector<uint32_t> old_slots(slots, 0);
  std::vector<uint8_t> old_ctrl(slots, kEmpty);
  old_slots.swap(slots_);
  old_ctrl.swap(ctrl_);
  tombstones_ = 0;
  for (size_t k = 0; k < old_slots.size(); ++k) {
    if (old_ctrl[k] & 0x80) place(fold(hashes_[position(old_slots[k])]), old_slots[k]);
  }
}

void HashMultiset::erase_slot(size_t slot) {
  assert(ctrl_[slot] & 0x80);
  --size_;
  if (size_ == 0) {
    // Nothing indexed: give the table back (an empty partition costs no slots).
    std::vector<uint32_t>().swap(slots_);
    std::vector<uint8_t>().swap(ctrl_);
    tombstones_ = 0;
    return;
  }
  // A probe that reached this slot would stop at the next one anyway when it is empty.
  if (ctrl_[next_slot(slot, slots_.size())] == kEmpty) {
    ctrl_[slot] = kEmpty;
  } else {
    ctrl_[slot] = kTombstone;
    ++tombstones_;
  }
  if (slots_.size() > kMinSlots && size_ * 4 < slots_.size()) rehash(slots_for(size_));  // shrink
}

std::optional<size_t> HashMultiset::indexed_position(const Hash128& h) const {
  const size_t slot = find(h);
  if (slot == kNone) return std::nullopt;
  return position(slots_[slot]);
}

void HashMultiset::index(size_t i) {
  assert(i < size());
  const size_t slot = find(hashes_[i]);
  if (slot != kNone) {
    if (position(slots_[slot]) < i) slots_[slot] = seq(i);  // name the newest occurrence
    return;
  }
  if (full_after(1)) rehash(slots_for(size_ + 1));
  place(fold(hashes_[i]), seq(i));
  ++size_;
}

bool HashMultiset::full_after(size_t n) const { return (size_ + tombstones_ + n) * 4 > slots_.size() * 3; }

void HashMultiset::reserve_more(size_t n) {
  hashes_.reserve_more(n);
  if (full_after(n)) rehash(slots_for(size_ + n));  // up to n more distinct hashes, one rehash
}

void HashMultiset::unindex(const Hash128& h) {
  const size_t slot = find(h);
  if (slot != kNone) erase_slot(slot);
}

void HashMultiset::unindex_if_named(size_t i) {
  const size_t slot = slot_naming(hashes_[i], seq(i));
  if (slot != kNone) erase_slot(slot);
}

void HashMultiset::insert(size_t i, const Hash128* first, size_t n) {
  // Sequence numbers are 32-bit: the live occurrences must stay fewer (about
  // 64 GiB of hashes, far past any budget).
  assert(size() + n < std::numeric_limits<uint32_t>::max());
  const size_t old_size = size();
  hashes_.insert(i, first, n);
  if (size_ == 0) return;
  // Renumber the entries naming moved occurrences, from the top so that no
  // two entries ever hold one number; slot_naming matches by number, never by
  // reading a (possibly moved) neighbour's hash.
  for (size_t j = old_size + n; j-- > i + n;) {
    const size_t slot = slot_naming(hashes_[j], seq(j - n));
    if (slot != kNone) slots_[slot] = seq(j);
  }
}

void HashMultiset::pop_front() {
  assert(size() > 0);
  assert(slot_naming(hashes_[0], seq(0)) == kNone);  // the policy has dropped or kept the hash by now
  hashes_.pop_front();
  ++front_seq_;
}

void HashMultiset::clear() {
  hashes_.clear();
  std::vector<uint32_t>().swap(slots_);
  std::vector<uint8_t>().swap(ctrl_);
  size_ = 0;
  tombstones_ = 0;
  front_seq_ = 0;
}

}  // namespace qdt::impl
