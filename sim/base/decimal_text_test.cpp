#include "sim/base/decimal_text.h"

#include <gtest/gtest.h>

namespace qdt::sim {
namespace {

TEST(DecimalText, WholeNumbersAreDecimalDigitsWithinSixtyFourBits) {
  std::string reason;
  EXPECT_EQ(parse_decimal("0", &reason), 0u);
  EXPECT_EQ(parse_decimal("18446744073709551615", &reason), UINT64_MAX);
  EXPECT_EQ(parse_decimal("010", &reason), 10u) << "decimal, not octal";
  EXPECT_FALSE(parse_decimal("-1", &reason));
  EXPECT_NE(reason.find("negative"), std::string::npos) << reason;
  EXPECT_FALSE(parse_decimal("18446744073709551616", &reason));
  EXPECT_NE(reason.find("larger than 18446744073709551615"), std::string::npos) << reason;
  for (const char* bad : {"", "+1", " 1", "1 ", "0x10", "1e3", "1.0", "nan"}) {
    EXPECT_FALSE(parse_decimal(bad, &reason)) << bad;
  }
}

TEST(DecimalText, NumbersAreFinite) {
  std::string reason;
  EXPECT_EQ(parse_finite("0.5", &reason), 0.5);
  EXPECT_EQ(parse_finite("30", &reason), 30.0);
  for (const char* bad : {"nan", "NaN", "-nan", "inf", "-inf", "infinity", "1e999", "", " 1", "1s", "--1"}) {
    EXPECT_FALSE(parse_finite(bad, &reason)) << bad;
  }
  EXPECT_FALSE(parse_finite("nan", &reason));
  EXPECT_NE(reason.find("not a number"), std::string::npos) << reason;
}

}  // namespace
}  // namespace qdt::sim
