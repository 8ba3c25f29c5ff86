#include "reports/display_text.h"

#include <cstdint>
#include <utility>

namespace qdt::reports {
namespace {

constexpr std::string_view kReplacement = "\xef\xbf\xbd";  // U+FFFD

bool continuation(unsigned char byte) { return (byte & 0xc0) == 0x80; }

// The code point of the UTF-8 sequence at text[i] and its length; length 0
// when the bytes there are not UTF-8 (RFC 3629: no overlong forms, no
// surrogates, nothing above U+10FFFF).
std::pair<uint32_t, size_t> decode(std::string_view text, size_t i) {
  const auto at = [&](size_t k) { return static_cast<unsigned char>(text[i + k]); };
  const unsigned char lead = at(0);
  size_t length = 0;
  uint32_t cp = 0;
  unsigned char low = 0x80, high = 0xbf;  // the second byte's range
  if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2, cp = lead & 0x1f;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3, cp = lead & 0x0f;
    if (lead == 0xe0) low = 0xa0;
    if (lead == 0xed) high = 0x9f;
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4, cp = lead & 0x07;
    if (lead == 0xf0) low = 0x90;
    if (lead == 0xf4) high = 0x8f;
  } else {
    return {0, 0};
  }
  if (i + length > text.size() || at(1) < low || at(1) > high) return {0, 0};
  for (size_t k = 1; k < length; ++k) {
    if (!continuation(at(k))) return {0, 0};
    cp = (cp << 6) | (at(k) & 0x3f);
  }
  return {cp, length};
}

// C1 controls, the bidirectional marks, embeddings, overrides and isolates,
// and the line and paragraph separators.
bool hidden_code_point(uint32_t cp) {
  return (cp >= 0x80 && cp <= 0x9f) || cp == 0x061c || cp == 0x200e || cp == 0x200f ||
         (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

}  // namespace

std::string neutral_text(std::string_view text, bool keep_line_breaks) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size();) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte < 0x80) {
      if (byte == '\t' || byte == '\n' || byte == '\r') out += keep_line_breaks ? static_cast<char>(byte) : ' ';
      else if (byte < 0x20 || byte == 0x7f) out += kReplacement;
      else out += static_cast<char>(byte);
      ++i;
      continue;
    }
    const auto [cp, length] = decode(text, i);
    if (length == 0) {
      out += kReplacement;  // one byte that is not UTF-8
      ++i;
      continue;
    }
    if (hidden_code_point(cp)) out += kReplacement;
    else out.append(text.substr(i, length));
    i += length;
  }
  return out;
}

std::string terminal_text(std::string_view text) { return neutral_text(text, false); }

}  // namespace qdt::reports
