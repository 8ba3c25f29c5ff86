#pragma once
// The retention loop (docs/semantics.md §2.8): per partition, delete expired segments, then
// purge the sidecar in bounded steps, each its own transaction, so pushes can
// interleave between steps. The port lets the world add latency and record.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "impl/storage/storage_types.h"

namespace qdt::impl {

class RetentionPort {
 public:
  virtual ~RetentionPort() = default;
  virtual std::vector<std::pair<std::string, std::string>> partitions(const std::optional<std::string>& queue) = 0;
  virtual RetentionDelete delete_expired_segments(const std::string& queue, const std::string& partition) = 0;
  virtual PurgeStep purge_step(const std::string& queue, const std::string& partition) = 0;
};

struct RetentionReport {
  uint64_t segments_deleted = 0;
  uint64_t sidecar_rows_purged = 0;
  uint64_t purge_steps = 0;
  uint64_t failed_partitions = 0;  // a step failed in storage: that partition waits for the next pass
};

// `max_steps_per_partition` bounds the purge loop (each step removes up to
// purge_batch rows). A StorageError in one partition's steps ends that
// partition's pass (nothing of the failed step committed) and the loop goes on
// with the next; listing the partitions failing fails the pass.
RetentionReport run_retention(RetentionPort& port, const std::optional<std::string>& queue,
                              uint64_t max_steps_per_partition = 1'000'000);

}  // namespace qdt::impl
