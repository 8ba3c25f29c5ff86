#include "reports/virtual_time.h"

#include <cstdio>

namespace qdt::reports {
namespace {

// ".5", ".064", "" for a whole number of seconds.
std::string fraction(int64_t ms) {
  if (ms == 0) return "";
  char text[8];
  std::snprintf(text, sizeof text, ".%03d", static_cast<int>(ms));
  std::string out = text;
  while (out.back() == '0') out.pop_back();
  return out;
}

std::string two_digits(int64_t n) { return (n < 10 ? "0" : "") + std::to_string(n); }

}  // namespace

std::string virtual_time_text(int64_t ms) {
  if (ms < 0) return "-" + virtual_time_text(-ms);
  if (ms < 1000) return std::to_string(ms) + " ms";
  const int64_t seconds = ms / 1000, rest_ms = ms % 1000;
  if (seconds < 60) return std::to_string(seconds) + fraction(rest_ms) + " s";
  const int64_t minutes = seconds / 60, s = seconds % 60;
  if (minutes < 60) return std::to_string(minutes) + " min " + two_digits(s) + fraction(rest_ms) + " s";
  return std::to_string(minutes / 60) + " h " + two_digits(minutes % 60) + " min " + two_digits(s) + fraction(rest_ms) +
         " s";
}

TimeScale time_scale_for(double duration_ms) {
  if (duration_ms <= 10'000) return {1, "ms"};
  if (duration_ms <= 600'000) return {1'000, "s"};
  if (duration_ms <= 36'000'000) return {60'000, "min"};
  return {3'600'000, "h"};
}

}  // namespace qdt::reports
