#include "sim/base/content_hash.h"

#include <gtest/gtest.h>

namespace qdt::sim {
namespace {

TEST(ContentHash, IsThirtyTwoHexDigitsThatChangeWithTheContent) {
  const std::string a = content_hash_hex("CREATE FUNCTION f() ...");
  EXPECT_TRUE(is_content_hash_hex(a));
  EXPECT_EQ(a, content_hash_hex("CREATE FUNCTION f() ..."));
  EXPECT_NE(a, content_hash_hex("CREATE FUNCTION f() ...;"));
  // The empty input has a fixed, published xxh3-128.
  EXPECT_EQ(content_hash_hex(""), "99aa06d3014798d86001c324468d497f");
}

TEST(ContentHash, RecognisesOnlyItsOwnShape) {
  EXPECT_FALSE(is_content_hash_hex(""));
  EXPECT_FALSE(is_content_hash_hex("99AA06D3014798D86001C324468D497F"));
  EXPECT_FALSE(is_content_hash_hex("99aa06d3014798d86001c324468d497"));
  EXPECT_FALSE(is_content_hash_hex("../../etc/hostname"));
}

}  // namespace
}  // namespace qdt::sim
