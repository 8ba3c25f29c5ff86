#include "sim/scenario/variant_reach.h"

#include <array>
#include <cassert>
#include <cstdint>

namespace qdt::sim {
namespace {

using impl::Variant;
using Points = std::span<const std::string_view>;

// The change acts when a key comes again: in a retry, a repeat, a duplicated delivery.
constexpr std::array<std::string_view, 3> kRepeat = {"request.key_repeated_in_a_later_request",
                                                     "request.in_request_repeat", "network.duplicated_delivery"};
constexpr std::array<std::string_view, 1> kInRequest = {"request.in_request_repeat"};
constexpr std::array<std::string_view, 1> kOtherPartition = {"request.key_sent_to_another_partition"};
constexpr std::array<std::string_view, 1> kPurge = {"purge.purged_rows"};
constexpr std::array<std::string_view, 2> kWatermark = {"storage.probe_narrowed_by_watermark",
                                                        "storage.probe_skipped_by_watermark"};
// Two writers meet at the lock.
constexpr std::array<std::string_view, 3> kContention = {"lock.broker_waited_for_another_broker",
                                                         "lock.broker_waited_for_retention",
                                                         "lock.retention_waited_for_broker"};
constexpr std::array<std::string_view, 1> kBundle = {"broker.bundle_pushed"};
constexpr std::array<std::string_view, 3> kExpiry = {"cache.expired_row", "probe.repeat_1ms_past_window_edge",
                                                     "probe.original_exactly_at_window_edge"};
constexpr std::array<std::string_view, 3> kWindowChange = {"window.widened", "window.shrunk",
                                                           "window.turned_off_and_on"};
constexpr std::array<std::string_view, 4> kGap = {"cache.record_left_gap", "cache.span_hydration_closed_gap",
                                                  "cache.evicted_by_budget", "cache.evicted_by_command"};
constexpr std::array<std::string_view, 1> kRetention = {"retention.deleted_segments"};
constexpr std::array<std::string_view, 2> kReconnect = {"broker.fetch_again_after_lost_connection",
                                                        "broker.repushed_after_lost_connection"};
constexpr std::array<std::string_view, 1> kResetWhileReading = {"cache.reset_during_hydration"};

// The profiles are those of ctest's check.variant_caught.* (sim/study/CMakeLists.txt).
const VariantReach kTable[] = {
    {Variant::skip_probe, kRepeat, "default"},
    {Variant::fresh_id_on_duplicate, kRepeat, "default"},
    {Variant::last_wins, kInRequest, "default"},
    {Variant::queue_scope, kOtherPartition, "default"},
    {Variant::purge_below_floor, kPurge, "retention"},
    {Variant::watermark_off_by_one, kWatermark, "default"},
    {Variant::probe_outside_lock, kContention, "multi-broker"},
    {Variant::stamp_before_lock, kContention, "multi-broker"},
    {Variant::no_row_lock, kContention, "multi-broker"},
    {Variant::bundle_unordered_locks, kBundle, "bundles"},
    {Variant::bloom_filter, {}, "default"},
    {Variant::no_expire_before_verify, kExpiry, "window-edge"},
    {Variant::plain_set, kRepeat, "default"},
    {Variant::stale_window, kWindowChange, "reconfigure"},
    {Variant::trust_local_hit, kRepeat, "default"},
    {Variant::span_hydration, kGap, "cache-pressure"},
    {Variant::shipped_expiry, kExpiry, "skew"},
    {Variant::shipped_meta_ttl, kWindowChange, "reconfigure"},
    {Variant::no_window_guard, kWindowChange, "reconfigure"},
    {Variant::sidecar_with_segment, kRetention, "retention"},
    {Variant::keep_cache_on_reconnect, kReconnect, "power-loss"},
    {Variant::merge_read_after_reset, kResetWhileReading, "cache-pressure"},
};

}  // namespace

const VariantReach& variant_reach(Variant variant) {
  for (const VariantReach& r : kTable) {
    if (r.variant == variant) return r;
  }
  assert(false && "every variant has an entry in variant_reach.cpp");
  return kTable[0];
}

nlohmann::json variant_exercise(Variant variant, const nlohmann::json& coverage) {
  const VariantReach& r = variant_reach(variant);
  nlohmann::json points = nlohmann::json::array();
  uint64_t most = 0;
  for (std::string_view point : r.points) {
    points.push_back(point);
    uint64_t seeds = 0;
    for (const auto& [profile, c] : coverage.items()) {
      if (c.contains("points")) seeds += c["points"].value(std::string(point), uint64_t{0});
    }
    most = std::max(most, seeds);
  }
  return {{"points", points}, {"seeds_reaching", most}, {"profile", r.profile}, {"every_push", r.points.empty()}};
}

std::string variant_untested_text(Variant variant, const nlohmann::json& exercise, uint64_t seeds) {
  if (exercise["every_push"].get<bool>() || exercise["seeds_reaching"].get<uint64_t>() > 0 || seeds == 0) return "";
  std::string points;
  for (const auto& p : exercise["points"]) points += (points.empty() ? "" : ", ") + p.get<std::string>();
  return "untested: no seed ran " + impl::variant_name(variant) + "'s change (0 of " + std::to_string(seeds) +
         " seeds reached " + points + "); the profile " + exercise["profile"].get<std::string>() + " reaches it";
}

}  // namespace qdt::sim
