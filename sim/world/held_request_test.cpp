#include "sim/world/held_request.h"

#include <gtest/gtest.h>

#include <boost/fiber/all.hpp>
#include <memory>

#include <string>

namespace qdt::sim {
namespace {

nlohmann::json nested(int levels) {
  nlohmann::json v = "leaf";
  for (int i = 0; i < levels; ++i) {  // moved in, not copied: a copy per level would be quadratic
    nlohmann::json next = (i % 2 == 0) ? nlohmann::json::array() : nlohmann::json::object();
    if (i % 2 == 0) {
      next.push_back(std::move(v));
      next.push_back(i);
    } else {
      next["k"] = std::move(v);
      next["n"] = i;
    }
    v = std::move(next);
  }
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
// left whole for nlohmann's destructor; depth 0 touches nothing.
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

}

// A hostile depth is freed on a fiber's small stack: taken apart by
// recursion all the way down, 100 000 levels would overflow 64 KiB and
// crash the test; bounded at kDismantleDepth, nlohmann's own (iterative)
// destructor takes the rest.
TEST(HeldRequest, AHostileDepthIsFreedOnASmallFiberStack) {
  auto hostile = hold_request(nested(100'000));
  EXPECT_FALSE(hostile->empty());
  boost::fibers::fiber release(std::allocator_arg, boost::fibers::fixedsize_stack(64 * 1024),
                               [&] { hostile.reset(); });
  release.join();
  EXPECT_EQ(hostile, nullptr);
}

}  // namespace
}  // namespace qdt::sim
