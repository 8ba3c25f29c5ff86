#include "model/text_hash.h"

#include <gtest/gtest.h>

#include <string>

namespace qdt::model {
namespace {

// Every byte of a string reaches its hash, whatever the length: the tail is
// read with overlapping loads, and a byte no load covered would make keys
// that differ only there collide in every table (correct, but a linear scan).
TEST(TextHash, EveryByteAndTheLengthChangeTheHash) {
  for (size_t n = 1; n <= 40; ++n) {
    std::string text;
    for (size_t i = 0; i < n; ++i) text.push_back(static_cast<char>('a' + i % 26));
    const uint64_t h = text_hash(text);
    EXPECT_EQ(text_hash(std::string(text)), h);  // equal strings, equal hashes
    for (size_t i = 0; i < n; ++i) {
      std::string changed = text;
      changed[i] = '#';
      EXPECT_NE(text_hash(changed), h) << "length " << n << ", byte " << i;
    }
    EXPECT_NE(text_hash(text + '\0'), h) << "length " << n;  // a zero byte more is another string
    EXPECT_NE(text_hash(text, 1), h) << "length " << n;      // the seed counts
  }
  EXPECT_NE(text_hash(""), text_hash(std::string(1, '\0')));
}

}  // namespace
}  // namespace qdt::model
