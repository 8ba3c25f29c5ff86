#pragma once
// Broker ports with no latency, shared by the broker's tests and its
// benchmark: storage called directly at a fixed clock, ids from a counter.
#include <optional>
#include <string>
#include <vector>

#include "impl/broker/broker.h"
#include "impl/storage/sqlite/storage.h"

namespace qdt::impl::testing_broker {

// One clock for the broker and for storage (overrides both now_ms()).
struct FixedClock : BrokerClock, StorageClock {
  int64_t now = 1'767'225'600'000;
  int64_t now_ms() override { return now; }
};
struct CountingRandom : RandomSource {
  uint64_t n = 0;
  uint64_t next_u64() override { return ++n * 0x9e3779b97f4a7c15ULL; }
};
struct DirectStorage : StoragePort {
  explicit DirectStorage(FixedClock& c) : clock(&c), storage(c) {}
  FixedClock* clock = nullptr;
  Storage storage;
  int fail_next = 0;
  // Off: hydration throws, as a port that cannot serve it (the cache then
  // answers -1); the tests rely on that. The benchmark turns it on.
  bool serve_hydration = false;
  int pushes = 0;
  std::vector<int64_t> windows_assumed;  // per segment push
  PushResult push(const SegmentPush& segment) override {
    ++pushes;
    windows_assumed.push_back(segment.window_seconds_assumed);
    if (fail_next > 0) {
      --fail_next;
      throw StorageError("injected");
    }
    return storage.push(segment);
  }
  std::optional<CoveringSegment> covering_segment(const std::string& q, const std::string& p, int64_t o) override {
    return storage.covering_segment(q, p, o);
  }
  SidecarRead sidecar_rows(const std::string& q, const std::string& p, int64_t after, int64_t since) override {
    if (!serve_hydration) return StoragePort::sidecar_rows(q, p, after, since);
    return storage.read_sidecar(q, p, after, since);
  }
};

}  // namespace qdt::impl::testing_broker
