#pragma once
// Frames of one segment that share a key (a broken implementation's doing):
// for each frame, the index of the segment's first frame with its key.
#include <cstddef>
#include <vector>

#include "properties/history.h"

namespace qdt::properties {

// first[j] == j when frame j is the first of its key in `push`. Fills the
// caller's buffer: a checker reuses one for every push instead of
// allocating a vector per event.
void first_frame_of_key(const history::PushEvent& push, std::vector<size_t>& first);

}  // namespace qdt::properties
