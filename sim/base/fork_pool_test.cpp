#include "sim/base/fork_pool.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <string>

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

// Workers running at once hold different places; a place is reused only
// after its worker exited, so at most `jobs` places exist.
TEST(ForkPool, WorkersRunningAtOnceHoldDifferentSlots) {
  EXPECT_FALSE(forked_slot().has_value());
  const auto out = run_forked(6, 2, [](size_t i) {
    // The first two run together: each sleeps until the other surely started.
    if (i < 2) usleep(50'000);
    return nlohmann::json{{"slot", forked_slot().value_or(99)}};
  });
  ASSERT_TRUE(out.has_value());
  EXPECT_NE((*out)[0]["slot"], (*out)[1]["slot"]);
  for (const auto& doc : *out) EXPECT_LT(doc["slot"].get<size_t>(), 2u);
  EXPECT_FALSE(forked_slot().has_value());
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

// Whether `pid` still runs (a zombie nobody reaps has ended).
bool runs(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string pid_field, name, state;
  if (!(stat >> pid_field >> name >> state)) return false;
  return state != "Z" && state != "X";
}

TEST(ForkPool, AWorkerEndsWhenQdtIsKilled) {
  int report[2];
  ASSERT_EQ(pipe(report), 0);
  const pid_t qdt = fork();
  ASSERT_GE(qdt, 0);
  if (qdt == 0) {
    close(report[0]);
    run_forked(1, 1, [&](size_t) {
      const pid_t self = getpid();
      if (write(report[1], &self, sizeof self) != sizeof self) _exit(1);
      for (;;) pause();  // a long campaign
      return nlohmann::json{};
    });
    _exit(0);
  }
  close(report[1]);
  pid_t worker = 0;
  ASSERT_EQ(read(report[0], &worker, sizeof worker), static_cast<ssize_t>(sizeof worker));
  close(report[0]);
  ASSERT_TRUE(runs(worker));
  kill(qdt, SIGKILL);  // no handler runs: only the kernel can tell the worker
  ASSERT_EQ(waitpid(qdt, nullptr, 0), qdt);
  for (int i = 0; i < 5000 && runs(worker); ++i) usleep(1000);
  EXPECT_FALSE(runs(worker)) << "worker " << worker << " outlived qdt";
  if (runs(worker)) kill(worker, SIGKILL);
}

}  // namespace
}  // namespace qdt::sim
