#pragma once
// The world's settings (scenario `world`), with the defaults of docs/semantics.md §3.
// Probabilities are integer parts per million, so runs reproduce everywhere.
#include <cstdint>
#include <string>

#include "impl/variant.h"
#include "sim/schedule/schedule_config.h"

namespace qdt::sim {

// Virtual time 0 is this Unix millisecond (2026-01-01T00:00:00Z), so message
// ids carry plausible UUIDv7 timestamps.
inline constexpr int64_t kEpochUnixMs = 1'767'225'600'000;
inline constexpr uint32_t kMaxBrokers = 16;
inline constexpr int64_t kMaxDeclineCooldownFlushes = 1'000'000;

struct NetworkConfig {
  int64_t latency_ms_min = 1;
  int64_t latency_ms_max = 5;
  uint32_t loss_request_ppm = 0;
  uint32_t loss_response_ppm = 0;
  uint32_t duplicate_ppm = 0;
};

// The page size of every in-memory database a world or a bench floor makes
// (file databases keep SQLite's 4096, so power-loss writes stay as they
// were). SQLite copies a page whole when it rereads it after another
// connection's commit, journals it and writes it back, so smaller pages
// copy less; below 2048 a batch's segment rows start to overflow. No answer,
// trace or digest depends on it.
inline constexpr int64_t kMemoryPageBytes = 2048;

// Which engine answers the world's storage (docs/semantics.md §9): set by the
// command line (--storage), never by a scenario file, so one file runs on both.
enum class StorageEngineKind : uint8_t { sqlite, postgres };

struct StorageConfig {
  StorageEngineKind engine = StorageEngineKind::sqlite;
  // ":memory:" (one in-memory database shared by every connection through
  // SQLite's memdb VFS) or a file name: the file then lives in a fresh
  // per-run temporary folder, so runs never see each other's rows.
  std::string path = ":memory:";
  int64_t purge_batch = 1000;
  // One-way delay of a storage round trip, each way; with `interleave`, every
  // SQL statement of a transaction is such a round trip (docs/semantics.md §2.4).
  int64_t latency_ms_min = 1;
  int64_t latency_ms_max = 2;
  // Statement-level interleaving: other fibers may run between two statements
  // of one transaction. false: each storage call runs atomically (a world
  // switch that shows the interleaving is what catches probe-outside-lock).
  bool interleave = true;
  // File storage only: PRAGMA synchronous, "full" (the default: a COMMIT is
  // durable when it returns), "normal" or "off" (commits may be lost at a
  // power loss, crash_storage). Memory storage has nothing to sync.
  std::string synchronous = "full";
};

struct CacheConfig {
  bool enabled = true;
  int64_t budget_bytes = int64_t{512} << 20;
  int64_t decline_cooldown_flushes = 64;  // impl::CacheConfig's default
};

// A producer's retry policy (docs/semantics.md §2.12): wait `timeout_ms` for a response,
// try at most `attempts` times, sleep `backoff_ms` between attempts. Without
// one in the scenario a producer waits 10 s once.
struct RetryPolicy {
  int64_t timeout_ms = 10'000;
  uint32_t attempts = 1;
  int64_t backoff_ms = 0;
};

struct WorldConfig {
  uint64_t seed = 1;
  uint32_t brokers = 1;
  bool fusion = true;  // docs/semantics.md §2.5 layer 2: concurrent requests fuse per partition
  bool bundles = false;  // docs/semantics.md §9.5: several partitions' segments in one transaction (PostgreSQL)
  CacheConfig cache;
  NetworkConfig network;
  StorageConfig storage;
  impl::Variant variant = impl::Variant::none;  // docs/semantics.md §7: world.variant, or --variant
  ScheduleConfig schedule;  // world.schedule, or --schedule
  // Checked mode (impl::StorageOptions::checked_mode) on the brokers'
  // connections: cache-transparency's read-only re-probe. Off only for
  // throughput figures (qdt bench, qdt check --unchecked): the trace does not
  // record the re-probe, so hashes agree either way.
  bool checked_mode = true;
};

}  // namespace qdt::sim
