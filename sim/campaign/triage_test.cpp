#include "sim/campaign/triage.h"

#include <gtest/gtest.h>

namespace qdt::sim {
namespace {

TEST(FailureRule, TakesOutWhatVariesFromSeedToSeed) {
  EXPECT_EQ(failure_rule("event 23 (now 1767229200081 ms): model answers duplicate [1->5], storage answered queued at base 6"),
            "model answers duplicate, storage answered queued at base #");
  EXPECT_EQ(failure_rule("event 4 (now 1767225600035 ms): model answers duplicate [0->0, 1->1], storage answered queued at base 2"),
            failure_rule("event 9 (now 1767225660043 ms): model answers duplicate [0->3], storage answered queued at base 5"));
  EXPECT_EQ(failure_rule("the push transaction of 'broker 2' at 1767225600332 ms was aborted to break a wait cycle "
                         "(SQLSTATE 40P01) (event 55)"),
            "the push transaction of … at # ms was aborted to break a wait cycle");
  EXPECT_EQ(failure_rule("message 019b76da-a846-7dc5-bbb9-d3cf593ad8f3 stored twice (events 3, (4))."),
            "message … stored twice");
}

TEST(FailureRule, TwoBugsOfOnePropertyStayApart) {
  EXPECT_NE(failure_rule("event 5: created_at 1767225600024 ms at offset 2 is older than 1767225600025 ms of the segment"),
            failure_rule("event 5: offset 3 was allocated twice"));
}

TEST(FailingStepKind, FindsTheStepByIdOrByJsonPath) {
  const auto scenario = nlohmann::json::parse(R"({"steps": [
    {"id": "s0", "op": "push"},
    {"op": "parallel", "steps": [{"id": "a", "op": "ack"}, {"op": "read"}]}]})");
  EXPECT_EQ(failing_step_kind(scenario, "s0"), "push");
  EXPECT_EQ(failing_step_kind(scenario, "a"), "ack");
  EXPECT_EQ(failing_step_kind(scenario, "/steps/1/steps/1"), "read");
  EXPECT_EQ(failing_step_kind(scenario, "/steps/9"), "");
  EXPECT_EQ(failing_step_kind(scenario, "nope"), "");
  EXPECT_EQ(failing_step_kind(scenario, ""), "");
}

}  // namespace
}  // namespace qdt::sim
