#include "sim/scenario/reach_points.h"

#include <algorithm>
#include <array>
#include <cassert>

namespace qdt::sim {
namespace {

constexpr ReachPoint kPoints[] = {
    // The broker's cache (impl/broker/dedup_cache.cpp, docs/semantics.md §2.11).
    {"cache.full_hydration", "a full read of the window hydrated a partition"},
    {"cache.span_hydration_closed_gap", "a span read filled the gap another writer left"},
    {"cache.record_left_gap", "a commit recorded above verified_upto + 1: another writer in between"},
    {"cache.gap_closed_by_chain", "a recorded commit filled a gap and verified_upto chained through held rows"},
    {"cache.hydration_chained_past_its_read", "after a read, verified_upto chained through rows recorded above it"},
    {"cache.record_already_read", "a commit recorded after the hydration read already held it"},
    {"cache.hydration_met_recorded_row", "a hydration read met a row recorded while it was in flight"},
    {"cache.record_overlap_rebuild", "a recorded commit overlapped held rows: rebuild"},
    {"cache.record_saw_window_change", "a recorded commit carried another window than the partition's: rebuild"},
    {"cache.window_changed_rebuild", "a flush with another window than the partition was built with: rebuild"},
    {"cache.inconsistent_read_rebuild", "a hydration read disagreed with what the cache held: rebuild"},
    {"cache.record_during_hydration_forced_rebuild", "a commit recorded during a read forced its rebuild"},
    {"cache.full_hydration_failed", "the full read failed in storage: -1"},
    {"cache.span_hydration_failed", "the span read failed in storage: the gap stays pending"},
    {"cache.flush_while_hydrating", "a flush found its partition being read by another: -1"},
    {"cache.evicted_during_hydration", "a partition was evicted while its hydration read was in flight"},
    {"cache.hydration_outlived_its_partition", "a hydration read returned to a partition no longer held"},
    {"cache.reset_during_hydration", "a hydration read returned to a partition reset meanwhile"},
    {"cache.kill_switch_during_hydration", "the kill switch turned the cache off with a read in flight"},
    {"cache.answer_while_disabled", "a flush asked the cache while the kill switch had it off"},
    {"cache.declined", "a partition alone over the budget was declined"},
    {"cache.declined_cooldown_answer", "a declined partition answered -1 in its cooldown"},
    {"cache.decline_cooldown_ended", "a declined partition's cooldown ran out"},
    {"cache.evicted_by_budget", "another partition was evicted (LRU) to stay within the budget"},
    {"cache.evicted_by_command", "an evict_cache step dropped held partitions"},
    {"cache.window_zero_dropped_partition", "a window of 0 dropped a held partition"},
    {"cache.expired_row", "a held row expired (older than the safe cutoff)"},
    {"cache.expired_multi_frame_segment", "a held row of two or more frames expired"},
    {"cache.kept_row_at_cutoff", "the oldest row kept sat exactly on the expiry cutoff"},
    {"cache.hit_is_not_a_verdict", "a pushed hash was in the cache: -1, storage decides"},
    {"cache.vouched", "the cache vouched with a watermark"},
    // A foreign cache's caller (impl/broker/foreign_cache_caller.cpp, docs/semantics.md §10.2).
    {"cache.foreign_hydrated", "the caller hydrated a foreign cache from a full-window read"},
    {"cache.foreign_window_changed_rehydrate", "the learnt window changed since the last flush: rehydrated"},
    {"cache.foreign_hydration_read_failed", "the hydration read failed: -1, the module not told"},
    {"cache.foreign_renewed_during_hydration", "the cache was renewed while its hydration read was out: -1"},
    {"cache.foreign_local_duplicate", "a foreign cache held a pushed hash (LocalDuplicate): -1"},
    {"cache.foreign_vouched", "a foreign cache vouched with a watermark"},
    // Volume (docs/semantics.md §10.4, sim/campaign/workload_volume.h): a cache's capacities crossed.
    {"volume.cache_held_thousand_hashes", "qdt's cache held a thousand hashes or more of one partition"},
    {"volume.cache_held_run_in_one_window", "qdt's cache held 32 rows or more of one partition inside one window"},
    {"volume.cache_dropped_thousand_hashes", "qdt's cache evicted or declined a partition of a thousand hashes or more"},
    {"volume.foreign_asked_thousand_hashes", "a foreign cache was asked about a thousand hashes or more at once"},
    {"volume.foreign_hydrated_thousand_hashes", "a foreign cache was hydrated with a thousand hashes or more of one partition"},
    {"volume.foreign_taught_thousand_hashes", "a foreign cache was taught a commit of a thousand hashes or more"},
    {"volume.foreign_taught_run_in_one_window", "a foreign cache was taught 32 commits or more of one partition inside one window"},
    // The push transaction (impl/storage/sqlite/storage_push.cpp, docs/semantics.md §2.4).
    {"storage.probe_narrowed_by_watermark", "storage probed only above the cache's watermark"},
    {"storage.probe_skipped_by_watermark", "the watermark covered every stored offset: no probe"},
    {"storage.watermark_refused_by_window_guard", "storage ignored a watermark computed with a smaller window"},
    {"storage.purge_floor_above_watermark", "the purge floor (txns_start) lay above the watermark"},
    {"storage.whole_segment_duplicate", "every frame of a segment was a duplicate"},
    {"storage.partial_duplicate_segment", "some frames of a segment were duplicates, some not"},
    // Retention and the purge (impl/storage/sqlite/storage_retention.cpp, docs/semantics.md §2.8).
    {"retention.deleted_segments", "retention deleted segments (their sidecar rows stay)"},
    {"purge.purged_rows", "a purge step deleted sidecar rows"},
    {"purge.full_batch_more_left", "a purge step deleted a full batch: another step follows"},
    {"purge.floor_set_by_completed_retention", "completedRetentionSeconds above the window and 900 set the floor"},
    // Faults at every statement of a push transaction (sim/world/storage_gate.cpp).
    {"fault.push_failed_at_statement_0", "a push transaction failed at its statement 0"},
    {"fault.push_failed_at_statement_1", "a push transaction failed at its statement 1"},
    {"fault.push_failed_at_statement_2", "a push transaction failed at its statement 2"},
    {"fault.push_failed_at_statement_3", "a push transaction failed at its statement 3"},
    {"fault.push_failed_at_statement_4", "a push transaction failed at its statement 4"},
    {"fault.push_failed_at_statement_5", "a push transaction failed at its statement 5"},
    {"fault.push_failed_at_statement_6", "a push transaction failed at its statement 6"},
    {"fault.push_failed_at_commit", "a push transaction failed at COMMIT"},
    // Lock contention (sim/world/storage_gate.cpp).
    {"lock.broker_waited_for_another_broker", "a broker's transaction waited for another broker's lock"},
    {"lock.broker_waited_for_retention", "a broker's transaction waited for the retention loop's lock"},
    {"lock.retention_waited_for_broker", "the retention loop waited for a broker's lock"},
    {"lock.broker_waited_for_admin", "a broker's transaction waited for an admin step's lock"},
    // The broker (impl/broker/broker.cpp, docs/semantics.md §2.5-§2.6).
    {"broker.duplicate_round_2", "a segment needed a second duplicate round"},
    {"broker.duplicate_round_3", "a segment needed a third duplicate round"},
    {"broker.fused_requests", "layer 2 fused two or more requests into one segment"},
    {"broker.fused_follower_of_another_request", "a layer-2 follower came from another request than its leader"},
    {"broker.bundle_pushed", "a request's segments for several partitions went in one transaction (PostgreSQL)"},
    {"broker.zero_id_duplicate", "a duplicate answered the zero id (the original's segment gone)"},
    {"broker.duplicate_id_unreadable", "the covering-segment read failed: the zero id"},
    {"broker.fetch_again_after_lost_connection", "a covering-segment read lost its connection and went again"},
    {"broker.duplicate_offset_holds_another_key", "a duplicate's original offset held another key (storage emptied): the zero id"},
    {"broker.repushed_after_lost_connection", "a segment went again after storage lost power under it"},
    {"broker.repush_found_its_own_commit", "a segment pushed again found its own first commit"},
    // Power (sim/world/world.cpp, sim/scenario/history_reach.cpp).
    {"power.lost_with_the_write_lock_held", "storage lost power while a transaction held the write lock"},
    {"power.unsynced_bytes_dropped", "a power loss dropped writes not yet synced"},
    {"power.torn_page_kept", "a power loss kept part of the last unsynced page"},
    // From the history after the run (sim/scenario/history_reach.cpp).
    {"probe.original_exactly_at_window_edge", "a duplicate's original was created exactly at now - window"},
    {"probe.original_1ms_inside_window_edge", "a duplicate's original was created at now - window + 1 ms"},
    {"probe.repeat_1ms_past_window_edge", "a repeat was queued whose newest original was created at now - window - 1 ms"},
    {"request.in_request_repeat", "one request carried a key twice (first wins, docs/semantics.md §2.5)"},
    {"request.key_repeated_in_a_later_request", "a broker was delivered a key it had been delivered in an earlier request (a retry or a repeat)"},
    {"request.key_sent_to_another_partition", "one transactionId was delivered to two partitions of one queue"},
    {"retry.delivered_while_its_first_attempt_in_flight", "a retry reached a broker before its first attempt was answered"},
    {"retry.answered_duplicate_of_its_first_attempt", "a retry was answered duplicate with the id its first attempt stored"},
    {"network.duplicated_delivery", "one attempt was delivered twice"},
    {"network.response_lost", "a delivered request's response never reached its producer"},
    {"crash.broker_lost_request_before_commit", "a broker crashed with a request whose frames never committed"},
    {"crash.broker_lost_request_after_commit", "a broker crashed with a request whose frames had committed"},
    {"purge.during_a_push_in_flight", "a purge step ran while a push to its partition was in flight"},
    {"retention.during_a_push_in_flight", "retention ran while a push to its partition was in flight"},
    {"purge.row_kept_only_by_completed_retention", "a purge ran while a row past max(window, 900 s) was kept only by completedRetentionSeconds"},
    {"ack.after_its_sidecar_row_purged", "an ack named a key whose sidecar row the purge had deleted"},
    {"window.widened", "a queue's window grew"},
    {"window.shrunk", "a queue's window shrank"},
    {"window.turned_off_and_on", "a queue's window went to 0 and back"},
};

}  // namespace

std::span<const ReachPoint> reach_points() { return kPoints; }

std::optional<size_t> reach_index(std::string_view name) {
  // Linear: marks are few per run and the catalogue is short.
  for (size_t i = 0; i < std::size(kPoints); ++i) {
    if (kPoints[i].name == name) return i;
  }
  return std::nullopt;
}

std::optional<std::string_view> cannot_happen(const ReachPoint& point, const ReachContext& context) {
  const auto starts = [&](std::string_view prefix) { return point.name.substr(0, prefix.size()) == prefix; };
  if (context.postgres && starts("power.")) {
    return "PostgreSQL has no power-loss disk (crash_storage is SQLite's VFS)";
  }
  if (context.postgres && starts("fault.push_failed_at_statement_") && point.name.back() >= '2') {
    return "a push transaction on PostgreSQL is BEGIN, one call of the push function and COMMIT";
  }
  if (context.postgres && (point.name == "broker.repushed_after_lost_connection" ||
                           point.name == "broker.repush_found_its_own_commit" ||
                           point.name == "broker.fetch_again_after_lost_connection")) {
    // The faults done to the server end a backend between statements, where
    // the transaction's fate is known; none loses COMMIT's answer yet.
    return "PostgreSQL's faults never leave a call's outcome unknown, so no broker sees a lost connection";
  }
  if (!context.postgres && point.name == "broker.bundle_pushed") {
    return "SQLite has no bundles (a request's partitions in one transaction need per-partition row locks)";
  }
  const bool foreign_point = starts("cache.foreign_") || starts("volume.foreign_");
  if (foreign_point && !context.foreign_cache) return "only a foreign cache's caller marks it (--cache-impl, --cache-lib)";
  if ((starts("cache.") || starts("volume.cache_")) && !foreign_point && context.foreign_cache) {
    return "qdt's own cache does not run beside a foreign one";
  }
  return std::nullopt;
}

}  // namespace qdt::sim
