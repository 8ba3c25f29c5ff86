#pragma once
// SQLite's memory allocator for qdt's one-threaded process. Debian builds
// SQLite without lookaside (SQLITE_OMIT_LOOKASIDE), so every small object a
// statement needs would go through malloc and free, a visible share of a
// push's cost. These methods hand SQLite's blocks to the free-list heap
// (sim/alloc/free_list_heap.h).
//
// SQLite stays SQLite: this is its documented allocator seam
// (sqlite3_config(SQLITE_CONFIG_MALLOC)); every statement runs unchanged.
//
// Not thread-safe: installed only with SQLITE_CONFIG_SINGLETHREAD (sim/cli/main.cpp),
// and not at all under AddressSanitizer.
#include <sqlite3.h>

namespace qdt::sim {

// The allocator's methods, for sqlite3_config and for tests.
const sqlite3_mem_methods& sqlite_allocator();

// Installs it; call before anything initializes SQLite. true when SQLite took it.
bool install_sqlite_allocator();

}  // namespace qdt::sim
