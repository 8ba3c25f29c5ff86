#include "impl/frames.h"

#include <cstring>

namespace qdt::impl {
namespace {

void put_u32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

bool get_u32(std::string_view blob, size_t& pos, uint32_t& v) {
  if (blob.size() - pos < 4) return false;
  v = 0;
  for (int i = 0; i < 4; ++i) v |= static_cast<uint32_t>(static_cast<uint8_t>(blob[pos + i])) << (8 * i);
  pos += 4;
  return true;
}

bool get_bytes(std::string_view blob, size_t& pos, std::string* out) {
  uint32_t n;
  if (!get_u32(blob, pos, n) || blob.size() - pos < n) return false;
  if (out) out->assign(blob.substr(pos, n));
  pos += n;
  return true;
}

// Decodes the frame at pos; skips the copies when `out` is null.
bool decode(std::string_view blob, size_t& pos, DecodedFrame* out) {
  if (blob.size() - pos < 16) return false;
  if (out) std::memcpy(out->message_id.bytes.data(), blob.data() + pos, 16);
  pos += 16;
  return get_bytes(blob, pos, out ? &out->transaction_id : nullptr) &&
         get_bytes(blob, pos, out ? &out->payload : nullptr);
}

}  // namespace

std::string pack_frames(const std::vector<Frame>& frames) {
  std::string out;
  size_t size = 0;
  for (const Frame& f : frames) size += 24 + f.transaction_id.size() + f.payload.size();
  out.reserve(size);
  for (const Frame& f : frames) {
    out.append(reinterpret_cast<const char*>(f.message_id.bytes.data()), 16);
    put_u32(out, static_cast<uint32_t>(f.transaction_id.size()));
    out.append(f.transaction_id);
    put_u32(out, static_cast<uint32_t>(f.payload.size()));
    out.append(f.payload);
  }
  return out;
}

std::optional<DecodedFrame> frame_at(std::string_view blob, size_t index) {
  size_t pos = 0;
  for (size_t i = 0; i < index; ++i) {
    if (!decode(blob, pos, nullptr)) return std::nullopt;
  }
  DecodedFrame frame;
  if (!decode(blob, pos, &frame)) return std::nullopt;
  return frame;
}

std::vector<DecodedFrame> unpack_frames(std::string_view blob) {
  std::vector<DecodedFrame> frames;
  size_t pos = 0;
  while (pos < blob.size()) {
    DecodedFrame frame;
    if (!decode(blob, pos, &frame)) break;
    frames.push_back(std::move(frame));
  }
  return frames;
}

}  // namespace qdt::impl
