#pragma once
// PostgreSQL's timestamps as text, to unix microseconds: the interface's
// "createdAt" ("2023-11-14T22:13:20.123456Z") and a timestamptz column in
// text format under TimeZone=UTC ("2023-11-14 22:13:20.123456+00").
#include <cstdint>
#include <optional>
#include <string_view>

namespace qdt::impl::postgres {

// nullopt when `text` is not one of the two forms (UTC only; 0-6 fraction digits).
std::optional<int64_t> parse_timestamp_us(std::string_view text);

}  // namespace qdt::impl::postgres
