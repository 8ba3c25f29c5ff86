#include "sim/trace.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

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

}  // namespace
}  // namespace qdt::sim
