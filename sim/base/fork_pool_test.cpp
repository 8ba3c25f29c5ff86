#include "sim/base/fork_pool.h"

#include <gtest/gtest.h>
#include <unistd.h>

namespace qdt::sim {
namespace {

TEST(ForkPool, ResultsComeBackInTaskOrderWhateverFinishesFirst) {
  const auto out = run_forked(7, 3, [](size_t i) {
    usleep(static_cast<useconds_t>((7 - i) * 2000));  // later tasks finish first
    return nlohmann::json{{"task", i}, {"big", std::string(200'000, 'x')}};  // more than a pipe holds
  });
  ASSERT_TRUE(out.has_value());
  ASSERT_EQ(out->size(), 7u);
  for (size_t i = 0; i < 7; ++i) EXPECT_EQ((*out)[i]["task"], i);
}

TEST(ForkPool, ATaskThatDiesIsNamed) {
  size_t failed = 99;
  const auto out = run_forked(4, 2, [](size_t i) {
    if (i == 2) _exit(3);  // as an assertion in a worker would
    return nlohmann::json{{"task", i}};
  }, &failed);
  EXPECT_FALSE(out.has_value());
  EXPECT_EQ(failed, 2u);
}

}  // namespace
}  // namespace qdt::sim
