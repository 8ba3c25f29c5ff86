#pragma once
// Numbers typed by a person (command-line options, "I/N" shards) read
// strictly: strtoull takes "-1" as 2^64-1, saturates on overflow and reads
// "010" as octal, and strtod takes "nan" and "inf", so each would run a
// campaign nobody asked for. A rejected text comes back with the reason.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace qdt::sim {

// Decimal digits only, at most 2^64-1; leading zeros are decimal ("010" is 10).
std::optional<uint64_t> parse_decimal(std::string_view text, std::string* reason);

// A finite number in the C locale's syntax (no nan or inf).
std::optional<double> parse_finite(std::string_view text, std::string* reason);

}  // namespace qdt::sim
