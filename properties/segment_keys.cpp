#include "properties/segment_keys.h"

#include <cassert>
#include <unordered_map>

namespace qdt::properties {

void first_frame_of_key(std::span<const uint32_t> keys, std::vector<size_t>& first) {
  const size_t n = keys.size();
  first.resize(n);
  // Most segments hold a frame or a few: a scan beats hashing there.
  constexpr size_t kScanMax = 16;
  if (n <= kScanMax) {
    for (size_t j = 0; j < n; ++j) {
      size_t i = 0;
      while (keys[i] != keys[j]) ++i;
      first[j] = i;
    }
  } else {
    std::unordered_map<uint32_t, size_t> seen;
    seen.reserve(n);
    for (size_t j = 0; j < n; ++j) first[j] = seen.try_emplace(keys[j], j).first->second;
  }
  for ([[maybe_unused]] size_t j = 0; j < n; ++j) assert(first[j] <= j);
}

}  // namespace qdt::properties
