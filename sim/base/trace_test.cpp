#include "sim/base/trace.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

namespace qdt::sim {
namespace {

// A request's body is written into the trace without a string of its own:
// the line, and so every trace hash, must be what value.dump() gave.
TEST(Trace, JsonFieldIsTheDumpOfTheValue) {
  const nlohmann::json body = nlohmann::json::parse(
      R"([{"queue":"q","partition":"p","transactionId":"k\"1\\","data":{"n":-3,"x":[1.5,null,true],"s":"é\u0001"}},7])");
  Trace dumped(true), direct(true);
  dumped.begin(12, "send").field("push", 1).field("body", body.dump()).end();
  direct.begin(12, "send").field("push", 1).field_json("body", body).end();
  EXPECT_EQ(direct.text(), dumped.text());
  EXPECT_EQ(direct.hash_hex(), dumped.hash_hex());
  EXPECT_NE(direct.text().find(R"("transactionId":"k\"1\\")"), std::string::npos);
}

// A frame's id and key are written side by side without being joined first:
// the line must be what the joined string gave.
TEST(Trace, PairFieldIsTheJoinedValue) {
  Trace joined(true), pair(true);
  joined.begin(3, "push").field("f", std::string("0190-ab") + "/" + "k1").field("f", std::string("") + "/" + "").end();
  pair.begin(3, "push").field("f", "0190-ab", '/', "k1").field("f", "", '/', "").end();
  EXPECT_EQ(pair.text(), joined.text());
  EXPECT_EQ(pair.hash_hex(), joined.hash_hex());
  EXPECT_NE(pair.text().find(" f=0190-ab/k1 f=/"), std::string::npos);
}

// Lines are written into a buffer that grows: a line many times its first
// size, the extreme integers and the line after a long one must be exactly
// the text a string concatenation gives, and the hash that text's xxh3-128.
TEST(Trace, LinesAreTheirFieldsJoinedWhateverTheirLength) {
  const std::string long_value(1000, 'v');
  std::string expected;
  Trace trace(true);
  trace.begin(-7, "long").field("a", long_value).field("min", INT64_MIN).field("max", INT64_MAX).raw("r=1").end();
  expected += "-7 long a=" + long_value + " min=" + std::to_string(INT64_MIN) + " max=" + std::to_string(INT64_MAX) +
              " r=1\n";
  trace.begin(9223372036854775807, "short").field("k", "", '/', long_value).field("z", 0).end();
  expected += "9223372036854775807 short k=/" + long_value + " z=0\n";
  for (int i = 0; i < 300; ++i) {
    trace.begin(i, "n").field("i", i).end();
    expected += std::to_string(i) + " n i=" + std::to_string(i) + "\n";
  }
  EXPECT_EQ(trace.text(), expected);
  EXPECT_EQ(trace.lines(), 302u);
  const XXH128_hash_t h = XXH3_128bits(expected.data(), expected.size());
  char hex[33];
  std::snprintf(hex, sizeof hex, "%016llx%016llx", static_cast<unsigned long long>(h.high64),
                static_cast<unsigned long long>(h.low64));
  EXPECT_EQ(trace.hash_hex(), hex);
}

}  // namespace
}  // namespace qdt::sim
