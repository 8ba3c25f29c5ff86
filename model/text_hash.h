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
    std::memcpy(&w, s.data() + i, s.size() - i);
    h = std::rotl((h ^ w) * 0xbf58476d1ce4e5b9ULL, 29);
  }
  h ^= h >> 31;
  h *= 0x94d049bb133111ebULL;
  return h ^ (h >> 29);
}

}  // namespace qdt::model
