#include "impl/retention.h"

#include <cassert>

namespace qdt::impl {

RetentionReport run_retention(RetentionPort& port, const std::optional<std::string>& queue,
                              uint64_t max_steps_per_partition) {
  RetentionReport report;
  for (const auto& [q, p] : port.partitions(queue)) {
    report.segments_deleted += port.delete_expired_segments(q, p).size();
    for (uint64_t step = 0;; ++step) {
      assert(step < max_steps_per_partition);
      const PurgeStep result = port.purge_step(q, p);
      report.purge_steps++;
      report.sidecar_rows_purged += result.rows.size();
      if (!result.more || step + 1 >= max_steps_per_partition) break;
    }
  }
  return report;
}

}  // namespace qdt::impl
