#include "sim/world/storage_recorder.h"

#include <gtest/gtest.h>

#include "sim/base/rng.h"
#include "sim/base/trace.h"
#include "sim/schedule/virtual_clock.h"
#include "sim/world/storage_gate.h"

namespace qdt::sim {
namespace {

// A gate fresh from construction stands for one call (begin_call needs a
// scheduler, which these tests do not run).
struct Side {
  VirtualClock clock;
  history::History history;
  Trace trace{true};
  Rng rng{1};
  StorageConfig config;
  StorageSide side{clock, history, trace, rng, config, {}};
};

TEST(LockFailures, ADeadlockVictimIsRecorded) {
  Side s;
  ConnectionGate gate(s.side, 1, nullptr);
  record_lock_failure(s.side, gate, "push", "", "q", "p", -1, impl::StorageError::deadlock("cycle"));
  ASSERT_EQ(s.history.lock_failures.size(), 1u);
  const history::LockFailure& f = s.history.lock_failures[0];
  EXPECT_TRUE(f.deadlock);
  EXPECT_EQ(f.connection, "broker 1");
  EXPECT_EQ(f.call, "push");
  EXPECT_NE(s.trace.text().find("lock-failure"), std::string::npos);
}

// A busy statement, an injected fault or a lost connection is no lock failure.
TEST(LockFailures, OtherErrorsAreNotRecorded) {
  Side s;
  ConnectionGate gate(s.side, ConnectionGate::kRetention, nullptr);
  record_lock_failure(s.side, gate, "purge", "", "q", "p", -1, impl::StorageError("busy", 5));
  record_lock_failure(s.side, gate, "purge", "", "q", "p", -1, impl::StorageError::connection_lost("gone"));
  EXPECT_TRUE(s.history.lock_failures.empty());
  EXPECT_TRUE(s.trace.text().empty());
}

TEST(LockFailures, AWaitGivenUpAfterTheBoundIsRecorded) {
  Side s;
  ConnectionGate gate(s.side, ConnectionGate::kAdmin, nullptr);
  EXPECT_FALSE(gate.wait_busy(impl::TxnKind::push, ConnectionGate::kBusyAttemptsMax + 1));
  EXPECT_TRUE(gate.wait_abandoned());
  record_lock_failure(s.side, gate, "configure", "", "q", "", -1, impl::StorageError("gave up", 5));
  ASSERT_EQ(s.history.lock_failures.size(), 1u);
  EXPECT_FALSE(s.history.lock_failures[0].deadlock);
  EXPECT_EQ(s.history.lock_failures[0].connection, "admin");
}

}  // namespace
}  // namespace qdt::sim
