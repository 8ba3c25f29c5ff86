#include "sim/sqlite_allocator.h"

#include <array>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

// gcc says so with a macro, clang with a feature test.
#if defined(__SANITIZE_ADDRESS__)
#define QDT_ADDRESS_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define QDT_ADDRESS_SANITIZER 1
#endif
#endif
#ifndef QDT_ADDRESS_SANITIZER
#define QDT_ADDRESS_SANITIZER 0
#endif

namespace qdt::sim {
namespace {

// Every block starts with a 16-byte header holding its class (or, for a
// block too large for any class, its usable size with the top bit set); the
// pointer SQLite gets follows it, 16-byte aligned as malloc's blocks are.
constexpr size_t kHeaderBytes = 16;
constexpr uint64_t kLargeFlag = uint64_t{1} << 63;
constexpr size_t kSmallStepBytes = 16;
constexpr size_t kSmallMaxBytes = 512;                            // classes 16, 32, ..., 512
constexpr size_t kSmallClasses = kSmallMaxBytes / kSmallStepBytes;  // 32
constexpr std::array<size_t, 4> kLargeClassBytes = {1024, 2048, 4096, 8192};
constexpr size_t kClasses = kSmallClasses + kLargeClassBytes.size();

struct FreeBlock {
  FreeBlock* next;
};

std::array<FreeBlock*, kClasses> free_lists{};

size_t class_bytes(size_t c) {
  return c < kSmallClasses ? (c + 1) * kSmallStepBytes : kLargeClassBytes[c - kSmallClasses];
}

// The class of a request of `bytes` (> 0), or kClasses when none holds it.
size_t class_of(size_t bytes) {
  if (bytes <= kSmallMaxBytes) return (bytes + kSmallStepBytes - 1) / kSmallStepBytes - 1;
  for (size_t i = 0; i < kLargeClassBytes.size(); ++i) {
    if (bytes <= kLargeClassBytes[i]) return kSmallClasses + i;
  }
  return kClasses;
}

uint64_t& header_of(void* p) { return *reinterpret_cast<uint64_t*>(static_cast<char*>(p) - kHeaderBytes); }

void* allocate(int n) {
  if (n <= 0) return nullptr;
  const size_t bytes = static_cast<size_t>(n);
  const size_t c = class_of(bytes);
  if (c == kClasses) {
    char* raw = static_cast<char*>(std::malloc(kHeaderBytes + bytes));
    if (raw == nullptr) return nullptr;
    *reinterpret_cast<uint64_t*>(raw) = kLargeFlag | bytes;
    return raw + kHeaderBytes;
  }
  if (FreeBlock* b = free_lists[c]) {
    free_lists[c] = b->next;
    return b;
  }
  char* raw = static_cast<char*>(std::malloc(kHeaderBytes + class_bytes(c)));
  if (raw == nullptr) return nullptr;
  *reinterpret_cast<uint64_t*>(raw) = c;
  return raw + kHeaderBytes;
}

void release(void* p) {
  if (p == nullptr) return;
  const uint64_t h = header_of(p);
  if ((h & kLargeFlag) != 0) {
    std::free(static_cast<char*>(p) - kHeaderBytes);
    return;
  }
  assert(h < kClasses);
  FreeBlock* b = static_cast<FreeBlock*>(p);
  b->next = free_lists[h];
  free_lists[h] = b;
}

int usable_size(void* p) {
  if (p == nullptr) return 0;
  const uint64_t h = header_of(p);
  return static_cast<int>((h & kLargeFlag) != 0 ? (h & ~kLargeFlag) : class_bytes(h));
}

void* reallocate(void* p, int n) {
  if (p == nullptr) return allocate(n);
  if (n <= 0) {
    release(p);
    return nullptr;
  }
  const int have = usable_size(p);
  const uint64_t h = header_of(p);
  // Still its class (or, large, no smaller than half): the block stays.
  if ((h & kLargeFlag) == 0 ? n <= have && class_of(static_cast<size_t>(n)) == h : n <= have && n >= have / 2) {
    return p;
  }
  void* q = allocate(n);
  if (q == nullptr) return nullptr;
  std::memcpy(q, p, static_cast<size_t>(have < n ? have : n));
  release(p);
  return q;
}

int roundup(int n) {
  if (n <= 0) return n;
  const size_t c = class_of(static_cast<size_t>(n));
  return c == kClasses ? n : static_cast<int>(class_bytes(c));
}

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
