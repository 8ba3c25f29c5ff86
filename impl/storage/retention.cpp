#include "impl/storage/retention.h"

#include <cassert>

namespace qdt::impl {

RetentionReport run_retention(RetentionPort& port, const std::optional<std::string>& queue,
                              uint64_t max_steps_per_partition) {
  RetentionReport report;
  for (const auto& [q, p] : port.partitions(queue)) {
    bool failed = false;
    try {
      report.segments_deleted += port.delete_expired_segments(q, p).deleted.size();
    } catch (const StorageError&) {
      failed = true;
    }
    for (uint64_t step = 0; !failed; ++step) {
      assert(step < max_steps_per_partition);
      PurgeStep result;
      try {
        result = port.purge_step(q, p);
      } catch (const StorageError&) {
        failed = true;
        break;
      }
      report.purge_steps++;
      report.sidecar_rows_purged += result.rows.size();
      if (!result.more || step + 1 >= max_steps_per_partition) break;
    }
    if (failed) report.failed_partitions++;
  }
  return report;
}

}  // namespace qdt::impl
