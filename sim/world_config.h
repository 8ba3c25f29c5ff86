#pragma once
// The world's settings (scenario `world`), with the defaults of SPEC 3.
// Probabilities are integer parts per million, so runs reproduce everywhere.
#include <cstdint>
#include <string>

#include "impl/variant.h"

namespace qdt::sim {

// Virtual time 0 is this Unix millisecond (2026-01-01T00:00:00Z), so message
// ids carry plausible UUIDv7 timestamps.
inline constexpr int64_t kEpochUnixMs = 1'767'225'600'000;
inline constexpr uint32_t kMaxBrokers = 16;

struct NetworkConfig {
  int64_t latency_ms_min = 1;
  int64_t latency_ms_max = 5;
  uint32_t loss_request_ppm = 0;
  uint32_t loss_response_ppm = 0;
  uint32_t duplicate_ppm = 0;
};

struct StorageConfig {
  std::string path = ":memory:";
  int64_t purge_batch = 1000;
  // One-way delay of a storage round trip, each way.
  int64_t latency_ms_min = 1;
  int64_t latency_ms_max = 2;
};

struct CacheConfig {
  bool enabled = true;
  int64_t budget_bytes = int64_t{512} << 20;
};

// A producer's retry policy (SPEC 2.12): wait `timeout_ms` for a response,
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
  bool fusion = true;  // SPEC 2.5 layer 2: concurrent requests fuse per partition
  CacheConfig cache;
  NetworkConfig network;
  StorageConfig storage;
  impl::Variant variant = impl::Variant::none;  // SPEC 7; never from a scenario file
};

}  // namespace qdt::sim
