#pragma once
// The command line's exit codes (docs/semantics.md §4).
namespace qdt::sim {

inline constexpr int kExitOk = 0;        // everything held
inline constexpr int kExitFailed = 1;    // a property or expectation failed
inline constexpr int kExitBadInput = 2;  // bad input or usage

}  // namespace qdt::sim
