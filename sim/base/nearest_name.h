#pragma once
// The known name a mistyped one was most likely meant to be, for "did you
// mean" hints wherever a name is refused (scenario fields, queue options,
// command-line commands, options and choices). Pure and deterministic: the
// same inputs give the same suggestion, ties going to the earlier name.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace qdt::sim {

// Edits (insert, delete, substitute, swap two neighbours) that turn `a`
// into `b`; letters compare case-insensitively.
size_t edit_distance(std::string_view a, std::string_view b);

// The name of `known` nearest `typed`, when near enough to be a typo: at
// most a third of `typed`'s length in edits (one at least), or `typed` a
// prefix of it (3 characters at least, as "backoff" of "backoff_ms").
// nullopt when nothing is near, or `typed` is itself known.
std::optional<std::string> nearest_name(std::string_view typed, const std::vector<std::string>& known);

// "; did you mean \"NAME\"?" for the nearest name, "" when there is none:
// appended to a refusal so that the message stays one line.
std::string did_you_mean(std::string_view typed, const std::vector<std::string>& known);

}  // namespace qdt::sim
