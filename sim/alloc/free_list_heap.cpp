#include "sim/alloc/free_list_heap.h"

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
// Blocks of a class live in pages of their own: a page is 64 KiB, aligned,
// so a block finds its page by masking its address; pages come from 2 MiB
// regions. A class allocates from one page at a time (its free blocks, then
// its never-used tail) and moves to another page only when that one is
// full. One global list per class would scatter a run's blocks over every
// page the last run freed into, and locality, not instructions, is the
// cost. Within a page, freed blocks are reused last freed first.
constexpr size_t kPageBytes = 64 * 1024;
constexpr size_t kRegionBytes = 2 * 1024 * 1024;

struct FreeBlock {
  FreeBlock* next;
};

// At the start of every page; the page's blocks follow it (each with its
// 16-byte header), so the first block is 16-byte aligned.
struct alignas(16) Page {
  FreeBlock* free;   // freed blocks of this page
  char* unused;      // the first never-used block's header
  char* end;
  Page* next_open;   // the next page of the class with room, while listed
  bool listed;       // the class's current page, or in its list of pages with room
};
static_assert(sizeof(Page) % 16 == 0 && sizeof(Page) <= 48);

// Constant-initialized: operator new may run before any dynamic initializer.
constinit std::array<Page*, kClasses> current_page{};  // where a class allocates
constinit std::array<Page*, kClasses> open_pages{};    // other pages of the class with room
constinit char* region_next = nullptr;
constinit char* region_end = nullptr;

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

Page* page_of(const void* block) {
  return reinterpret_cast<Page*>(reinterpret_cast<uintptr_t>(block) & ~uintptr_t{kPageBytes - 1});
}

// A fresh page for class `c`, from the current region (a new region when it
// is used up); nullptr when the system refuses memory.
Page* new_page(size_t c) {
  if (region_next == region_end) {
    region_next = static_cast<char*>(std::aligned_alloc(kPageBytes, kRegionBytes));
    if (region_next == nullptr) return nullptr;
    region_end = region_next + kRegionBytes;
  }
  Page* page = reinterpret_cast<Page*>(region_next);
  region_next += kPageBytes;
  const size_t need = kHeaderBytes + class_bytes(c);
  char* first = reinterpret_cast<char*>(page) + sizeof(Page);
  page->free = nullptr;
  page->unused = first;
  page->end = first + (kPageBytes - sizeof(Page)) / need * need;
  page->next_open = nullptr;
  page->listed = true;
  return page;
}

// A block of class `c` from `page`, or nullptr when the page is full.
void* take(Page* page, size_t c) {
  if (FreeBlock* b = page->free) {
    page->free = b->next;
    return b;
  }
  if (page->unused == page->end) return nullptr;
  char* raw = page->unused;
  page->unused += kHeaderBytes + class_bytes(c);
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
  for (;;) {
    if (Page* page = current_page[c]) {
      if (void* b = take(page, c)) return b;
      page->listed = false;  // full: listed again when a block of it is freed
    }
    Page* next = open_pages[c];
    if (next != nullptr) {
      open_pages[c] = next->next_open;
    } else {
      next = new_page(c);
      if (next == nullptr) return nullptr;
    }
    current_page[c] = next;
  }
}

void release(void* block) {
  if (block == nullptr) return;
  const uint64_t h = header_of(block);
  if ((h & kLargeFlag) != 0) {
    std::free(static_cast<char*>(block) - kHeaderBytes);
    return;
  }
  assert(h < kClasses);
  Page* page = page_of(block);
  FreeBlock* b = static_cast<FreeBlock*>(block);
  b->next = page->free;
  page->free = b;
  if (!page->listed) {  // it was full: it has room again
    page->listed = true;
    page->next_open = open_pages[h];
    open_pages[h] = page;
  }
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
