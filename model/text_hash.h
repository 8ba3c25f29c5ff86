#pragma once
// The hash the oracle's flat tables number strings with (dense_table.h: the
// model's offsets by key; DenseTexts under the checkers' MessageIds and
// KeyIds, properties -> model): eight bytes at a time, then a final mix.
// Ids and transactionIds are ~36 characters; std::hash's byte-wise Murmur
// cost more than the lookups it fed. Its upper half must be well mixed
// (DenseTable places and tags keys by it). Not for anything persisted: only
// equal strings must hash equal.
#include <bit>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace qdt::model {

// The last 1-7 bytes of a string as one word, read with fixed-size loads
// (a memcpy of a variable count was a libc call per key): two overlapping
// four-byte reads, or three single bytes under four. Different tails may
// give one word; the length, mixed in first, and the final mix keep
// collisions as rare as before.
inline uint64_t text_hash_tail(const char* p, size_t n) {
  if (n >= 4) {
    uint32_t head = 0;
    uint32_t last = 0;
    std::memcpy(&head, p, 4);
    std::memcpy(&last, p + n - 4, 4);
    return (uint64_t{head} << 32) | last;
  }
  return (uint64_t{static_cast<uint8_t>(p[0])} << 16) | (uint64_t{static_cast<uint8_t>(p[n >> 1])} << 8) |
         static_cast<uint8_t>(p[n - 1]);
}

inline uint64_t text_hash(std::string_view s, uint64_t seed = 0) {
  uint64_t h = (seed + 0x9e3779b97f4a7c15ULL) ^ s.size();
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t w = 0;
    std::memcpy(&w, s.data() + i, 8);
    h = std::rotl((h ^ w) * 0xbf58476d1ce4e5b9ULL, 29);
  }
  if (i < s.size()) {
    uint64_t w = 0;
    if (s.size() >= 8) {
      std::memcpy(&w, s.data() + s.size() - 8, 8);  // the last eight, overlapping the words before
    } else {
      w = text_hash_tail(s.data(), s.size());
    }
    h = std::rotl((h ^ w) * 0xbf58476d1ce4e5b9ULL, 29);
  }
  h ^= h >> 31;
  h *= 0x94d049bb133111ebULL;
  return h ^ (h >> 29);
}

}  // namespace qdt::model
