#include "sim/base/file_name.h"

#include <gtest/gtest.h>

namespace qdt::sim {
namespace {

TEST(FileNamePart, KeepsPlainNames) {
  EXPECT_EQ(file_name_part("default-12-model-agreement"), "default-12-model-agreement");
  EXPECT_EQ(file_name_part("shipped-expiry.threshold"), "shipped-expiry.threshold");
}

TEST(FileNamePart, NeverLeavesTheFolder) {
  EXPECT_EQ(file_name_part("../../etc/passwd"), "_._.._etc_passwd");
  EXPECT_EQ(file_name_part(".."), "_.");
  EXPECT_EQ(file_name_part("/abs"), "_abs");
  EXPECT_EQ(file_name_part("a\\b"), "a_b");
  EXPECT_EQ(file_name_part(std::string("nul\0x", 5)), "nul_x");
  EXPECT_EQ(file_name_part(""), "_");
  EXPECT_EQ(file_name_part("\xff\xfe"), "__");
  EXPECT_EQ(file_name_part(std::string(1000, 'a')).size(), 128u);
}

}  // namespace
}  // namespace qdt::sim
