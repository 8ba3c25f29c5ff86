#include "sim/alloc/free_list_heap.h"

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

// Every size up to the largest class is rounded up by at most 15 bytes to
// 512, and by less than an eighth of the size above it. SQLite's page-cache entries (4 KiB and a header) once took
// 8 KiB blocks; they take 4 608 now. Classes are multiples of 16 and grow
// with the size asked.
TEST(FreeListHeap, RoundingWastesAtMostAnEighth) {
  size_t previous = 0;
  for (size_t n = 1; n <= heap::kLargestClassBytes; ++n) {
    const size_t r = heap::rounded_size(n);
    ASSERT_GE(r, n) << n;
    ASSERT_EQ(r % 16, 0u) << n;
    ASSERT_GE(r, previous) << n;
    ASSERT_LE(r - n, n <= 512 ? size_t{15} : n / 8) << n;
    previous = r;
  }
  EXPECT_EQ(heap::rounded_size(4096 + 272), size_t{4608});
  EXPECT_EQ(heap::rounded_size(1024 + 8), size_t{1152});
  EXPECT_EQ(heap::rounded_size(heap::kLargestClassBytes), heap::kLargestClassBytes);
  EXPECT_EQ(heap::rounded_size(heap::kLargestClassBytes + 1), heap::kLargestClassBytes + 1);  // malloc's
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

// A class allocates from one page until it is full: blocks freed all over
// many pages (here round-robin across them, the order a run's teardown can
// take) are handed out page by page, not in the order they were freed. A
// single list handed the next 100 requests blocks from every one of the
// pages, and a run paid a cache miss for most of its allocations.
TEST(FreeListHeap, AClassAllocatesFromOnePageAtATime) {
  constexpr size_t kPage = 64 * 1024;
  auto page_of = [&](void* p) { return reinterpret_cast<uintptr_t>(p) / kPage; };
  std::vector<void*> blocks;
  for (int i = 0; i < 4000; ++i) blocks.push_back(heap::allocate(700));  // class 704: ~90 a page
  std::vector<std::vector<void*>> by_page;
  {
    std::vector<std::pair<uintptr_t, void*>> sorted;
    for (void* b : blocks) sorted.emplace_back(page_of(b), b);
    std::sort(sorted.begin(), sorted.end());
    for (size_t i = 0; i < sorted.size(); ++i) {
      if (i == 0 || sorted[i].first != sorted[i - 1].first) by_page.emplace_back();
      by_page.back().push_back(sorted[i].second);
    }
  }
  ASSERT_GE(by_page.size(), 40u);
  ASSERT_LE(by_page.size(), 48u);  // ~4000 / 90, and no page shared with another class
  // Free half of every page, round-robin across the pages.
  std::vector<void*> kept;
  for (size_t k = 0;; ++k) {
    bool any = false;
    for (auto& page : by_page) {
      if (k < page.size()) {
        any = true;
        if (k % 2 == 0) heap::release(page[k]);
        else kept.push_back(page[k]);
      }
    }
    if (!any) break;
  }
  std::vector<void*> again;
  for (int i = 0; i < 100; ++i) again.push_back(heap::allocate(700));
  std::vector<uintptr_t> pages;
  for (void* b : again) pages.push_back(page_of(b));
  std::sort(pages.begin(), pages.end());
  pages.erase(std::unique(pages.begin(), pages.end()), pages.end());
  EXPECT_LE(pages.size(), 4u);  // ~45 free blocks a page: three pages, four if the current one had few
  for (void* b : again) heap::release(b);
  for (void* b : kept) heap::release(b);
}

}  // namespace
}  // namespace qdt::sim
