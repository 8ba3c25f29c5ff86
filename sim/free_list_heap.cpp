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
// Above 512 bytes, eight classes per doubling (576, 640, ..., 1024, 1152,
// ..., 8192): a request wastes at most an eighth. Powers of two alone put
// SQLite's 4 360-byte allocations (a 4 KiB page and its header) in 8 KiB
// blocks and a batch of ten validated push items (1 040 bytes) in 2 KiB
// ones, and the untouched halves cost page faults (first touches) all the
// same as they spread the used bytes over twice the pages.
constexpr size_t kStepsPerDoubling = 8;
constexpr size_t kDoublings = 4;  // 512 -> 8192
constexpr size_t kLargeClasses = kStepsPerDoubling * kDoublings;
constexpr size_t kClasses = kSmallClasses + kLargeClasses;
static_assert(kSmallMaxBytes << kDoublings == kLargestClassBytes);
constexpr size_t kChunkBytes = 256 * 1024;

struct FreeBlock {
  FreeBlock* next;
};

// Constant-initialized: operator new may run before any dynamic initializer.
constinit std::array<FreeBlock*, kClasses> free_lists{};
constinit char* chunk_next = nullptr;
constinit char* chunk_end = nullptr;

size_t class_bytes(size_t c) {
  if (c < kSmallClasses) return (c + 1) * kSmallStepBytes;
  const size_t doubling = (c - kSmallClasses) / kStepsPerDoubling;  // 0: (512, 1024]
  const size_t step = (kSmallMaxBytes << doubling) / kStepsPerDoubling;
  return (kSmallMaxBytes << doubling) + ((c - kSmallClasses) % kStepsPerDoubling + 1) * step;
}

// The class of a request of `bytes` (> 0), or kClasses when none holds it.
size_t class_of(size_t bytes) {
  if (bytes <= kSmallMaxBytes) return (bytes + kSmallStepBytes - 1) / kSmallStepBytes - 1;
  if (bytes > kLargestClassBytes) return kClasses;
  size_t doubling = 0;
  while ((kSmallMaxBytes << (doubling + 1)) < bytes) ++doubling;
  const size_t base = kSmallMaxBytes << doubling;
  const size_t step = base / kStepsPerDoubling;
  return kSmallClasses + doubling * kStepsPerDoubling + (bytes - base + step - 1) / step - 1;
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
