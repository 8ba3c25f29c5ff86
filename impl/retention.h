#pragma once
// The retention loop (SPEC 2.8): per partition, delete expired segments, then
// purge the sidecar in bounded steps, each its own transaction, so pushes can
// interleave between steps. The port lets the world add latency and record.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "impl/storage.h"

namespace qdt::impl {

class RetentionPort {
 public:
  virtual ~RetentionPort() = default;
  virtual std::vector<std::pair<std::string, std::string>> partitions(const std::optional<std::string>& queue) = 0;
  virtual std::vector<SegmentSpan> delete_expired_segments(const std::string& queue, const std::string& partition) = 0;
  virtual PurgeStep purge_step(const std::string& queue, const std::string& partition) = 0;
};

struct RetentionReport {
  uint64_t segments_deleted = 0;
  uint64_t sidecar_rows_purged = 0;
  uint64_t purge_steps = 0;
};

// `max_steps_per_partition` bounds the purge loop (each step removes up to purge_batch rows).
RetentionReport run_retention(RetentionPort& port, const std::optional<std::string>& queue,
                              uint64_t max_steps_per_partition = 1'000'000);

}  // namespace qdt::impl
