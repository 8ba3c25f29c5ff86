#pragma once
// A segment's blob of packed frames (docs/semantics.md §2.4): for each frame, the 16-byte
// message id, then the transactionId and the payload, each length-prefixed
// (u32 little-endian). Frames are decoded by index without unpacking the rest.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "impl/hash.h"
#include "impl/uuid.h"

namespace qdt::impl {

struct Frame {
  Uuid message_id;
  std::string transaction_id;
  std::string payload;  // the item's `data`, serialized JSON
  Hash128 hash;         // of transaction_id
  // The request this frame came from. Not stored: the broker and the history
  // recorder use it to map verdicts back to items (fusion mixes requests).
  uint64_t origin_request = 0;
};

struct DecodedFrame {
  Uuid message_id;
  std::string transaction_id;
  std::string payload;
};

std::string pack_frames(const std::vector<Frame>& frames);
// nullopt when the blob is malformed or has fewer than index+1 frames.
std::optional<DecodedFrame> frame_at(std::string_view blob, size_t index);
std::vector<DecodedFrame> unpack_frames(std::string_view blob);

}  // namespace qdt::impl
