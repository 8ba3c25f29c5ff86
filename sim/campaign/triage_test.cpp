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

// The checkers' wording keeps what varies in the forms taken out: the cited
// event's step and time in parentheses, frames in brackets, ids as UUIDs.
TEST(FailureRule, GroupsTheCheckersWordingAcrossSeeds) {
  EXPECT_EQ(failure_rule("event 4 (at 1767225600035 ms): model answers duplicate [frame 0 repeats offset 0, frame 1 "
                         "repeats offset 1], storage answered queued from offset 2"),
            "model answers duplicate, storage answered queued from offset #");
  const std::string one =
      "item 0 (txn k2) was answered duplicate 019b7748-8542-76a8-91ac-081030cd5026, but the model allows duplicate "
      "with id 019b7748-8533-7a37-9c39-d6af2d0903d8: frame 019b7748-8533-7a37-9c39-d6af2d0903d8 was a duplicate of "
      "offset 0 in event 4 (step s1, at 1767225600035 ms), and the fetches of that offset after it read id "
      "019b7748-8533-7a37-9c39-d6af2d0903d8";
  const std::string other =
      "item 2 (txn k7) was answered duplicate 019b76da-a800-7758-97a3-991e14e5562f, but the model allows duplicate "
      "with id 019b76da-a846-7dc5-bbb9-d3cf593ad8f3: frame 019b76da-a846-7dc5-bbb9-d3cf593ad8f3 was a duplicate of "
      "offset 13 in event 40 (step s12, at 1767225660043 ms), and the fetches of that offset after it read id "
      "019b76da-a846-7dc5-bbb9-d3cf593ad8f3";
  EXPECT_EQ(failure_rule(one), failure_rule(other));
  EXPECT_EQ(failure_rule(one).find("s1"), std::string::npos) << failure_rule(one);
  EXPECT_NE(failure_rule(one),
            failure_rule("item 0 (txn k2) was answered duplicate 019b7748-8542-76a8-91ac-081030cd5026, but the model "
                         "allows no answer: request 2 sent storage no frame of this key, and no push event records it "
                         "as a layer-2 follower (a request fused behind another request's frame of the key), so no "
                         "answer can be right"));
}

TEST(FailureRule, TwoBugsOfOnePropertyStayApart) {
  EXPECT_EQ(failure_rule("as a layer-2 follower, offset -1 and -0.5 s"), "as a layer-# follower, offset # and # s");
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
