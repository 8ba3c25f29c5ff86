#pragma once
// A heap for qdt's one-threaded process: size classes, no
// locking, no coalescing, no return to the system. Each class has pages of
// its own (64 KiB, aligned, from 2 MiB regions) and allocates from one page
// at a time: that page's freed blocks (last freed first), then its unused
// tail, then the next page with room. A campaign's steady state (the same
// shapes allocated and freed seed after seed) never reaches malloc, and a
// run's blocks stay close together (one free list per class would hand them
// out from every page the previous run had freed into, scattering them).
//
// It serves two seams: SQLite's allocator (sim/alloc/sqlite_allocator.h,
// SQLITE_CONFIG_MALLOC) and, in the qdt executable only, the global
// operator new and delete (sim/cli/operator_new.cpp), where malloc's
// general-purpose bins and consolidation cost more than a one-threaded
// process needs.
//
// Sizes are rounded up to a class (16-byte steps to 512, then eight classes
// per doubling to 8 KiB: at most an eighth wasted); larger blocks go to malloc and back. Every block is preceded by
// a 16-byte header naming its class (or its size, when large), so blocks are
// 16-byte aligned, as malloc's are.
//
// Not thread-safe, and not for AddressSanitizer builds, whose poisoning of
// freed blocks a recycling heap would hide (QDT_ADDRESS_SANITIZER).
#include <cstddef>

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

namespace qdt::sim::heap {

// The largest size class; larger blocks are malloc's.
constexpr size_t kLargestClassBytes = 8192;

// A block of at least `bytes` (> 0); nullptr when the system refuses memory.
void* allocate(size_t bytes);
// Returns a block from allocate() (nullptr is ignored).
void release(void* block);
// What the block holds: its class's size, or the large size asked.
size_t usable_size(const void* block);
// What allocate(bytes) would hold, said in advance.
size_t rounded_size(size_t bytes);

}  // namespace qdt::sim::heap
