#include "sim/free_list_heap.h"

#include <array>
#include <cassert>
#include <cstdint>
#include <cstdlib>

namespace qdt::sim::heap {
namespace {

constexpr size_t kHeaderBytes = 16;
constexpr uint64_t kLargeFlag = uint64_t{1} << 63;
constexpr size_t kSmallStepBytes = 16;
constexpr size_t kSmallMaxBytes = 512;                            // classes 16, 32, ..., 512
constexpr size_t kSmallClasses = kSmallMaxBytes / kSmallStepBytes;  // 32
constexpr std::array<size_t, 4> kLargeClassBytes = {1024, 2048, 4096, kLargestClassBytes};
constexpr size_t kClasses = kSmallClasses + kLargeClassBytes.size();
constexpr size_t kChunkBytes = 256 * 1024;

struct FreeBlock {
  FreeBlock* next;
};

// Constant-initialized: operator new may run before any dynamic initializer.
constinit std::array<FreeBlock*, kClasses> free_lists{};
constinit char* chunk_next = nullptr;
constinit char* chunk_end = nullptr;

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

uint64_t header_of(const void* p) { return *reinterpret_cast<const uint64_t*>(static_cast<const char*>(p) - kHeaderBytes); }

// A never-used block of class `c`, header written, from the current chunk
// (the tail of a chunk too short for it is left unused).
void* carve(size_t c) {
  const size_t need = kHeaderBytes + class_bytes(c);
  if (chunk_next == nullptr || static_cast<size_t>(chunk_end - chunk_next) < need) {
    chunk_next = static_cast<char*>(std::malloc(kChunkBytes));
    if (chunk_next == nullptr) return nullptr;
    chunk_end = chunk_next + kChunkBytes;
  }
  char* raw = chunk_next;
  chunk_next += need;
  *reinterpret_cast<uint64_t*>(raw) = c;
  return raw + kHeaderBytes;
}

}  // namespace

void* allocate(size_t bytes) {
  assert(bytes > 0);
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
  return carve(c);
}

void release(void* block) {
  if (block == nullptr) return;
  const uint64_t h = header_of(block);
  if ((h & kLargeFlag) != 0) {
    std::free(static_cast<char*>(block) - kHeaderBytes);
    return;
  }
  assert(h < kClasses);
  FreeBlock* b = static_cast<FreeBlock*>(block);
  b->next = free_lists[h];
  free_lists[h] = b;
}

size_t usable_size(const void* block) {
  if (block == nullptr) return 0;
  const uint64_t h = header_of(block);
  return (h & kLargeFlag) != 0 ? static_cast<size_t>(h & ~kLargeFlag) : class_bytes(h);
}

size_t rounded_size(size_t bytes) {
  if (bytes == 0) return 0;
  const size_t c = class_of(bytes);
  return c == kClasses ? bytes : class_bytes(c);
}

}  // namespace qdt::sim::heap
