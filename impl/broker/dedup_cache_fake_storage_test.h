#pragma once
// Test helpers shared by the dedup cache's tests: small distinct hashes and a
// fake storage sidecar the cache hydrates from.
#include <functional>
#include <initializer_list>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "impl/broker/dedup_cache.h"

namespace qdt::impl::testing_cache {

inline Hash128 h(uint64_t n) {
  Hash128 out;
  for (int i = 0; i < 8; ++i) out.bytes[15 - i] = static_cast<uint8_t>(n >> (8 * i));
  out.bytes[0] = 0xAB;
  return out;
}

inline std::vector<Hash128> hs(std::initializer_list<uint64_t> ns) {
  std::vector<Hash128> out;
  for (uint64_t n : ns) out.push_back(h(n));
  return out;
}

// A fake storage sidecar: rows per partition, last_offset, a storage clock,
// and a log of every hydration read.
struct FakeStorage : HydrationSource {
  struct Part {
    std::vector<SidecarRow> rows;
    int64_t last_offset = -1;
  };
  struct Call {
    std::string queue, partition;
    int64_t after, since;
  };
  std::map<std::pair<std::string, std::string>, Part> parts;
  std::vector<Call> calls;
  int64_t now = 1'000'000'000;  // storage clock (ms)
  int fail_next = 0;
  std::function<void()> during_read;  // runs after the snapshot, as if the fiber were suspended

  // Commit K hashes as one segment; returns base.
  int64_t commit(const std::string& q, const std::string& p, const std::vector<Hash128>& hashes) {
    Part& part = parts[{q, p}];
    const int64_t base = part.last_offset + 1;
    part.last_offset += static_cast<int64_t>(hashes.size());
    part.rows.push_back(SidecarRow{base, part.last_offset, now, hashes});
    return base;
  }

  SidecarRead sidecar_rows(const std::string& q, const std::string& p, int64_t after, int64_t since) override {
    calls.push_back({q, p, after, since});
    if (fail_next > 0) {
      --fail_next;
      throw StorageError("hydration failed");
    }
    SidecarRead read;
    Part& part = parts[{q, p}];
    read.last_offset = part.last_offset;
    for (const SidecarRow& r : part.rows)
      if (r.end_offset > after && r.created_at_ms >= since) read.rows.push_back(r);
    if (during_read) {
      auto hook = std::move(during_read);
      during_read = nullptr;
      hook();
    }
    return read;
  }
};

}  // namespace qdt::impl::testing_cache
