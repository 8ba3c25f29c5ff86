#pragma once
// Frames of one segment that share a key (a broken implementation's doing):
// for each frame, the index of the segment's first frame with its key.
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace qdt::properties {

// `keys`: the key ids of one push's frames (KeyIds::frames); the frames of a
// segment share queue and partition, so equal ids are equal transactionIds.
// first[j] == j when frame j is the first of its key. Fills the caller's
// buffer: a checker reuses one for every push instead of allocating a vector
// per event.
void first_frame_of_key(std::span<const uint32_t> keys, std::vector<size_t>& first);

}  // namespace qdt::properties
