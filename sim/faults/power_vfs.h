#pragma once
// A disk that can lose power (docs/semantics.md §8, "storage that loses power"), as an
// SQLite VFS named "qdt-power" that wraps the default unix VFS, in the manner
// of FoundationDB's non-durable file and SQLite's crash tests.
//
// Every byte the real file holds is durable. A write goes to an in-memory
// overlay of its file (shared by every handle of that path) and reads see the
// overlay; xSync makes the file's overlay durable (written to the real file).
// power_loss() then models the crash of the machine:
//   - every unsynced write is dropped; with `torn`, the last unsynced write
//     of all keeps a seeded prefix (it was halfway to the platter);
//   - a file created and never synced vanishes (its directory entry was not
//     durable: the unix VFS syncs the directory at a journal's first sync);
//   - every open handle dies: it holds no lock any more and answers
//     SQLITE_IOERR to everything but xClose, so a connection that was open
//     at the crash can never write its stale view back.
// Deletions are durable at once: modelling an undone unlink would resurrect
// a committed transaction's rollback journal, the gap SQLite closes only with
// synchronous=EXTRA; qdt runs FULL and says so (docs/storage.md).
//
// The state is per process (SQLite's VFS registry is too), keyed by file
// path; a world uses its own folder and forget()s it when done. Thread-safe
// enough for one world per thread (a mutex guards the registry), though qdt
// runs one thread.
#include <cstdint>
#include <string>

#include "sim/base/rng.h"

namespace qdt::sim::power_vfs {

inline constexpr const char* kName = "qdt-power";

// Registers the VFS once (not as the default); returns kName.
const char* install();

struct LossReport {
  uint64_t writes_dropped = 0;   // unsynced writes forgotten
  uint64_t bytes_dropped = 0;
  uint64_t files_vanished = 0;   // created, never synced
  uint64_t torn_bytes_kept = 0;  // the torn prefix made durable (0: none)
  uint64_t handles_killed = 0;
};

// The power of every file under `folder` fails now. `rng` decides the torn
// prefix (drawn only when `torn` and there is an unsynced write).
LossReport power_loss(const std::string& folder, Rng& rng, bool torn);

// Drops the state of every file under `folder` (the world removed it).
void forget(const std::string& folder);

// Unsynced bytes currently held for `path` (tests).
uint64_t unsynced_bytes(const std::string& path);

}  // namespace qdt::sim::power_vfs
