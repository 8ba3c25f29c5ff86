#include "impl/uuid.h"

#include <array>
#include <cassert>
#include <cstring>

namespace qdt::impl {

bool Uuid::is_zero() const {
  for (uint8_t b : bytes) {
    if (b != 0) return false;
  }
  return true;
}

Uuid make_uuid_v7(int64_t unix_ms, uint64_t random_a, uint64_t random_b) {
  assert(unix_ms >= 0 && unix_ms < (int64_t{1} << 48));
  Uuid u;
  for (int i = 0; i < 6; ++i) u.bytes[i] = static_cast<uint8_t>(unix_ms >> (40 - 8 * i));
  // 12 bits rand_a, version 7.
  u.bytes[6] = static_cast<uint8_t>(0x70 | ((random_a >> 8) & 0x0f));
  u.bytes[7] = static_cast<uint8_t>(random_a);
  // 62 bits rand_b, variant 10.
  u.bytes[8] = static_cast<uint8_t>(0x80 | ((random_b >> 56) & 0x3f));
  for (int i = 9; i < 16; ++i) u.bytes[i] = static_cast<uint8_t>(random_b >> (8 * (15 - i)));
  assert(!u.is_zero());
  return u;
}

namespace {
// Each byte's two hex digits, and where each byte's digits go in the text
// (the dashes skipped): one load and one two-byte store a byte, the loop
// unrolled, where a branch and two table reads were (~170 instructions an
// id, three ids a push).
constexpr std::array<std::array<char, 2>, 256> kHexPairs = [] {
  constexpr char kDigits[] = "0123456789abcdef";
  std::array<std::array<char, 2>, 256> t{};
  for (size_t b = 0; b < 256; ++b) t[b] = {kDigits[b >> 4], kDigits[b & 15]};
  return t;
}();
constexpr std::array<uint8_t, 16> kTextPosition = {0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34};
}  // namespace

std::string to_string(const Uuid& uuid) {
  // Filled in place: a push formats each id three times (broker, recorder,
  // history), and appending char by char cost ~770 instructions an id.
  std::string out(36, '-');
  char* p = out.data();
  for (size_t i = 0; i < 16; ++i) std::memcpy(p + kTextPosition[i], kHexPairs[uuid.bytes[i]].data(), 2);
  return out;
}

std::optional<Uuid> parse_uuid(std::string_view text) {
  if (text.size() != 36) return std::nullopt;
  Uuid u;
  size_t pos = 0;
  for (int i = 0; i < 16; ++i) {
    if (pos == 8 || pos == 13 || pos == 18 || pos == 23) {
      if (text[pos] != '-') return std::nullopt;
      ++pos;
    }
    int value = 0;
    for (int k = 0; k < 2; ++k) {
      const char c = text[pos++];
      int digit;
      if (c >= '0' && c <= '9') digit = c - '0';
      else if (c >= 'a' && c <= 'f') digit = c - 'a' + 10;
      else if (c >= 'A' && c <= 'F') digit = c - 'A' + 10;
      else return std::nullopt;
      value = value * 16 + digit;
    }
    u.bytes[i] = static_cast<uint8_t>(value);
  }
  return u;
}

}  // namespace qdt::impl
