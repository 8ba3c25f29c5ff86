#pragma once
// The command line's exit codes: the one place a library's Outcome
// (sim/base/outcome.h) becomes the process's exit status.
#include "sim/base/outcome.h"

namespace qdt::sim {

inline constexpr int kExitOk = status_number(Outcome::held);             // everything held
inline constexpr int kExitFailed = status_number(Outcome::failed);       // a property or expectation failed
inline constexpr int kExitBadInput = status_number(Outcome::bad_input);  // bad input or usage
inline constexpr int kExitInterrupted = status_number(Outcome::interrupted);  // Ctrl-C

inline int exit_code(Outcome outcome) { return status_number(outcome); }

}  // namespace qdt::sim
