#include "impl/storage/postgres/timestamp_text.h"

namespace qdt::impl::postgres {
namespace {

bool digits(std::string_view text, size_t at, size_t count, int64_t& out) {
  if (at + count > text.size()) return false;
  out = 0;
  for (size_t i = at; i < at + count; ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
    out = out * 10 + (text[i] - '0');
  }
  return true;
}

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
int64_t days_from_civil(int64_t y, int64_t m, int64_t d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

constexpr int64_t kTimestampMinUs = -210'866'803'200'000'000;     // 4714-11-24 00:00:00 BC
constexpr int64_t kTimestampMaxUs = 9'223'371'331'199'999'999;  // int64's limit, in the year 294247

}  // namespace

int64_t timestamp_us_from_ms(int64_t ms) {
  if (ms <= kTimestampMinUs / 1000) return kTimestampMinUs;
  if (ms >= kTimestampMaxUs / 1000) return kTimestampMaxUs;
  return ms * 1000;
}

std::optional<int64_t> parse_timestamp_us(std::string_view text) {
  int64_t year, month, day, hour, minute, second;
  if (!digits(text, 0, 4, year) || text.size() < 19 || text[4] != '-' || !digits(text, 5, 2, month) ||
      text[7] != '-' || !digits(text, 8, 2, day) || (text[10] != 'T' && text[10] != ' ') ||
      !digits(text, 11, 2, hour) || text[13] != ':' || !digits(text, 14, 2, minute) || text[16] != ':' ||
      !digits(text, 17, 2, second)) {
    return std::nullopt;
  }
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) return std::nullopt;
  size_t at = 19;
  int64_t fraction_us = 0;
  if (at < text.size() && text[at] == '.') {
    ++at;
    int64_t scale = 100'000;
    size_t count = 0;
    while (at < text.size() && text[at] >= '0' && text[at] <= '9') {
      if (++count > 6) return std::nullopt;
      fraction_us += (text[at] - '0') * scale;
      scale /= 10;
      ++at;
    }
    if (count == 0) return std::nullopt;
  }
  const std::string_view zone = text.substr(at);
  if (zone != "Z" && zone != "+00" && zone != "+00:00") return std::nullopt;
  const int64_t seconds = days_from_civil(year, month, day) * 86'400 + hour * 3'600 + minute * 60 + second;
  return seconds * 1'000'000 + fraction_us;
}

}  // namespace qdt::impl::postgres
