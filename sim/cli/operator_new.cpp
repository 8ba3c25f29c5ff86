// The qdt executable's global operator new and delete: its
// objects (JSON documents, history records, strings, fibers' bookkeeping)
// come from the free-list heap (sim/alloc/free_list_heap.h) instead of malloc.
// qdt is one thread (fibers; --jobs forks processes), so the heap needs no
// locking. Linked into the qdt executable only, never into a library: tests
// and benchmarks keep the system's allocator. Not under AddressSanitizer,
// which must see every allocation to check it. The over-aligned forms
// (std::align_val_t) are left to the standard library, which pairs them with
// its own aligned delete.
#include <malloc.h>

#include <cstddef>
#include <new>

#include "sim/alloc/free_list_heap.h"

#if !QDT_ADDRESS_SANITIZER

namespace {

void* allocate_or_throw(std::size_t bytes) {
  // operator new(0) must return a distinct pointer.
  void* p = qdt::sim::heap::allocate(bytes == 0 ? 1 : bytes);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

// Blocks above the heap's largest class (the checkers' tables, a history's
// vectors, SQLite's page-cache slabs) stay malloc's, and malloc would hand
// each one over 128 KiB to the kernel on free and trim the heap's top when
// it shrinks: the next one faults its pages in again. A vector doubling
// faulted every page it moved to; page faults were a quarter of the `items`
// run's wall time. So malloc keeps what it was given (a process's peak is
// what it would reach anyway) and maps only blocks over 32 MiB alone.
const bool kMallocKeepsMemory = [] {
  mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
  mallopt(M_TRIM_THRESHOLD, 1024 * 1024 * 1024);
  return true;
}();

}  // namespace

void* operator new(std::size_t bytes) { return allocate_or_throw(bytes); }
void* operator new[](std::size_t bytes) { return allocate_or_throw(bytes); }
void* operator new(std::size_t bytes, const std::nothrow_t&) noexcept {
  return qdt::sim::heap::allocate(bytes == 0 ? 1 : bytes);
}
void* operator new[](std::size_t bytes, const std::nothrow_t&) noexcept {
  return qdt::sim::heap::allocate(bytes == 0 ? 1 : bytes);
}
void operator delete(void* p) noexcept { qdt::sim::heap::release(p); }
void operator delete[](void* p) noexcept { qdt::sim::heap::release(p); }
void operator delete(void* p, std::size_t) noexcept { qdt::sim::heap::release(p); }
void operator delete[](void* p, std::size_t) noexcept { qdt::sim::heap::release(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { qdt::sim::heap::release(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { qdt::sim::heap::release(p); }

#endif
