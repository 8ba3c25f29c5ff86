#include "sim/run_metrics.h"

#include "sim/repeat_metrics.h"

namespace qdt::sim {
namespace {

using json = nlohmann::json;

int64_t fused_segments(const World& world) {
  int64_t n = 0;
  for (uint32_t b = 0; b < world.broker_count(); ++b) n += static_cast<int64_t>(world.broker(b).stats().fused_segments);
  return n;
}

json cache_metrics(const World& world) {
  impl::DedupCache::Stats total;
  for (uint32_t b = 0; b < world.broker_count(); ++b) {
    const auto st = world.broker(b).cache().stats();
    total.answers += st.answers;
    total.vouched += st.vouched;
    total.hits += st.hits;
    total.hydrations_full += st.hydrations_full;
    total.hydrations_span += st.hydrations_span;
    total.hydration_failures += st.hydration_failures;
    total.rebuilds += st.rebuilds;
    total.evictions += st.evictions;
    total.declined += st.declined;
    total.disabled += st.disabled;
    total.bytes += st.bytes;
    total.hashes += st.hashes;
  }
  return {{"answers", total.answers},
          {"vouched", total.vouched},
          {"hits", total.hits},
          {"hydrations_full", total.hydrations_full},
          {"hydrations_span", total.hydrations_span},
          {"hydration_failures", total.hydration_failures},
          {"rebuilds", total.rebuilds},
          {"evictions", total.evictions},
          {"suppressed_partitions", total.declined},
          {"disabled_answers", total.disabled},
          {"cache_bytes", total.bytes},
          {"bytes_per_hash", total.hashes ? static_cast<double>(total.bytes) / static_cast<double>(total.hashes) : 0.0}};
}

}  // namespace

json run_metrics(World& world, int64_t timeouts, int64_t retries) {
  const history::History& h = world.history();
  int64_t items = 0, queued = 0, duplicates = 0, zero = 0, errors = 0, rejected = 0;
  for (const auto& r : h.requests) {
    rejected += r.rejected ? 1 : 0;
    for (const auto& item : r.responses) {
      ++items;
      if (item.status == "queued") ++queued;
      else if (item.status == "duplicate") {
        ++duplicates;
        if (item.message_id == history::kZeroUuid) ++zero;
      } else ++errors;
    }
  }
  int64_t pushes = 0, failed = 0, probes_run = 0, probes_skipped = 0, rows_scanned = 0, fetches = 0;
  for (const auto& e : h.events) {
    if (const auto* p = std::get_if<history::PushEvent>(&e)) {
      ++pushes;
      if (p->failed) {
        ++failed;
        continue;
      }
      if (p->probe_ran) ++probes_run;
      else if (p->window_seconds > 0 && p->last_offset_before >= 0) ++probes_skipped;
      rows_scanned += static_cast<int64_t>(p->rows_scanned);
    } else if (std::holds_alternative<history::FetchEvent>(e)) {
      ++fetches;
    }
  }
  const RepeatCounts repeats = count_repeats(h);
  return {{"requests", h.requests.size()},
          {"rejected_requests", rejected},
          {"items", items},
          {"queued", queued},
          {"duplicates", duplicates},
          {"zero_id_duplicates", zero},
          {"frames_stored", repeats.frames_stored},
          {"repeats_stored", repeats.repeats_stored},
          {"double_writes", repeats.double_writes},
          // Per run: a sweep's mean of it weighs every seed alike.
          {"double_writes_per_million_items",
           items ? 1e6 * static_cast<double>(repeats.double_writes) / static_cast<double>(items) : 0.0},
          {"errors", errors},
          {"timeouts", timeouts},
          {"retries", retries},
          {"requests_lost", world.network_stats().requests_lost},
          {"responses_lost", world.network_stats().responses_lost},
          {"duplicated_deliveries", world.network_stats().duplicated},
          {"late_responses", world.network_stats().late_responses},
          {"deliveries_lost_in_crash", world.network_stats().crashed},
          {"fused_segments", fused_segments(world)},
          {"cache", cache_metrics(world)},
          {"storage_pushes", pushes},
          {"storage_push_failures", failed},
          {"probes_run", probes_run},
          {"probes_skipped", probes_skipped},
          {"sidecar_rows_scanned", rows_scanned},
          {"covering_fetches", fetches},
          {"storage_statements", world.storage_side().statements},
          {"storage_busy_waits", world.storage_side().busy_waits},
          {"storage_faults_injected", world.storage_side().faults_injected},
          {"sidecar_rows", world.storage().sidecar_rows()},
          {"segments", world.storage().segment_count()},
          {"virtual_duration_ms", world.clock().now_ms()},
          {"scheduler_picks", world.scheduler_picks()},
          {"trace_lines", world.trace().lines()}};
}

}  // namespace qdt::sim
