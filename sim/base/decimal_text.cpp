#include "sim/base/decimal_text.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace qdt::sim {

std::optional<uint64_t> parse_decimal(std::string_view text, std::string* reason) {
  auto fail = [&](std::string why) -> std::optional<uint64_t> {
    if (reason) *reason = std::move(why);
    return std::nullopt;
  };
  if (text.empty()) return fail("expected a whole number, got nothing");
  if (text[0] == '-') return fail("must not be negative, got " + std::string(text));
  uint64_t value = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return fail("expected a whole number in decimal digits, got " + std::string(text));
    const uint64_t digit = static_cast<uint64_t>(c - '0');
    if (value > (std::numeric_limits<uint64_t>::max() - digit) / 10) {
      return fail("larger than 18446744073709551615 (2^64-1), got " + std::string(text));
    }
    value = value * 10 + digit;
  }
  return value;
}

std::optional<double> parse_finite(std::string_view text, std::string* reason) {
  auto fail = [&](std::string why) -> std::optional<double> {
    if (reason) *reason = std::move(why);
    return std::nullopt;
  };
  const std::string copy(text);
  if (copy.empty() || std::isspace(static_cast<unsigned char>(copy[0]))) {
    return fail("expected a number, got '" + copy + "'");
  }
  char* end = nullptr;
  const double value = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size()) return fail("expected a number, got " + copy);
  if (std::isnan(value)) return fail("not a number: " + copy);
  if (std::isinf(value)) return fail("must be finite, got " + copy);
  return value;
}

}  // namespace qdt::sim
