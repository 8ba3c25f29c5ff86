#pragma once
// Survivors argued harmless (docs/semantics.md §7: "a variant that the suite cannot catch
// is either harmless — explain why in the report — or a hole in the suite").
// qdt mutants lists a surviving variant with an entry here as
// `survived (harmless: ARGUMENT)`, and one without as a `hole` (exit 1).
//
// An entry is one line of kHarmlessArguments in mutant_arguments.cpp: the
// variant, the written argument, and the test that checks the argument (""
// when no test can be written — the argument must then say why).
#include <string>
#include <vector>

#include "impl/variant.h"

namespace qdt::sim {

struct HarmlessArgument {
  impl::Variant variant = impl::Variant::none;
  std::string argument;  // why surviving the campaign does not break the contract
  std::string test;      // the test checking the argument, e.g. "cache_test" or "DedupCache.PlainSetIsSafe"; may be ""
};

using HarmlessRegistry = std::vector<HarmlessArgument>;

// The registry of this build (mutant_arguments.cpp).
const HarmlessRegistry& harmless_arguments();

// The entry of `variant` in `registry`, or nullptr.
const HarmlessArgument* find_harmless_argument(const HarmlessRegistry& registry, impl::Variant variant);

// What is wrong with `registry` (an entry for `none`, a variant named twice,
// an empty argument), one message per problem; empty when it is well formed.
std::vector<std::string> registry_problems(const HarmlessRegistry& registry);

}  // namespace qdt::sim
