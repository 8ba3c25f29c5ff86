#include "sim/alloc/sqlite_allocator.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace qdt::sim {
namespace {

// The contract SQLite relies on: a block holds at least what was asked,
// xSize says what it holds and xRoundup says it in advance, blocks are
// 8-byte aligned, realloc keeps the contents, and a freed block comes back.
TEST(SqliteAllocator, KeepsSqlitesContract) {
  const sqlite3_mem_methods& m = sqlite_allocator();
  for (int n : {1, 8, 15, 16, 17, 100, 511, 512, 513, 1000, 1024, 1025, 4096, 4200, 8192, 8193, 100000}) {
    void* p = m.xMalloc(n);
    ASSERT_NE(p, nullptr) << n;
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 8, 0u) << n;
    EXPECT_GE(m.xSize(p), n) << n;
    EXPECT_EQ(m.xSize(p), m.xRoundup(n)) << n;
    std::memset(p, 0xab, static_cast<size_t>(n));
    m.xFree(p);
  }
  EXPECT_EQ(m.xMalloc(0), nullptr);
  EXPECT_EQ(m.xSize(nullptr), 0);
  m.xFree(nullptr);
}

TEST(SqliteAllocator, ReallocKeepsTheContents) {
  const sqlite3_mem_methods& m = sqlite_allocator();
  char* p = static_cast<char*>(m.xMalloc(40));
  for (int i = 0; i < 40; ++i) p[i] = static_cast<char>(i);
  for (int n : {48, 300, 3000, 20000, 64, 40}) {
    p = static_cast<char*>(m.xRealloc(p, n));
    ASSERT_NE(p, nullptr);
    EXPECT_GE(m.xSize(p), n);
    for (int i = 0; i < 40; ++i) ASSERT_EQ(p[i], static_cast<char>(i)) << "after realloc to " << n;
  }
  EXPECT_EQ(m.xRealloc(p, 0), nullptr);  // frees
  void* fresh = m.xRealloc(nullptr, 10);
  EXPECT_GE(m.xSize(fresh), 10);
  m.xFree(fresh);
}

// A freed block of a class is what the next request of that class gets:
// the free list, not malloc, serves steady state.
TEST(SqliteAllocator, ReusesFreedBlocksOfTheSameClass) {
  const sqlite3_mem_methods& m = sqlite_allocator();
  std::vector<void*> held;
  for (int i = 0; i < 100; ++i) held.push_back(m.xMalloc(200));
  void* last = held.back();
  held.pop_back();
  m.xFree(last);
  EXPECT_EQ(m.xMalloc(193), last);  // same class (208 bytes)
  held.push_back(last);
  for (void* p : held) m.xFree(p);
}

}  // namespace
}  // namespace qdt::sim
