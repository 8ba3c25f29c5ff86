#include "sim/campaign/triage.h"

#include <gtest/gtest.h>

#include <sstream>

namespace qdt::sim {
namespace {

using json = nlohmann::json;

json record(const std::string& property, const std::string& step_kind, const std::string& rule) {
  json f = {{"profile", "default"}, {"seed", 1}, {"property", property}, {"detail", "event 4 (at 5 ms): text"},
            {"check", "qdt check --seed 1"}};
  if (!step_kind.empty()) f["step_kind"] = step_kind;
  if (!rule.empty()) f["rule"] = rule;
  return f;
}

TEST(FailureCause, IsTheRuleIdAndTheStepKind) {
  EXPECT_EQ(failure_cause(record("model-agreement", "push", "model-agreement/duplicate-answered-queued")),
            "model-agreement/duplicate-answered-queued · push");
  EXPECT_EQ(failure_cause(record("expectation", "", "expectation/response")), "expectation/response");
  // Two rules of one property, or one rule at two kinds of step, are two causes.
  EXPECT_NE(failure_cause(record("offsets", "push", "offsets/gap")),
            failure_cause(record("offsets", "push", "offsets/overlap")));
  EXPECT_NE(failure_cause(record("offsets", "push", "offsets/gap")),
            failure_cause(record("offsets", "ack", "offsets/gap")));
}

// Summaries written before rule ids carry the failure's text with what
// varies taken out as `rule`, or no rule at all: --merge still groups them.
TEST(FailureCause, FallsBackForSummariesWithoutRuleIds) {
  const std::string prose = "model answers duplicate, storage answered queued from offset #";
  EXPECT_EQ(failure_cause(record("model-agreement", "push", prose)), "model-agreement · push · " + prose);
  EXPECT_EQ(failure_cause(record("offsets", "push", "")), "offsets · push");
  EXPECT_EQ(failure_cause(record("offsets", "", "")), "offsets");
}

TEST(PrintTriage, GroupsByRuleAndHeadsEachGroupWithItsExplanation) {
  json failures = json::array();
  for (int i = 0; i < 3; ++i) {
    json f = record("model-agreement", "push", "model-agreement/duplicate-answered-queued");
    f["explanation"] = "A producer's retry was stored as a second message: consumers read it twice.";
    failures.push_back(f);
  }
  json gap = record("offsets", "push", "offsets/gap");
  gap["explanation"] = "Offsets were skipped: consumers reading by offset wait for messages that never come.";
  failures.push_back(gap);
  failures.push_back(record("model-agreement", "push", "model answers duplicate, storage answered queued"));
  std::ostringstream out;
  print_triage(out, failures, 3);
  const std::string text = out.str();
  EXPECT_NE(text.find("3 causes (rule broken · step), most seeds first:\n"
                      "    3 × model-agreement/duplicate-answered-queued · push\n"
                      "      A producer's retry was stored as a second message: consumers read it twice.\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("    1 × offsets/gap · push\n      Offsets were skipped"), std::string::npos) << text;
  // An older record has no explanation: its group is headed by its cause alone.
  EXPECT_NE(text.find("    1 × model-agreement · push · model answers duplicate, storage answered queued\n"
                      "      shrink one:"),
            std::string::npos)
      << text;
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
