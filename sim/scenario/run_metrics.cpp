#include "sim/scenario/run_metrics.h"

#include <array>
#include <iterator>
#include <utility>

#include "properties/evidence.h"
#include "sim/scenario/repeat_metrics.h"

namespace qdt::sim {
namespace {

using json = nlohmann::json;

int64_t fused_segments(const World& world) {
  int64_t n = 0;
  for (uint32_t b = 0; b < world.broker_count(); ++b) n += static_cast<int64_t>(world.broker(b).stats().fused_segments);
  return n;
}

json cache_metrics(const World& world) {
  // Each counter summed over the brokers, under its name in the metrics.
  using Field = uint64_t impl::DedupCache::Stats::*;
  static constexpr std::pair<const char*, Field> kCounters[] = {
      {"answers", &impl::DedupCache::Stats::answers},
      {"vouched", &impl::DedupCache::Stats::vouched},
      {"hits", &impl::DedupCache::Stats::hits},
      {"hydrations_full", &impl::DedupCache::Stats::hydrations_full},
      {"hydrations_span", &impl::DedupCache::Stats::hydrations_span},
      {"hydration_failures", &impl::DedupCache::Stats::hydration_failures},
      {"rebuilds", &impl::DedupCache::Stats::rebuilds},
      {"evictions", &impl::DedupCache::Stats::evictions},
      {"suppressed_partitions", &impl::DedupCache::Stats::declined},
      {"disabled_answers", &impl::DedupCache::Stats::disabled},
      {"cache_bytes", &impl::DedupCache::Stats::bytes}};
  std::array<uint64_t, std::size(kCounters)> sums{};
  uint64_t hashes = 0;
  impl::ForeignCacheCaller::Stats foreign;
  bool foreign_ran = false;
  for (uint32_t b = 0; b < world.broker_count(); ++b) {
    // A broker on a foreign cache leaves its own idle: the module's calls are what it counts.
    if (const impl::ForeignCacheCaller* f = world.broker(b).foreign_cache()) {
      foreign_ran = true;
      const impl::ForeignCacheCaller::Stats& st = f->stats();
      foreign.calls += st.calls;
      foreign.answers += st.answers;
      foreign.vouched += st.vouched;
      foreign.local_duplicates += st.local_duplicates;
      foreign.hydrations += st.hydrations;
      foreign.hydration_failures += st.hydration_failures;
      continue;
    }
    const impl::DedupCache::Stats st = world.broker(b).cache().stats();
    for (size_t i = 0; i < sums.size(); ++i) sums[i] += st.*kCounters[i].second;
    hashes += st.hashes;
  }
  json out = json::object();
  for (size_t i = 0; i < sums.size(); ++i) out[kCounters[i].first] = sums[i];
  if (foreign_ran) {
    // Under the built-in cache's names where they mean the same; the module's evictions are private to it.
    out["answers"] = out["answers"].get<uint64_t>() + foreign.answers;
    out["vouched"] = out["vouched"].get<uint64_t>() + foreign.vouched;
    out["hits"] = out["hits"].get<uint64_t>() + foreign.local_duplicates;
    out["hydrations_full"] = out["hydrations_full"].get<uint64_t>() + foreign.hydrations;
    out["hydration_failures"] = out["hydration_failures"].get<uint64_t>() + foreign.hydration_failures;
    out["foreign_calls"] = foreign.calls;
  }
  const uint64_t bytes = out["cache_bytes"].get<uint64_t>();
  out["bytes_per_hash"] = hashes ? static_cast<double>(bytes) / static_cast<double>(hashes) : 0.0;
  return out;
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
  int64_t acks = 0, acks_answered = 0;
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
    } else if (const auto* a = std::get_if<history::AckEvent>(&e)) {
      // A failed ack answered nothing for ack-resolution to judge.
      ++acks;
      acks_answered += a->failed ? 0 : 1;
    }
  }
  const RepeatCounts repeats = count_repeats(h);
  json out = {{"requests", h.requests.size()},
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
          {"acks", acks},
          {"acks_answered", acks_answered},
          {"storage_statements", world.storage_side().statements},
          {"storage_busy_waits", world.storage_side().busy_waits},
          {"storage_faults_injected", world.storage_side().faults_injected},
          {"sidecar_rows", world.storage().sidecar_rows()},
          {"segments", world.storage().segment_count()},
          {"virtual_duration_ms", world.clock().now_ms()},
          {"scheduler_picks", world.scheduler_picks()},
          {"trace_lines", world.trace().lines()}};
  // Per property: its events, and the ones that answered (a campaign that
  // judged none of them is hollow, campaign_merge.h).
  for (const properties::Evidence& e : properties::evidence_of(h)) {
    out["evidence." + e.property + ".of"] = e.of;
    out["evidence." + e.property + ".judged"] = e.judged;
  }
  return out;
}

}  // namespace qdt::sim
