#include "sim/free_list_heap.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

namespace qdt::sim {
namespace {

// A block holds at least what was asked and says so in advance
// (rounded_size), is 16-byte aligned as malloc's blocks are, and large
// blocks hold exactly what was asked.
TEST(FreeListHeap, BlocksHoldWhatWasAskedAligned) {
  for (size_t n : {size_t{1}, size_t{15}, size_t{16}, size_t{17}, size_t{511}, size_t{512}, size_t{513}, size_t{4097},
                   heap::kLargestClassBytes, heap::kLargestClassBytes + 1, size_t{300'000}}) {
    void* p = heap::allocate(n);
    ASSERT_NE(p, nullptr) << n;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 16, 0u) << n;
    EXPECT_GE(heap::usable_size(p), n) << n;
    EXPECT_EQ(heap::usable_size(p), heap::rounded_size(n)) << n;
    std::memset(p, 0x5a, heap::usable_size(p));  // the whole block is the caller's
    heap::release(p);
  }
  EXPECT_EQ(heap::usable_size(nullptr), 0u);
  heap::release(nullptr);
}

// Blocks carved from successive chunks never overlap, and what one holds
// survives writes to all the others.
TEST(FreeListHeap, LiveBlocksNeverOverlap) {
  std::vector<std::pair<char*, size_t>> live;
  for (size_t i = 0; i < 20'000; ++i) {  // ~2.5 MiB: ten chunks and more
    const size_t n = 1 + (i * 37) % 200;
    char* p = static_cast<char*>(heap::allocate(n));
    ASSERT_NE(p, nullptr);
    std::memset(p, static_cast<int>(i & 0xff), n);
    live.emplace_back(p, n);
  }
  std::vector<std::pair<char*, size_t>> sorted = live;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 1; i < sorted.size(); ++i) ASSERT_LE(sorted[i - 1].first + sorted[i - 1].second, sorted[i].first);
  for (size_t i = 0; i < live.size(); ++i) {
    const auto [p, n] = live[i];
    ASSERT_TRUE(std::all_of(p, p + n, [&](char c) { return c == static_cast<char>(i & 0xff); })) << i;
  }
  for (const auto& [p, n] : live) heap::release(p);
}

// Steady state never reaches malloc: a freed block is what the next request
// of its class gets, whichever size in the class is asked.
TEST(FreeListHeap, AFreedBlockServesTheNextRequestOfItsClass) {
  void* a = heap::allocate(200);
  void* b = heap::allocate(200);
  heap::release(a);
  EXPECT_EQ(heap::allocate(193), a);  // same class (208 bytes)
  heap::release(b);
  void* other = heap::allocate(100);  // another class: not b
  EXPECT_NE(other, b);
  EXPECT_EQ(heap::allocate(208), b);
  heap::release(a);
  heap::release(b);
  heap::release(other);
}

}  // namespace
}  // namespace qdt::sim
