#pragma once
// Design variants (SPEC 7): named, runtime-selectable changes to the reference
// implementation that a designer might try. None is on by default; the suite's
// job is to catch every one that breaks the contract. `skip-probe` is a
// deliberately broken build used to prove that campaigns and shrinking work.
#include <optional>
#include <string>
#include <vector>

namespace qdt::impl {

enum class Variant {
  none,
  skip_probe,             // storage never probes: every push is queued
  fresh_id_on_duplicate,  // a duplicate answers a new id instead of the original's
  last_wins,              // in-request, the last occurrence of a key leads and alone is written
  queue_scope,            // the probe matches across all partitions of the queue
  purge_below_floor,      // the sidecar purge ignores the 900-second floor (and completed retention)
  watermark_off_by_one,   // the cache vouches one offset further than it knows
  probe_outside_lock,     // storage probes in one transaction and allocates in a later one
  stamp_before_lock,      // storage reads `now` before it takes the write lock
};

std::optional<Variant> parse_variant(const std::string& name);
std::string variant_name(Variant variant);
std::vector<std::string> variant_names();  // every variant but none

}  // namespace qdt::impl
