#include "sim/alloc/sqlite_allocator.h"

#include <cstddef>
#include <cstring>

#include "sim/alloc/free_list_heap.h"

namespace qdt::sim {
namespace {

void* allocate(int n) { return n <= 0 ? nullptr : heap::allocate(static_cast<size_t>(n)); }

void release(void* p) { heap::release(p); }

int usable_size(void* p) { return static_cast<int>(heap::usable_size(p)); }

void* reallocate(void* p, int n) {
  if (p == nullptr) return allocate(n);
  if (n <= 0) {
    release(p);
    return nullptr;
  }
  const size_t have = heap::usable_size(p);
  const size_t want = static_cast<size_t>(n);
  // Still its class (or, large, no smaller than half): the block stays.
  if (have <= heap::kLargestClassBytes ? heap::rounded_size(want) == have : want <= have && want >= have / 2) return p;
  void* q = allocate(n);
  if (q == nullptr) return nullptr;
  std::memcpy(q, p, have < want ? have : want);
  release(p);
  return q;
}

int roundup(int n) { return n <= 0 ? n : static_cast<int>(heap::rounded_size(static_cast<size_t>(n))); }

int init(void*) { return SQLITE_OK; }
void shutdown(void*) {}

const sqlite3_mem_methods kMethods = {allocate, release, reallocate, usable_size, roundup, init, shutdown, nullptr};

}  // namespace

const sqlite3_mem_methods& sqlite_allocator() { return kMethods; }

bool install_sqlite_allocator() {
#if QDT_ADDRESS_SANITIZER
  return false;
#else
  return sqlite3_config(SQLITE_CONFIG_MALLOC, &kMethods) == SQLITE_OK;
#endif
}

}  // namespace qdt::sim
