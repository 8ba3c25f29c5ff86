#pragma once
// SQLite's memory allocator for qdt's one-threaded process (issue 11).
// Debian builds SQLite without lookaside (SQLITE_OMIT_LOOKASIDE), so every
// small object a statement needs goes through malloc and free: SQLite's own
// allocations were ~11 % of the `items` workload's instructions. This one
// keeps freed blocks in per-size free lists and hands them out again: no
// locking, no coalescing, no return to the system (SQLite's peak, a few MB
// for an in-memory world, stays reserved).
//
// SQLite stays SQLite: this is its documented allocator seam
// (sqlite3_config(SQLITE_CONFIG_MALLOC)); every statement runs unchanged.
// Sizes are rounded up to a class (16-byte steps to 512, then powers of two to
// 8 KiB); larger blocks go to malloc and back. Blocks are 16-byte aligned
// (SQLite asks for 8).
//
// Not thread-safe: installed only with SQLITE_CONFIG_SINGLETHREAD (sim/main.cpp),
// and not at all under AddressSanitizer, whose poisoning of freed blocks a
// recycling allocator would hide.
#include <sqlite3.h>

namespace qdt::sim {

// The allocator's methods, for sqlite3_config and for tests.
const sqlite3_mem_methods& sqlite_allocator();

// Installs it; call before anything initializes SQLite. true when SQLite took it.
bool install_sqlite_allocator();

}  // namespace qdt::sim
