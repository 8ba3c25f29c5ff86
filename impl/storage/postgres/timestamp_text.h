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

// Unix milliseconds to microseconds, held inside PostgreSQL's timestamp range
// (4714 BC to 294247 AD, where microseconds still fit int64), so a bound meaning "none" (INT64_MIN) stays a
// timestamp the server accepts instead of overflowing.
int64_t timestamp_us_from_ms(int64_t ms);

}  // namespace qdt::impl::postgres
