#include "properties/diagnosis.h"

#include <gtest/gtest.h>

namespace qdt::properties {
namespace {

using namespace qdt::history;

History one_push(int64_t assumed_s, int64_t window_s, int64_t p_verified) {
  History h;
  PushEvent p;
  p.queue = "q";
  p.partition = "p";
  p.p_verified = p_verified;
  p.window_seconds_assumed = assumed_s;
  p.window_seconds = window_s;
  p.queued = true;
  h.events.emplace_back(p);
  return h;
}

TEST(Diagnosis, AWatermarkFromAStaleWindowIsNamedInWords) {
  const auto why = likely_cause(one_push(60, 3600, 4), "model-agreement", "q/p");
  ASSERT_TRUE(why);
  EXPECT_NE(why->find("learnt window was stale"), std::string::npos) << *why;
  EXPECT_NE(why->find("a window of 60 s while the queue's window was 3600 s"), std::string::npos) << *why;
}

// The negative cases: a fresh window, no watermark, another partition or a
// property a stale watermark does not break name no cause.
TEST(Diagnosis, NoCauseWithoutAStaleWatermarkOnTheFailingPartition) {
  EXPECT_FALSE(likely_cause(one_push(3600, 3600, 4), "model-agreement", "q/p"));
  EXPECT_FALSE(likely_cause(one_push(60, 3600, -1), "model-agreement", "q/p"));
  EXPECT_FALSE(likely_cause(one_push(60, 3600, 4), "model-agreement", "q/other"));
  EXPECT_FALSE(likely_cause(one_push(60, 3600, 4), "liveness", "q/p"));
}

}  // namespace
}  // namespace qdt::properties
