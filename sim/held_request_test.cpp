#include "sim/held_request.h"

#include <gtest/gtest.h>

#include <string>

namespace qdt::sim {
namespace {

nlohmann::json nested(int levels) {
  nlohmann::json v = "leaf";
  for (int i = 0; i < levels; ++i) v = (i % 2 == 0) ? nlohmann::json::array({v, i}) : nlohmann::json{{"k", v}, {"n", i}};
  return v;
}

// Held, the request is the body it was given, unchanged, for every holder.
TEST(HeldRequest, EveryHolderSeesTheBodyAsGiven) {
  const nlohmann::json body = nlohmann::json::parse(
      R"([{"queue":"q","partition":"p","transactionId":"k1","data":{"n":1,"x":[1,{"y":null}]}},{"queue":"q","data":2}])");
  auto first = hold_request(body);
  auto second = first;
  EXPECT_EQ(*first, body);
  first.reset();
  EXPECT_EQ(*second, body);
}

// Taken apart to its depth, a value is an empty container; deeper ones are
// left whole for nlohmann's destructor (which the depth test below needs
// to be safe: ten thousand levels would overflow a fiber's stack if taken
// apart by recursion).
TEST(HeldRequest, DismantlingEmptiesToItsDepthAndLeavesDeeperTreesWhole) {
  nlohmann::json shallow = nested(5);
  dismantle_json(shallow);
  EXPECT_TRUE(shallow.is_array() && shallow.empty());  // nested(5) is an array at the top

  nlohmann::json deep = nlohmann::json::array({nested(3)});
  nlohmann::json& inner = deep[0];
  dismantle_json(inner, 1);  // one level: inner's members are cleared, not visited further
  EXPECT_TRUE(inner.empty());

  nlohmann::json kept = nlohmann::json::array({nlohmann::json::array({nlohmann::json::array({1, 2})})});
  dismantle_json(kept, 0);
  EXPECT_EQ(kept.dump(), "[[[1,2]]]");  // depth 0 touches nothing

  auto hostile = hold_request(nested(10'000));
  EXPECT_FALSE(hostile->empty());
  hostile.reset();  // freed without recursion past kDismantleDepth
}

}  // namespace
}  // namespace qdt::sim
