#include "sim/bench/bench_machine.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

namespace qdt::sim {
namespace {

// A child that uses `cpu_s` of CPU, says so on `done`, then waits until
// `go` closes: its CPU time is counted while it lives and once reaped.
pid_t spin_child(double cpu_s, int done, int go, int go_writer) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(go_writer);
    // A forked child's CPU clock starts at zero.
    volatile unsigned long sink = 0;
    while (self_cpu_s() < cpu_s) sink = sink + 1;
    char c = 1;
    if (::write(done, &c, 1) != 1) ::_exit(1);
    while (::read(go, &c, 1) > 0) {
    }
    ::_exit(0);
  }
  return pid;
}

TEST(ProcessTreeCpu, CountsALiveChildAndKeepsCountingItOnceReaped) {
  int done[2], go[2];
  ASSERT_EQ(::pipe(done), 0);
  ASSERT_EQ(::pipe(go), 0);
  const auto before = process_tree_cpu_s(::getpid());
  ASSERT_TRUE(before.has_value());
  const double self_before = self_cpu_s();
  const pid_t child = spin_child(0.2, done[1], go[0], go[1]);
  ASSERT_GT(child, 0);
  ::close(go[0]);
  char c = 0;
  ASSERT_EQ(::read(done[0], &c, 1), 1);
  const auto alive = process_tree_cpu_s(::getpid());
  ASSERT_TRUE(alive.has_value());
  EXPECT_GE(*alive - *before, 0.19);
  // The child's CPU is not this process's own.
  EXPECT_LT(self_cpu_s() - self_before, 0.1);
  ::close(go[1]);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  const auto reaped = process_tree_cpu_s(::getpid());
  ASSERT_TRUE(reaped.has_value());
  EXPECT_GE(*reaped - *before, 0.17);  // reaped children count to the clock tick
  ::close(done[0]);
  ::close(done[1]);
}

TEST(ProcessTreeCpu, NoSuchProcessTellsNothing) { EXPECT_FALSE(process_tree_cpu_s(-1).has_value()); }

}  // namespace
}  // namespace qdt::sim
