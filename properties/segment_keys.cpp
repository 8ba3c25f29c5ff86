#include "properties/segment_keys.h"

#include <cassert>
#include <string_view>
#include <unordered_map>

namespace qdt::properties {

void first_frame_of_key(const history::PushEvent& push, std::vector<size_t>& first) {
  const size_t n = push.frames.size();
  first.resize(n);
  // Most segments hold a frame or a few: a scan beats hashing there.
  constexpr size_t kScanMax = 16;
  if (n <= kScanMax) {
    for (size_t j = 0; j < n; ++j) {
      size_t i = 0;
      while (push.frames[i].transaction_id != push.frames[j].transaction_id) ++i;
      first[j] = i;
    }
  } else {
    std::unordered_map<std::string_view, size_t> seen;
    seen.reserve(n);
    for (size_t j = 0; j < n; ++j) first[j] = seen.try_emplace(push.frames[j].transaction_id, j).first->second;
  }
  for ([[maybe_unused]] size_t j = 0; j < n; ++j) assert(first[j] <= j);
}

}  // namespace qdt::properties
