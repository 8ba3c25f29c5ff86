#include "sim/cli/cli_checks.h"

#include <algorithm>
#include <cassert>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>

#include "sim/base/nearest_name.h"
#include "sim/base/decimal_text.h"
#include "sim/base/output_file.h"

namespace qdt::sim {

CLI::Validator WholeIn(uint64_t lo, uint64_t hi) {
  assert(lo <= hi);
  const std::string range = "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  return CLI::Validator(
      [lo, hi, range](std::string& text) -> std::string {
        std::string reason;
        const std::optional<uint64_t> v = parse_decimal(text, &reason);
        if (!v) return reason;
        if (*v < lo || *v > hi) return "must be in " + range + ", got " + text;
        // CLI11 then converts with strtoull in base 0, which reads "010" as octal.
        text = std::to_string(*v);
        return "";
      },
      range, "WholeIn");
}

CLI::Validator NumberIn(double lo, double hi) {
  assert(lo <= hi);
  char bounds[80];
  std::snprintf(bounds, sizeof bounds, "[%g, %g]", lo, hi);
  const std::string range = bounds;
  return CLI::Validator(
      [lo, hi, range](std::string& text) -> std::string {
        std::string reason;
        const std::optional<double> v = parse_finite(text, &reason);
        if (!v) return reason;
        if (*v < lo || *v > hi) return "must be in " + range + ", got " + text;
        return "";
      },
      range, "NumberIn");
}

namespace {

// A validator that refuses a path `problem` finds fault with, naming it.
CLI::Validator path_check(std::function<std::optional<std::string>(const std::string&)> problem, const char* what) {
  return CLI::Validator(
      [problem](std::string& path) -> std::string {
        const std::optional<std::string> found = problem(path);
        return found ? path + ": " + *found + " (nothing was run)" : "";
      },
      what, what);
}

}  // namespace

CLI::Validator OutputFile() { return path_check(output_file_problem, "FILE"); }

CLI::Validator OutputBase(const char* suffix) {
  return path_check([suffix](const std::string& base) { return output_file_problem(base + suffix); }, "BASE");
}

CLI::Validator OutputFolder() { return path_check(output_folder_problem, "DIR"); }

CLI::Validator NameIn(std::vector<std::string> names, const std::string& what) {
  assert(!names.empty());
  std::string choices;
  for (const std::string& name : names) choices += (choices.empty() ? "" : ",") + name;
  return CLI::Validator(
      [names, what, choices](std::string& text) -> std::string {
        if (std::find(names.begin(), names.end(), text) != names.end()) return "";
        return "unknown " + what + " \"" + text + "\"" + did_you_mean(text, names) + " (expected one of " +
               choices + ")";
      },
      "{" + choices + "}", "NameIn");
}

}  // namespace qdt::sim
