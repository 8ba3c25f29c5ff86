#include "reports/campaign_verdict.h"

#include <gtest/gtest.h>

namespace qdt::reports {
namespace {

using nlohmann::json;

TEST(CampaignVerdict, PassOnlyWhenNothingFailedAndSomethingWasJudged) {
  const json clean = {{"failed", 0}, {"judged", {{"ack-resolution", {{"of", 3}, {"judged", 3}}}}}};
  EXPECT_EQ(campaign_verdict(clean).word, "PASS");
  EXPECT_TRUE(campaign_verdict(clean).held);
  EXPECT_EQ(campaign_verdict(clean).idle, "");

  json failed = clean;
  failed["failed"] = 1;
  EXPECT_EQ(campaign_verdict(failed).word, "FAIL");

  json hollow = clean;
  hollow["unjudged"] = {"judged 0 of 412 acks: every one failed, so ack-resolution judged nothing"};
  const Verdict h = campaign_verdict(hollow);
  EXPECT_EQ(h.word, "UNTESTED");
  EXPECT_FALSE(h.held);
  ASSERT_EQ(h.reasons.size(), 1u);

  json untested = clean;
  untested["untested"] = "untested: no seed ran stale-window's change";
  EXPECT_EQ(campaign_verdict(untested).word, "UNTESTED");

  json missing = clean;
  missing["coverage_missing"] = {"window.shrunk"};
  EXPECT_EQ(campaign_verdict(missing).word, "FAIL");
  EXPECT_NE(campaign_verdict(missing).reasons.at(0).find("window.shrunk"), std::string::npos);

  json forks = clean;
  forks["fork_failures"] = {json::object()};
  EXPECT_EQ(campaign_verdict(forks).word, "FAIL");
}

TEST(CampaignVerdict, NamesThePropertiesThatJudgedNoEvent) {
  const json s = {{"failed", 0},
                  {"judged", {{"retention-model", {{"of", 0}, {"judged", 0}}}, {"sidecar-floor", {{"of", 0}, {"judged", 0}}},
                              {"offsets", {{"of", 9}, {"judged", 9}}}}}};
  const Verdict v = campaign_verdict(s);
  EXPECT_EQ(v.word, "PASS");
  EXPECT_EQ(v.idle, "retention-model, sidecar-floor");
}

}  // namespace
}  // namespace qdt::reports
