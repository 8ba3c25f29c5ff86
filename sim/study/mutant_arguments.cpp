#include "sim/study/mutant_arguments.h"

#include <set>

namespace qdt::sim {

namespace {

// One line per variant argued harmless:
//   {impl::Variant::NAME, "why surviving breaks nothing (the rule of docs/semantics.md it rests on)", "the test that checks it"},
// A survivor without an entry is a hole.
const HarmlessRegistry kHarmlessArguments = {
    {impl::Variant::no_expire_before_verify,
     "expiry only drops held rows, never moves verified_upto: the held hash set stays a superset of the "
     "reference's, so every answer is the reference's watermark or -1, and -1 makes storage probe the whole "
     "window (docs/semantics.md §2.11: a cache that cannot vouch answers -1); rows still expire after each hydration, so it "
     "only costs memory and probes",
     "DedupCacheRandomized.NoExpireBeforeVerifyIsAlwaysSafe"},
};

}  // namespace

const HarmlessRegistry& harmless_arguments() { return kHarmlessArguments; }

const HarmlessArgument* find_harmless_argument(const HarmlessRegistry& registry, impl::Variant variant) {
  for (const HarmlessArgument& a : registry) {
    if (a.variant == variant) return &a;
  }
  return nullptr;
}

std::vector<std::string> registry_problems(const HarmlessRegistry& registry) {
  std::vector<std::string> problems;
  std::set<impl::Variant> seen;
  for (const HarmlessArgument& a : registry) {
    const std::string name = impl::variant_name(a.variant);
    if (a.variant == impl::Variant::none) problems.push_back("an entry for none (the reference is not a variant)");
    if (!seen.insert(a.variant).second) problems.push_back(name + ": argued twice");
    if (a.argument.empty()) problems.push_back(name + ": no argument written");
  }
  return problems;
}

}  // namespace qdt::sim
