#include "impl/frames.h"

#include <gtest/gtest.h>

namespace qdt::impl {
namespace {

TEST(Frames, PackThenDecodeByIndex) {
  std::vector<Frame> frames(3);
  for (int i = 0; i < 3; ++i) {
    frames[i].message_id = make_uuid_v7(1700000000000 + i, 11u * i, 13u * i);
    frames[i].transaction_id = "t" + std::to_string(i);
    frames[i].payload = std::string(static_cast<size_t>(i) * 3, 'x');
  }
  const std::string blob = pack_frames(frames);
  for (size_t i = 0; i < 3; ++i) {
    auto f = frame_at(blob, i);
    ASSERT_TRUE(f);
    EXPECT_EQ(f->message_id, frames[i].message_id);
    EXPECT_EQ(f->transaction_id, frames[i].transaction_id);
    EXPECT_EQ(f->payload, frames[i].payload);
  }
  EXPECT_FALSE(frame_at(blob, 3));
  EXPECT_FALSE(frame_at(blob.substr(0, blob.size() - 1), 2));  // truncated blob
  EXPECT_EQ(unpack_frames(blob).size(), 3u);
}

TEST(Uuid, V7LayoutAndRoundTrip) {
  const Uuid u = make_uuid_v7(0x0190'1234'5678, 0xabc, 0x0123'4567'89ab'cdef);
  const std::string text = to_string(u);
  EXPECT_EQ(text.substr(0, 13), "01901234-5678");
  EXPECT_EQ(text[14], '7');                        // version
  EXPECT_TRUE(text[19] >= '8' && text[19] <= 'b');  // variant 10
  EXPECT_EQ(parse_uuid(text), u);
  EXPECT_FALSE(parse_uuid("not-a-uuid"));
  EXPECT_TRUE(parse_uuid(kZeroUuidText)->is_zero());
}

TEST(Hash, BigEndianXxh3) {
  const Hash128 a = hash_transaction_id("order:8812:v3");
  EXPECT_EQ(a, hash_transaction_id("order:8812:v3"));
  EXPECT_NE(a, hash_transaction_id("order:8812:v4"));
  EXPECT_EQ(to_hex(a).size(), 32u);
}

}  // namespace
}  // namespace qdt::impl
