#include "impl/storage/postgres/timestamp_text.h"

#include <cstdint>
#include <gtest/gtest.h>

namespace qdt::impl::postgres {
namespace {

TEST(TimestampText, ReadsTheInterfacesCreatedAtAndTheColumnFormat) {
  EXPECT_EQ(parse_timestamp_us("2023-11-14T22:13:20.123456Z"), 1'700'000'000'123'456);
  EXPECT_EQ(parse_timestamp_us("2023-11-14 22:13:20.123456+00"), 1'700'000'000'123'456);
  EXPECT_EQ(parse_timestamp_us("2023-11-14 22:13:20.5+00"), 1'700'000'000'500'000);
  EXPECT_EQ(parse_timestamp_us("2023-11-14 22:13:20+00"), 1'700'000'000'000'000);
  EXPECT_EQ(parse_timestamp_us("1970-01-01 00:00:00+00"), 0);
  EXPECT_EQ(parse_timestamp_us("2024-02-29T00:00:00.000001Z"), 1'709'164'800'000'001);
}

TEST(TimestampText, RefusesOtherZonesAndMalformedText) {
  EXPECT_EQ(parse_timestamp_us("2023-11-14 22:13:20+01"), std::nullopt);
  EXPECT_EQ(parse_timestamp_us("2023-11-14 22:13:20.1234567Z"), std::nullopt);
  EXPECT_EQ(parse_timestamp_us("2023-11-14 22:13:20."), std::nullopt);
  EXPECT_EQ(parse_timestamp_us("2023-13-14 22:13:20Z"), std::nullopt);
  EXPECT_EQ(parse_timestamp_us("yesterday"), std::nullopt);
}

TEST(TimestampText, MillisecondsStayInsideTheServersRange) {
  EXPECT_EQ(timestamp_us_from_ms(1'700'000'000'000), 1'700'000'000'000'000);
  EXPECT_EQ(timestamp_us_from_ms(-5), -5'000);
  EXPECT_EQ(timestamp_us_from_ms(INT64_MIN), -210'866'803'200'000'000);
  EXPECT_EQ(timestamp_us_from_ms(INT64_MAX), 9'223'371'331'199'999'999);
}

}  // namespace
}  // namespace qdt::impl::postgres
