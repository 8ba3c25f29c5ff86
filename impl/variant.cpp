#include "impl/variant.h"

namespace qdt::impl {
namespace {
struct Named {
  Variant variant;
  const char* name;
  const char* description;
};
constexpr Named kVariants[] = {
    {Variant::none, "none", "the reference implementation"},
    {Variant::skip_probe, "skip-probe", "storage never probes: every push is queued (a deliberately broken build)"},
    {Variant::fresh_id_on_duplicate, "fresh-id-on-duplicate", "broker: a duplicate answers a new id, not the original's"},
    {Variant::last_wins, "last-wins", "broker: inside one request the last occurrence of a key leads"},
    {Variant::queue_scope, "queue-scope", "storage SQL: the probe matches across every partition of the queue"},
    {Variant::purge_below_floor, "purge-below-floor", "storage SQL: the sidecar purge ignores the 900 s floor"},
    {Variant::watermark_off_by_one, "watermark-off-by-one", "broker: the watermark vouches one offset further than the cache knows"},
    {Variant::probe_outside_lock, "probe-outside-lock", "storage: probe in one transaction, allocate in a later one"},
    {Variant::stamp_before_lock, "stamp-before-lock", "storage: now is read before the write lock (Queen before 0.16.0)"},
    {Variant::no_row_lock, "no-row-lock", "storage SQL (PostgreSQL): the probe runs without FOR UPDATE; only the allocator's UPDATE serializes"},
    {Variant::bundle_unordered_locks, "bundle-unordered-locks", "storage SQL (PostgreSQL): a bundle locks its partitions in request order, not ascending id"},
    {Variant::bloom_filter, "bloom-filter", "storage SQL: membership through a small Bloom filter instead of exact hashes"},
    {Variant::no_expire_before_verify, "no-expire-before-verify", "cache: answers without expiring segments first"},
    {Variant::plain_set, "plain-set", "cache: the hash set is not refcounted"},
    {Variant::stale_window, "stale-window", "cache: ignores a window change"},
    {Variant::trust_local_hit, "trust-local-hit", "broker: a cache hit answers duplicate without asking storage"},
    {Variant::span_hydration, "span-hydration", "cache: after an eviction or a gap, hydrates only the missing span (a bug Queen fixed)"},
    {Variant::shipped_expiry, "shipped-expiry", "cache: expires by the broker's clock, no slack, while hydrating by storage time + 5 s (as shipped)"},
    {Variant::shipped_meta_ttl, "shipped-meta-ttl", "broker: learns a window change through a 30 s metadata TTL; storage has no window guard (as shipped)"},
    {Variant::no_window_guard, "no-window-guard", "storage: applies any watermark whatever window it was computed with"},
    {Variant::sidecar_with_segment, "sidecar-with-segment", "storage SQL: retention deletes a segment's sidecar row together with the segment"},
    {Variant::keep_cache_on_reconnect, "keep-cache-on-reconnect", "broker: keeps its cache and learnt windows when its connection to storage was lost"},
    {Variant::merge_read_after_reset, "merge-read-after-reset", "cache: merges a hydration read into a partition reset (evicted and made anew) while the read was in flight"},
};
}  // namespace

std::optional<Variant> parse_variant(const std::string& name) {
  for (const Named& n : kVariants) {
    if (name == n.name) return n.variant;
  }
  return std::nullopt;
}

std::string variant_name(Variant variant) {
  for (const Named& n : kVariants) {
    if (variant == n.variant) return n.name;
  }
  return "?";
}

std::string variant_description(Variant variant) {
  for (const Named& n : kVariants) {
    if (variant == n.variant) return n.description;
  }
  return "?";
}

std::vector<Variant> all_variants() {
  std::vector<Variant> out;
  for (const Named& n : kVariants) {
    if (n.variant != Variant::none) out.push_back(n.variant);
  }
  return out;
}

std::vector<std::string> variant_names() {
  std::vector<std::string> out;
  for (const Named& n : kVariants) {
    if (n.variant != Variant::none) out.push_back(n.name);
  }
  return out;
}

}  // namespace qdt::impl
