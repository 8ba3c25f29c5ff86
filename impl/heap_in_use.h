#pragma once
// Bytes the process holds from malloc right now: what the cache's benchmark
// and its accounting test compare the cache's own charge against.
#include <malloc.h>

#include <cstddef>

#if defined(__SANITIZE_ADDRESS__)
// From the sanitizer runtime (sanitizer/allocator_interface.h, which only
// clang installs on Debian).
extern "C" size_t __sanitizer_get_current_allocated_bytes();
#endif

namespace qdt::impl {

// AddressSanitizer replaces malloc and leaves mallinfo2 at zero
// (scripts/test.sh --sanitize): ask its allocator instead. Otherwise glibc's
// in-use bytes: the arena's (headers included) plus the blocks it mmapped
// (those of 128 KiB and more, until a free raises the threshold), which
// uordblks alone leaves out.
inline size_t heap_in_use_bytes() {
#if defined(__SANITIZE_ADDRESS__)
  return __sanitizer_get_current_allocated_bytes();
#else
  const struct mallinfo2 info = mallinfo2();
  return info.uordblks + info.hblkhd;
#endif
}

}  // namespace qdt::impl
