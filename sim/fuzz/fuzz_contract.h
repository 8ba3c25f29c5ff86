#pragma once
// What every harness asserts of a loader's answer: a result, or errors that
// each name a JSON path and a reason. A violated contract aborts, which
// libFuzzer reports as a crash with the input that caused it.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "sim/scenario/scenario.h"

namespace qdt::fuzz {

[[noreturn]] inline void contract_broken(const char* what, const std::string& detail) {
  std::fprintf(stderr, "contract broken: %s: %s\n", what, detail.c_str());
  std::abort();
}

inline void check_path_and_reason(const std::string& path, const std::string& reason) {
  if (path.empty() || path.front() != '/') contract_broken("error path is not a JSON pointer", path);
  if (reason.empty()) contract_broken("error without a reason", path);
}

// Exactly one of "loaded" and "errors"; every error names a path.
inline void check_load(bool loaded, const std::vector<sim::LoadError>& errors) {
  if (loaded == !errors.empty()) contract_broken("loaded must mean no errors", std::to_string(errors.size()));
  for (const sim::LoadError& e : errors) check_path_and_reason(e.path, e.reason);
}

}  // namespace qdt::fuzz
