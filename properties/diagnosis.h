#pragma once
// A failure's likely cause in a designer's words, read from the history
// around it: which condition of the mechanism the run met where the property
// broke. A hint beside the verdict, never a verdict: the properties judge.
#include <optional>
#include <string>

#include "properties/history.h"

namespace qdt::properties {

// For a failure of `property` on `partition` ("queue/partition"), the cause
// when the history shows one this function knows; nullopt otherwise.
// Known: a watermark computed with a stale window (docs/semantics.md §2.11).
std::optional<std::string> likely_cause(const history::History& history, const std::string& property,
                                        const std::string& partition);

}  // namespace qdt::properties
