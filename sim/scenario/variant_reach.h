#pragma once
// Where each design variant's change sits (impl/variant.h): the reachability
// points (reach_points.h) at least one of which a run must reach for the
// changed code to have had a chance to act, and a profile that reaches them.
// A variant campaign in which no seed reached them tested nothing, and says
// so instead of passing (docs/semantics.md §7).
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>

#include "impl/variant.h"

namespace qdt::sim {

struct VariantReach {
  impl::Variant variant;
  // Any one reached exercises the change; empty: the change acts on every push.
  std::span<const std::string_view> points;
  std::string_view profile;  // a profile whose seeds reach them (checked by ctest)
};

// The entry of `variant` (never none): every variant has one.
const VariantReach& variant_reach(impl::Variant variant);

// For a campaign summary, from its coverage ({"PROFILE": {"seeds": N,
// "points": {NAME: seeds}}}): {"points": [...], "seeds_reaching": the most
// seeds any one point was reached by, "profile": ...}.
nlohmann::json variant_exercise(impl::Variant variant, const nlohmann::json& coverage);

// "" when the campaign exercised the variant (or it acts on every push);
// otherwise one line saying what no seed reached and which profile does.
std::string variant_untested_text(impl::Variant variant, const nlohmann::json& exercise, uint64_t seeds);

}  // namespace qdt::sim
