// No checker passes on events it did not judge: fed a history in which every
// call failed, each property fails, or its evidence says it judged none of
// its events (and a campaign then reports it hollow), or it is one of the
// few that judge failed calls themselves.
#include "properties/evidence.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "properties/checkers.h"

namespace qdt::properties {
namespace {

using namespace qdt::history;

// Two producers' pushes to one partition, a retried one, an ack, a
// retention step and a purge step, each of which failed: storage refused
// every transaction and each producer saw only errors.
History every_call_failed() {
  History h;
  h.recorded_outcomes = true;
  for (uint64_t n = 0; n < 3; ++n) {
    PushEvent p;
    p.queue = "q";
    p.partition = "p";
    p.p_verified = n == 2 ? 0 : -1;
    p.failed = true;
    FrameRecord f;
    f.transaction_id = "k" + std::to_string(n);
    p.frames.push_back(f);
    h.events.emplace_back(p);
  }
  AckEvent a;
  a.step = "a1";
  a.queue = "q";
  a.partition = "p";
  a.transaction_id = "k0";
  a.consumer_group = "g";
  a.failed = true;
  h.events.emplace_back(a);
  RetentionEvent r;
  r.queue = "q";
  r.partition = "p";
  r.failed = true;
  h.events.emplace_back(r);
  PurgeEvent u;
  u.queue = "q";
  u.partition = "p";
  u.failed = true;
  h.events.emplace_back(u);
  for (uint64_t n = 0; n < 3; ++n) {
    RequestRecord q;
    q.request = n + 1;
    q.step = "s" + std::to_string(n);
    q.producer = "P" + std::to_string(n % 2);
    q.push_id = n < 2 ? n + 1 : 1;
    q.attempt = n < 2 ? 0 : 1;
    q.items.push_back({"q", "p", "k" + std::to_string(n < 2 ? n : 0)});
    q.responses.push_back({"error", kZeroUuid, "k" + std::to_string(n < 2 ? n : 0), "q"});
    h.requests.push_back(q);
  }
  for (uint64_t n = 0; n < 2; ++n) {
    PushOutcomeRecord o;
    o.step = "s" + std::to_string(n);
    o.producer = "P" + std::to_string(n);
    o.push_id = n + 1;
    o.attempts = n == 0 ? 2 : 1;
    o.statuses = {"error"};
    o.message_ids = {kZeroUuid};
    h.outcomes.push_back(o);
  }
  return h;
}

TEST(Evidence, EveryPropertyFailsOrSaysItJudgedNothingWhenEveryCallFailed) {
  const History h = every_call_failed();
  const std::vector<Evidence> evidence = evidence_of(h);
  std::set<std::string> exempt;
  for (const auto& [name, why] : properties_judging_failures()) exempt.insert(name);
  for (const std::string& name : property_names()) {
    SCOPED_TRACE(name);
    if (exempt.count(name)) continue;
    const auto it = std::find_if(evidence.begin(), evidence.end(), [&](const Evidence& e) { return e.property == name; });
    ASSERT_NE(it, evidence.end()) << "a property with no evidence and no reason to judge failures";
    const bool hollow = it->of > 0 && it->judged == 0;
    EXPECT_TRUE(hollow || !check_property(name, h).empty())
        << name << " passed on " << it->of << " " << it->events << ", judging " << it->judged;
  }
}

TEST(Evidence, EveryPropertyIsAccountedForOnce) {
  std::multiset<std::string> seen;
  for (const Evidence& e : evidence_of(History{})) seen.insert(e.property);
  for (const auto& [name, why] : properties_judging_failures()) seen.insert(name);
  for (const std::string& name : property_names()) EXPECT_EQ(seen.count(name), 1u) << name;
  EXPECT_EQ(seen.size(), property_names().size());
}

// The negative case: with one answered push, the push properties judged it.
TEST(Evidence, AnAnsweredCallIsJudged) {
  History h = every_call_failed();
  std::get<PushEvent>(h.events[0]).failed = false;
  std::get<AckEvent>(h.events[3]).failed = false;
  for (const Evidence& e : evidence_of(h)) {
    if (e.events == "storage pushes") {
      EXPECT_EQ(e.judged, 1) << e.property;
    } else if (e.property == "ack-resolution") {
      EXPECT_EQ(e.judged, 1);
    } else if (e.property == "sidecar-floor") {
      EXPECT_EQ(e.judged, 0);
    }
  }
}

}  // namespace
}  // namespace qdt::properties
