#include "impl/broker/hash_multiset.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <random>
#include <set>
#include <vector>

namespace qdt::impl {
namespace {

Hash128 h(uint64_t n) {
  Hash128 out;
  for (int i = 0; i < 8; ++i) out.bytes[15 - i] = static_cast<uint8_t>(n >> (8 * i));
  return out;
}

// Hashes that collide in the table: the same top 10 bits of the fold (the
// same home slot, or the next one, in any table of up to 1024 slots) and the
// same 7-bit tag, so every probe among them reads the stored hash.
std::vector<Hash128> colliding(size_t count) {
  std::vector<Hash128> out;
  const uint64_t want = HashMultiset::fold(h(0));
  for (uint64_t n = 1; out.size() < count; ++n) {
    const uint64_t f = HashMultiset::fold(h(n));
    if ((f >> 54) == (want >> 54) && (f & 0x7f) == (want & 0x7f)) out.push_back(h(n));
  }
  return out;
}

void add(HashMultiset& set, size_t i, const std::vector<Hash128>& hashes) {
  set.insert(i, hashes.data(), hashes.size());
  for (size_t k = i; k < i + hashes.size(); ++k) set.index(k);
}

// The cache's two removal rules (dedup_cache_policy.cpp), on the front occurrence.
void pop_counted(HashMultiset& set) {
  set.unindex_if_named(0);
  set.pop_front();
}
void pop_plain(HashMultiset& set) {
  set.unindex(set[0]);
  set.pop_front();
}

TEST(HashMultiset, CountsOccurrencesWithoutCounts) {
  HashMultiset set;
  add(set, 0, {h(1), h(2), h(1)});
  EXPECT_EQ(set.size(), 3u);
  EXPECT_EQ(set.distinct(), 2u);
  EXPECT_EQ(set.indexed_position(h(1)), 2u);  // the newest occurrence
  pop_counted(set);                           // the older h(1) leaves: another remains
  EXPECT_TRUE(set.contains(h(1)));
  pop_counted(set);
  EXPECT_FALSE(set.contains(h(2)));
  EXPECT_EQ(set.indexed_position(h(1)), 0u);
  pop_counted(set);
  EXPECT_FALSE(set.contains(h(1)));
  EXPECT_EQ(set.distinct(), 0u);
  EXPECT_EQ(set.slot_capacity(), 0u);  // an empty index gives its table back
}

TEST(HashMultiset, PlainRemovalTakesTheHashWithTheFirstOccurrence) {
  HashMultiset set;
  add(set, 0, {h(1), h(2), h(1)});
  pop_plain(set);
  EXPECT_FALSE(set.contains(h(1)));  // an occurrence remains, the member does not
  EXPECT_EQ(set.size(), 2u);
  add(set, 2, {h(1)});
  EXPECT_EQ(set.indexed_position(h(1)), 2u);
  pop_plain(set);  // h(2)
  pop_plain(set);  // the older h(1) leaves and takes the member with it
  EXPECT_FALSE(set.contains(h(1)));
}

TEST(HashMultiset, InsertBelowMovesTheNamedOccurrences) {
  HashMultiset set;
  add(set, 0, {h(1), h(2), h(3)});
  add(set, 1, {h(4), h(3)});  // [1, 4, 3, 2, 3]: the old h(3) is still the newest
  EXPECT_EQ(set.indexed_position(h(2)), 3u);
  EXPECT_EQ(set.indexed_position(h(3)), 4u);
  EXPECT_EQ(set.indexed_position(h(4)), 1u);
  add(set, 0, {h(3)});  // below everything
  EXPECT_EQ(set.indexed_position(h(3)), 5u);
  EXPECT_EQ(set.indexed_position(h(1)), 1u);
  for (int i = 0; i < 5; ++i) pop_counted(set);
  EXPECT_TRUE(set.contains(h(3)));
  EXPECT_EQ(set.distinct(), 1u);
}

TEST(HashMultiset, TombstonesAreReused) {
  const std::vector<Hash128> c = colliding(4);
  HashMultiset set;
  add(set, 0, {c[0], c[1], c[2]});  // one probe chain
  const size_t slots = set.slot_capacity();
  set.unindex(c[1]);  // in the middle of the chain: its slot must stay passable
  EXPECT_EQ(set.tombstones(), 1u);
  EXPECT_TRUE(set.contains(c[2]));  // found past the tombstone
  EXPECT_FALSE(set.contains(c[1]));
  add(set, 3, {c[3]});  // takes the tombstone
  EXPECT_EQ(set.tombstones(), 0u);
  EXPECT_EQ(set.slot_capacity(), slots);
  for (size_t i : {0, 2, 3}) EXPECT_TRUE(set.contains(c[i]));
}

TEST(HashMultiset, GrowsAndShrinksWithinItsLoad) {
  HashMultiset set;
  for (uint64_t n = 0; n < 10'000; ++n) {
    add(set, set.size(), {h(n)});
    ASSERT_LE((set.distinct() + set.tombstones()) * 4, set.slot_capacity() * 3);
  }
  EXPECT_GE(set.distinct() * 5, set.slot_capacity() * 2);  // no power-of-two jump: load >= 2/5
  const size_t grown = set.slot_capacity();
  for (uint64_t n = 0; n < 9'990; ++n) pop_counted(set);
  EXPECT_EQ(set.distinct(), 10u);
  EXPECT_LT(set.slot_capacity(), grown / 100);
  for (uint64_t n = 9'990; n < 10'000; ++n) EXPECT_TRUE(set.contains(h(n)));
  EXPECT_LT(set.hash_capacity(), 100u);  // the trimmed buffer gave its memory back too
}

// Random inserts (anywhere, in batches) and front removals against a plain
// model, both removal rules. The hashes repeat (a few hundred values, a dozen
// colliding in home and tag) and the size wanders over 0..~400, so the table
// grows, shrinks, fills with tombstones and purges them.
void churn(bool counted, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<Hash128> universe = colliding(12);
  for (uint64_t n = 100; n < 400; ++n) universe.push_back(h(n));
  HashMultiset set;
  std::deque<Hash128> occurrences;
  std::set<Hash128> members;  // plain rule only
  auto check = [&](const Hash128& x) {
    const auto newest = std::find(occurrences.rbegin(), occurrences.rend(), x);
    const bool member = counted ? newest != occurrences.rend() : members.contains(x);
    EXPECT_EQ(set.contains(x), member);
    if (counted && member) {
      EXPECT_EQ(set.indexed_position(x), static_cast<size_t>(occurrences.rend() - newest) - 1);
    }
    return member;
  };
  for (int step = 0; step < 20'000; ++step) {
    const bool grow = (step / 2000) % 2 == 0 ? rng() % 10 < 6 : rng() % 10 < 4;  // phases of growth and decay
    std::vector<Hash128> touched;
    if (grow || occurrences.empty()) {
      std::vector<Hash128> batch(1 + rng() % 3);
      for (Hash128& x : batch) x = universe[rng() % (rng() % 4 == 0 ? 12 : universe.size())];
      const size_t at = rng() % (occurrences.size() + 1);
      add(set, at, batch);
      occurrences.insert(occurrences.begin() + static_cast<std::ptrdiff_t>(at), batch.begin(), batch.end());
      members.insert(batch.begin(), batch.end());
      touched = batch;
    } else {
      touched.push_back(occurrences.front());
      members.erase(occurrences.front());
      occurrences.pop_front();
      counted ? pop_counted(set) : pop_plain(set);
    }
    ASSERT_EQ(set.size(), occurrences.size());
    ASSERT_LE((set.distinct() + set.tombstones()) * 4, set.slot_capacity() * 3);
    for (const Hash128& x : touched) check(x);
    if (step % 250 == 0 || testing::Test::HasFailure()) {
      size_t distinct = 0;
      for (const Hash128& x : universe) distinct += check(x);
      ASSERT_EQ(set.distinct(), distinct) << "step " << step;
      for (size_t i = 0; i < occurrences.size(); ++i) ASSERT_EQ(set[i], occurrences[i]) << "step " << step;
    }
    if (step == 10'000) {
      set.clear();
      occurrences.clear();
      members.clear();
    }
  }
}

TEST(HashMultiset, ChurnCounted) {
  for (uint32_t seed = 1; seed <= 3; ++seed) churn(true, seed);
}

TEST(HashMultiset, ChurnPlain) {
  for (uint32_t seed = 1; seed <= 3; ++seed) churn(false, seed);
}

}  // namespace
}  // namespace qdt::impl
