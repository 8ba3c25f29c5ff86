#include "sim/runner.h"

#include <gtest/gtest.h>

#include <set>

namespace qdt::sim {
namespace {

Scenario load(const std::string& text) {
  LoadResult r = load_scenario_text(text, "test.json");
  EXPECT_TRUE(r.scenario) << (r.errors.empty() ? "" : r.errors[0].to_string());
  return r.scenario ? *r.scenario : Scenario{};
}

const char* kBasic = R"({
  "name": "basic", "seed": 1,
  "queues": {"orders": {"dedupWindowSeconds": 3600}},
  "steps": [
    {"id": "p1", "op": "push", "items": [{"queue": "orders", "transactionId": "t1", "data": {"n": 1}}]},
    {"id": "p2", "op": "push", "items": [{"queue": "orders", "transactionId": "t1", "data": {"n": 1}}]},
    {"id": "r", "op": "read", "queue": "orders"}
  ],
  "expect": {"p1": [{"status": "queued", "message_id": "new"}],
             "p2": [{"status": "duplicate", "message_id": "@p1/0"}],
             "r": {"transactionIds": ["t1"]},
             "stored": {"orders/Default": 1}}
})";

// Four producers race on one key; the scheduler's seed decides who wins.
std::string race(uint64_t seed) {
  std::string children;
  for (int i = 0; i < 4; ++i) {
    if (i) children += ",";
    children += R"({"id": "c)" + std::to_string(i) +
                R"(", "op": "push", "items": [{"queue": "q", "transactionId": "k", "data": {}}]})";
  }
  return R"({"name": "race", "seed": )" + std::to_string(seed) +
         R"(, "world": {"network": {"latency_ms": [0, 3]}}, "steps": [{"op": "parallel", "steps": [)" + children +
         R"(]}], "expect": {"stored": {"q/Default": 1}}})";
}

TEST(Runner, BasicDuplicatePassesWithItsExpectations) {
  const RunOutcome out = run_scenario(load(kBasic), {});
  EXPECT_TRUE(out.passed) << out.result["failures"].dump(2);
  EXPECT_EQ(out.result["steps"]["p2"]["response"][0]["status"], "duplicate");
  EXPECT_EQ(out.result["metrics"]["queued"], 1);
  EXPECT_EQ(out.result["metrics"]["duplicates"], 1);
  EXPECT_EQ(out.result["trace_hash"].get<std::string>().size(), 32u);
}

TEST(Runner, WrongExpectationsFail) {
  std::string text = kBasic;
  text.replace(text.find(R"("status": "duplicate")"), 21, R"("status": "queued")");
  const RunOutcome out = run_scenario(load(text), {});
  EXPECT_FALSE(out.passed);
  ASSERT_FALSE(out.result["failures"].empty());
  EXPECT_EQ(out.result["failures"][0]["kind"], "expectation");
  EXPECT_EQ(out.result["failures"][0]["step"], "p2");
}

TEST(Runner, SameSeedSameTraceInOneProcess) {
  const Scenario s = load(race(5));
  const RunOutcome a = run_scenario(s, {.cache_enabled = std::nullopt, .keep_trace_text = true});
  const RunOutcome b = run_scenario(s, {.cache_enabled = std::nullopt, .keep_trace_text = true});
  EXPECT_TRUE(a.passed) << a.result["failures"].dump(2);
  EXPECT_EQ(a.result["trace_hash"], b.result["trace_hash"]);
  EXPECT_EQ(a.trace_text, b.trace_text);
  EXPECT_EQ(a.result["steps"], b.result["steps"]);
}

TEST(Runner, ChangedSeedChangesTheSchedule) {
  std::set<std::string> hashes;
  std::set<std::string> winners;
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    const RunOutcome out = run_scenario(load(race(seed)), {});
    EXPECT_TRUE(out.passed) << seed << out.result["failures"].dump(2);
    hashes.insert(out.result["trace_hash"].get<std::string>());
    for (const auto& [id, step] : out.result["steps"].items()) {
      if (step["response"][0]["status"] == "queued") winners.insert(id);
    }
  }
  EXPECT_EQ(hashes.size(), 12u);
  EXPECT_GT(winners.size(), 1u);  // different seeds let different producers win
}

TEST(Runner, StorageFailureAnswersErrorThenRecovers) {
  const RunOutcome out = run_scenario(load(R"({"steps": [
      {"op": "storage_fail", "count": 1},
      {"id": "a", "op": "push", "items": [{"queue": "q", "transactionId": "t", "data": 1}]},
      {"id": "b", "op": "push", "items": [{"queue": "q", "transactionId": "t", "data": 1}]}],
    "expect": {"a": [{"status": "error"}], "b": [{"status": "queued"}], "stored": {"q/Default": 1}}})"),
                                      {});
  EXPECT_TRUE(out.passed) << out.result["failures"].dump(2);
}

// Requests that arrive while a flush is in flight fuse into the next segment;
// with the switch off, every request makes its own segment. Verdicts agree.
TEST(Runner, FusionFusesConcurrentRequestsAndChangesNoVerdict) {
  auto text = [](bool fusion) {
    std::string children;
    for (int i = 0; i < 6; ++i) {
      if (i) children += ",";
      children += R"({"op": "push", "items": [{"queue": "q", "transactionId": "k)" + std::to_string(i % 3) +
                  R"(", "data": {}}]})";
    }
    return std::string(R"({"seed": 4, "world": {"fusion": )") + (fusion ? "true" : "false") +
           R"(, "network": {"latency_ms": [0, 0]}, "storage": {"latency_ms": [5, 5]}},
               "steps": [{"op": "parallel", "steps": [)" + children + R"(]}],
               "expect": {"stored": {"q/Default": 3}}})";
  };
  const RunOutcome fused = run_scenario(load(text(true)), {});
  const RunOutcome plain = run_scenario(load(text(false)), {});
  EXPECT_TRUE(fused.passed) << fused.result["failures"].dump(2);
  EXPECT_TRUE(plain.passed) << plain.result["failures"].dump(2);
  EXPECT_GE(fused.result["metrics"]["fused_segments"].get<int>(), 1);
  EXPECT_EQ(plain.result["metrics"]["fused_segments"].get<int>(), 0);
  EXPECT_LT(fused.result["metrics"]["segments"].get<int>() + 0, 4);
  EXPECT_EQ(plain.result["metrics"]["segments"].get<int>(), 3);
  EXPECT_EQ(fused.result["metrics"]["queued"], 3);
  EXPECT_EQ(fused.result["metrics"]["duplicates"], 3);
}

}  // namespace
}  // namespace qdt::sim
