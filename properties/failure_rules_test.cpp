#include "properties/failure_rules.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "properties/checkers.h"
#include "properties/failure_sink.h"
#include "properties/history_builder_test.h"

namespace qdt::properties {
namespace {

bool is_property(std::string_view name) {
  const std::vector<std::string>& names = property_names();
  return std::find(names.begin(), names.end(), name) != names.end();
}

TEST(FailureRules, EveryRuleIsExplainedOnceInASentence) {
  std::set<std::string_view> explanations;
  for (const RuleEntry& r : rule_catalogue()) {
    EXPECT_FALSE(r.explanation.empty()) << r.id;
    EXPECT_EQ(r.explanation.back(), '.') << r.id << ": " << r.explanation;
    EXPECT_TRUE(explanations.insert(r.explanation).second) << r.id << " repeats another rule's explanation";
  }
}

TEST(FailureRules, EveryRuleBelongsToAPropertyOrTheRunsOwnChecks) {
  for (const RuleEntry& r : rule_catalogue()) {
    const std::string_view owner = rule_owner(r.rule);
    EXPECT_TRUE(is_property(owner) || owner == "expectation" || owner == "generator") << r.id;
    EXPECT_EQ(r.id.substr(0, owner.size() + 1), std::string(owner) + "/") << r.id;
  }
  for (const std::string& name : property_names()) {
    EXPECT_TRUE(std::any_of(rule_catalogue().begin(), rule_catalogue().end(),
                            [&](const RuleEntry& r) { return rule_owner(r.rule) == name; }))
        << name << " has no rule";
  }
}

TEST(FailureRules, AnIdFindsItsRule) {
  for (const RuleEntry& r : rule_catalogue()) {
    EXPECT_EQ(find_rule(r.id), r.rule) << r.id;
    EXPECT_EQ(rule_id(r.rule), r.id);
    EXPECT_EQ(rule_explanation(r.rule), r.explanation);
  }
  EXPECT_EQ(rule_id(Rule::model_agreement_duplicate_answered_queued), "model-agreement/duplicate-answered-queued");
  // A summary written by another qdt may name rules this one does not know.
  EXPECT_EQ(find_rule("model-agreement/no-such-rule"), std::nullopt);
  EXPECT_EQ(find_rule("model answers duplicate, storage answered queued from offset #"), std::nullopt);
}

TEST(FailureSink, StampsThePropertyAndTheRule) {
  FailureSink sink("offsets", 1);
  sink.add(Rule::offsets_gap, {.step = "s1", .partition = "q/p", .event = 4, .expected = "queued from offset 2",
                               .actual = "queued from offset 3", .detail = "a gap"});
  sink.add(Rule::offsets_overlap, {.detail = "an overlap"});
  const std::vector<Failure> failures = sink.take();
  ASSERT_EQ(failures.size(), 2u);
  EXPECT_EQ(failures[0].property, "offsets");
  EXPECT_EQ(failures[0].rule, Rule::offsets_gap);
  EXPECT_EQ(failures[0].event, 4u);
  EXPECT_EQ(failures[0].expected, "queued from offset 2");
  EXPECT_EQ(failures[0].actual, "queued from offset 3");
  // The closing count of what the cap dropped is no finding: it names no rule.
  EXPECT_EQ(failures[1].property, "offsets");
  EXPECT_EQ(failures[1].rule, std::nullopt);
  EXPECT_EQ(failures[1].detail, "1 more failures of offsets not shown (first 1 kept)");
}

TEST(FailureSinkDeathTest, RefusesAnotherPropertysRule) {
  FailureSink sink("offsets");
  EXPECT_DEATH(sink.add(Rule::dedup_off_probe_ran, {.detail = "wrong sink"}), "rule_owner");
}

// Every property's rule is found by some checker test (testing::has_rule):
// a rule no broken history reaches is a check that cannot fail. Judged once
// the whole suite has run; a filtered run judges nothing.
class EveryRuleHasANegativeTest : public ::testing::Environment {
 public:
  void TearDown() override {
    if (GTEST_FLAG_GET(filter) != "*") return;
    for (const RuleEntry& r : rule_catalogue()) {
      if (!is_property(rule_owner(r.rule))) continue;  // the run's own checks: tested in sim/scenario
      EXPECT_TRUE(testing::rules_found().contains(r.rule)) << r.id << ": no test feeds it a broken history";
    }
  }
};

[[maybe_unused]] ::testing::Environment* const kEveryRuleHasANegativeTest =
    ::testing::AddGlobalTestEnvironment(new EveryRuleHasANegativeTest);

}  // namespace
}  // namespace qdt::properties
