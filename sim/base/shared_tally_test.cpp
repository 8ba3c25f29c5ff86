#include "sim/base/shared_tally.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

namespace qdt::sim {
namespace {

TEST(SharedTally, ForkedWorkersCountsReachEveryProcess) {
  SharedTally tally(3);
  tally.add(0, 2, 1);
  for (size_t worker = 1; worker < 3; ++worker) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      tally.add(worker, 5, worker);
      _exit(0);
    }
    int status = 0;
    ASSERT_EQ(waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  EXPECT_EQ(tally.done(), 12u);
  EXPECT_EQ(tally.failed(), 4u);
}

}  // namespace
}  // namespace qdt::sim
