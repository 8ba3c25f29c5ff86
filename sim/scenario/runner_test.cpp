#include "sim/scenario/runner.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>

#include "properties/recovered_view.h"

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
  EXPECT_TRUE(out.passed) << out.result.to_json()["failures"].dump(2);
  EXPECT_EQ(out.result.step_responses.at("p2")[0]["status"], "duplicate");
  EXPECT_EQ(out.result.metrics["queued"], 1);
  EXPECT_EQ(out.result.metrics["duplicates"], 1);
  EXPECT_EQ(out.result.trace_hash.size(), 32u);
}

TEST(Runner, WrongExpectationsFail) {
  std::string text = kBasic;
  text.replace(text.find(R"("status": "duplicate")"), 21, R"("status": "queued")");
  const RunOutcome out = run_scenario(load(text), {});
  EXPECT_FALSE(out.passed);
  ASSERT_FALSE(out.result.failures.empty());
  EXPECT_EQ(out.result.failures[0].kind, "expectation");
  EXPECT_EQ(out.result.failures[0].step, "p2");
  // The result object carries the rule and both answers as fields.
  const nlohmann::json f = out.result.to_json()["failures"][0];
  EXPECT_EQ(f["rule"], "expectation/response");
  EXPECT_EQ(f["expected"], "queued");
  EXPECT_EQ(f["actual"], "duplicate");
  EXPECT_EQ(f["explanation"], properties::rule_explanation(properties::Rule::expectation_response));
  EXPECT_FALSE(f.contains("event"));
}

// A property failure in the result object: its rule, its explanation, the
// offending event and both answers, beside the detail it always had.
TEST(Runner, PropertyFailuresCarryTheirRuleAndEvent) {
  RunOptions options;
  options.variant = impl::Variant::skip_probe;
  const RunOutcome out = run_scenario(load(kBasic), options);
  ASSERT_FALSE(out.passed);
  bool found = false;
  const nlohmann::json result = out.result.to_json();
  for (const nlohmann::json& f : result["failures"]) {
    ASSERT_TRUE(f.contains("rule")) << f.dump();
    EXPECT_FALSE(f["explanation"].get<std::string>().empty()) << f.dump();
    if (f["rule"] != "model-agreement/duplicate-answered-queued") continue;
    found = true;
    EXPECT_EQ(f["property"], "model-agreement");
    EXPECT_EQ(f["step"], "p2");
    EXPECT_EQ(f["expected"], "duplicate [frame 0 repeats offset 0]");
    EXPECT_EQ(f["actual"], "queued from offset 1");
    ASSERT_TRUE(f.contains("event"));
    EXPECT_NE(f["detail"].get<std::string>().find("event " + f["event"].dump()), std::string::npos) << f.dump();
  }
  EXPECT_TRUE(found) << result["failures"].dump(2);
}

TEST(Runner, StoredExpectationNamesItsRule) {
  std::string text = kBasic;
  text.replace(text.find(R"("orders/Default": 1)"), 19, R"("orders/Default": 2)");
  const RunOutcome out = run_scenario(load(text), {});
  ASSERT_EQ(out.result.failures.size(), 1u);
  EXPECT_EQ(out.result.failures[0].rule, properties::Rule::expectation_stored);
  EXPECT_EQ(out.result.failures[0].expected, "2 stored");
  EXPECT_EQ(out.result.failures[0].actual, "1 stored");
}

// Expectation failures come in the order of the script's steps, not of the
// expect block's keys ("z-first" sorts after "a-second").
TEST(Runner, ExpectationFailuresFollowTheScript) {
  const RunOutcome out = run_scenario(load(R"({
    "name": "order", "seed": 1,
    "queues": {"orders": {"dedupWindowSeconds": 3600}},
    "steps": [
      {"id": "z-first", "op": "push", "items": [{"queue": "orders", "transactionId": "t1", "data": {}}]},
      {"op": "parallel", "steps": [
        {"id": "m-second", "op": "push", "items": [{"queue": "orders", "transactionId": "t2", "data": {}}]}]},
      {"id": "a-third", "op": "push", "items": [{"queue": "orders", "transactionId": "t3", "data": {}}]}
    ],
    "expect": {"a-third": [{"status": "duplicate"}], "m-second": [{"status": "duplicate"}],
               "z-first": [{"status": "duplicate"}]}
  })"),
                                       {});
  ASSERT_FALSE(out.passed);
  std::vector<std::string> steps;
  for (const RunFailure& f : out.result.failures) {
    if (f.kind == "expectation" && (steps.empty() || steps.back() != f.step)) steps.push_back(f.step);
  }
  EXPECT_EQ(steps, (std::vector<std::string>{"z-first", "m-second", "a-third"}));
}

// A knock-on is folded under its cause: an item whose status failed says
// its id on the same line, and an item naming a failed item's id says so.
TEST(Runner, KnockOnExpectationFailuresAreFoldedUnderTheirCause) {
  const RunOutcome out = run_scenario(load(R"({
    "name": "knock-on", "seed": 1,
    "queues": {"orders": {"dedupWindowSeconds": 3600}},
    "steps": [
      {"id": "first", "op": "push", "items": [{"queue": "orders", "transactionId": "t1", "data": {}}]},
      {"id": "second", "op": "push", "items": [{"queue": "orders", "transactionId": "t2", "data": {}}]}
    ],
    "expect": {"first": [{"status": "duplicate", "message_id": "zero"}],
               "second": [{"status": "queued", "message_id": "@first/0"}],
               "stored": {"orders/Default": 1}}
  })"),
                                       {});
  ASSERT_FALSE(out.passed);
  std::vector<std::string> details;
  for (const RunFailure& f : out.result.failures) {
    if (f.kind == "expectation") details.push_back(f.step + ": " + f.detail);
  }
  ASSERT_EQ(details.size(), 3u) << ::testing::PrintToString(details);
  EXPECT_NE(details[0].find("first: item first/0: expected duplicate, got queued (id "), std::string::npos);
  EXPECT_EQ(details[1], "second: item second/0: its id is not @first/0's, which failed above");
  EXPECT_NE(details[2].find("expected 1 stored messages, found 2 (items above failed too)"), std::string::npos);
}

// A step without an id is in the results under its JSON path.
TEST(Runner, UnnamedStepsAnswerUnderTheirJsonPath) {
  const RunOutcome out = run_scenario(load(R"({
    "name": "unnamed", "seed": 1, "queues": {"orders": {"dedupWindowSeconds": 60}},
    "steps": [{"op": "push", "items": [{"queue": "orders", "transactionId": "t1", "data": {}}]},
              {"op": "parallel", "steps": [
                {"op": "push", "items": [{"queue": "orders", "transactionId": "t1", "data": {}}]}]},
              {"op": "read", "queue": "orders"}]
  })"),
                                       {});
  EXPECT_TRUE(out.passed) << out.result.to_json()["failures"].dump(2);
  ASSERT_EQ(out.result.step_responses.count("/steps/1/steps/0"), 1u);
  EXPECT_EQ(out.result.step_responses.at("/steps/0")[0]["status"], "queued");
  EXPECT_EQ(out.result.step_responses.at("/steps/1/steps/0")[0]["status"], "duplicate");
  EXPECT_EQ(out.result.step_responses.at("/steps/2")["count"], 1);
}

TEST(Runner, SameSeedSameTraceInOneProcess) {
  const Scenario s = load(race(5));
  const RunOutcome a = run_scenario(s, {.cache_enabled = std::nullopt, .keep_trace_text = true});
  const RunOutcome b = run_scenario(s, {.cache_enabled = std::nullopt, .keep_trace_text = true});
  EXPECT_TRUE(a.passed) << a.result.to_json()["failures"].dump(2);
  EXPECT_EQ(a.result.trace_hash, b.result.trace_hash);
  EXPECT_EQ(a.trace_text, b.trace_text);
  EXPECT_EQ(a.result.step_responses, b.result.step_responses);
}

TEST(Runner, ChangedSeedChangesTheSchedule) {
  std::set<std::string> hashes;
  std::set<std::string> winners;
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    const RunOutcome out = run_scenario(load(race(seed)), {});
    EXPECT_TRUE(out.passed) << seed << out.result.to_json()["failures"].dump(2);
    hashes.insert(out.result.trace_hash);
    for (const auto& [id, response] : out.result.step_responses) {
      if (response[0]["status"] == "queued") winners.insert(id);
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
  EXPECT_TRUE(out.passed) << out.result.to_json()["failures"].dump(2);
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
  EXPECT_TRUE(fused.passed) << fused.result.to_json()["failures"].dump(2);
  EXPECT_TRUE(plain.passed) << plain.result.to_json()["failures"].dump(2);
  EXPECT_GE(fused.result.metrics["fused_segments"].get<int>(), 1);
  EXPECT_EQ(plain.result.metrics["fused_segments"].get<int>(), 0);
  EXPECT_LT(fused.result.metrics["segments"].get<int>() + 0, 4);
  EXPECT_EQ(plain.result.metrics["segments"].get<int>(), 3);
  EXPECT_EQ(fused.result.metrics["queued"], 3);
  EXPECT_EQ(fused.result.metrics["duplicates"], 3);
}

// A scenario may name the design variant it runs against (world.variant);
// --variant (RunOptions::variant) overrides it.
TEST(Runner, WorldVariantRunsTheScenarioAgainstThatVariant) {
  std::string text = kBasic;
  text.replace(text.find(R"("seed": 1,)"), 10, R"("seed": 1, "world": {"variant": "skip-probe"},)");
  const RunOutcome broken = run_scenario(load(text), {});
  EXPECT_FALSE(broken.passed);
  EXPECT_EQ(broken.result.variant, "skip-probe");
  EXPECT_EQ(broken.result.step_responses.at("p2")[0]["status"], "queued");
  const RunOutcome other = run_scenario(load(text), {.variant = impl::Variant::fresh_id_on_duplicate});
  EXPECT_EQ(other.result.variant, "fresh-id-on-duplicate");
  EXPECT_EQ(other.result.step_responses.at("p2")[0]["status"], "duplicate");
}

// Issue finding 5: a file-backed database lives in a fresh per-run folder, so
// replaying the same scenario twice gives the same verdicts and trace hash.
TEST(Runner, FileBackedStorageStartsFreshEveryRun) {
  std::string text = kBasic;
  text.replace(text.find(R"("seed": 1,)"), 10, R"("seed": 1, "world": {"storage": {"path": "qdt-runner-test.sqlite"}},)");
  const RunOutcome first = run_scenario(load(text), {});
  const RunOutcome second = run_scenario(load(text), {});
  EXPECT_TRUE(first.passed) << first.result.to_json()["failures"].dump(2);
  EXPECT_TRUE(second.passed) << second.result.to_json()["failures"].dump(2);
  EXPECT_EQ(first.result.trace_hash, second.result.trace_hash);
  EXPECT_NE(first.result.trace_hash, run_scenario(load(kBasic), {}).result.trace_hash);  // the world says "file"
  EXPECT_FALSE(std::ifstream("qdt-runner-test.sqlite").good()) << "nothing is written beside the caller";
}

// Issue finding 7: a crash loses every request waiting in a fusion lane, not
// only the one whose flush is out at storage; the restarted broker serves a
// new request on the same partition.
TEST(Runner, CrashLosesTheRequestsWaitingInAFusionLane) {
  std::string children;
  for (int i = 0; i < 4; ++i) {
    children += R"({"id": "c)" + std::to_string(i) + R"(", "op": "push", "retry": {"timeout_ms": 100},
                   "items": [{"queue": "q", "transactionId": "k)" + std::to_string(i) + R"(", "data": {}}]},)";
  }
  const RunOutcome out = run_scenario(load(R"({"seed": 3,
      "world": {"network": {"latency_ms": [0, 0]}, "storage": {"latency_ms": [5, 5]}},
      "steps": [{"op": "parallel", "steps": [)" + children + R"(
                  {"op": "sequence", "steps": [{"op": "advance", "ms": 3}, {"op": "crash_broker", "broker": 0}]}]},
                {"id": "after", "op": "push", "items": [{"queue": "q", "transactionId": "k9", "data": {}}]}],
      "expect": {"c0": [{"status": "timeout"}], "c1": [{"status": "timeout"}], "c2": [{"status": "timeout"}],
                 "c3": [{"status": "timeout"}], "after": [{"status": "queued"}], "stored": {"q/Default": 1}}})"),
                                      {});
  EXPECT_TRUE(out.passed) << out.result.to_json()["failures"].dump(2);
  int lost = 0;
  for (const auto& r : out.history.requests) lost += r.lost_in_crash ? 1 : 0;
  EXPECT_EQ(lost, 4);
}

// Issue finding 3: faults enter SQLite inside the transaction, for every kind
// of transaction, and each surfaces the way docs/semantics.md says.
TEST(Runner, StorageFaultsHitEveryKindOfTransaction) {
  const RunOutcome out = run_scenario(load(R"({"seed": 2, "steps": [
      {"id": "p1", "op": "push", "items": [{"queue": "q", "transactionId": "k", "data": 1}]},
      {"op": "storage_fail", "count": 1, "target": "fetch"},
      {"id": "p2", "op": "push", "items": [{"queue": "q", "transactionId": "k", "data": 1}]},
      {"op": "storage_fail", "count": 1, "target": "ack", "after_statements": 2, "code": "full"},
      {"id": "a1", "op": "ack", "queue": "q", "transactionId": "k"},
      {"id": "a2", "op": "ack", "queue": "q", "transactionId": "k"},
      {"op": "storage_fail", "count": 1, "target": "read", "after_statements": 1},
      {"id": "r1", "op": "read", "queue": "q"},
      {"op": "storage_fail", "count": 1, "target": "push", "after_statements": 4},
      {"id": "p3", "op": "push", "items": [{"queue": "q", "transactionId": "fresh", "data": 1}]},
      {"id": "r2", "op": "read", "queue": "q"}],
    "expect": {"p1": [{"status": "queued"}], "p2": [{"status": "duplicate", "message_id": "zero"}],
               "a1": {"status": "error"}, "a2": {"status": "acked"},
               "r2": {"transactionIds": ["k"]}, "stored": {"q/Default": 1}}})"),
                                      {});
  EXPECT_TRUE(out.passed) << out.result.to_json()["failures"].dump(2);
  EXPECT_EQ(out.result.step_responses.at("r1")["status"], "error");
  EXPECT_EQ(out.result.step_responses.at("p3")[0]["status"], "error");
  EXPECT_EQ(out.result.metrics["storage_faults_injected"], 4);
}

TEST(Runner, RepeatPushesFreshIdsEachIterationAndCountsEveryRetry) {
  const RunOutcome out = run_scenario(load(R"({"seed": 2, "queues": {"q": {"dedupWindowSeconds": 60}},
    "world": {"network": {"latency_ms": [0, 0]}, "storage": {"latency_ms": [0, 0]}},
    "steps": [{"op": "repeat", "times": 5, "steps": [
      {"op": "push", "items": [{"queue": "q", "data": {}}, {"queue": "q", "transactionId": "same", "data": {}}]},
      {"op": "advance", "seconds": 20}]}]})"), {});
  EXPECT_TRUE(out.passed) << out.result.to_json()["failures"].dump();
  const auto& m = out.result.metrics;
  EXPECT_EQ(m["items"], 10);
  // Fresh ids are always new; "same" is new at 0 s, a duplicate at 20/40/60 s
  // (60 s after the original is inside the inclusive window), new again at 80 s.
  EXPECT_EQ(m["queued"], 7);
  EXPECT_EQ(m["duplicates"], 3);
  EXPECT_EQ(m["repeats_stored"], 1);
  EXPECT_EQ(m["double_writes"], 0);
  EXPECT_EQ(m["virtual_duration_ms"], 100'000);
}

// Each storage crash keeps what its recovery changed, not every message: a
// world that pushes one item and crashes, again and again, keeps one record
// per crash however many crashes came before.
TEST(Runner, StorageCrashesKeepWhatChangedNotEverything) {
  const auto records_per_crash = [](int crashes) {
    const RunOutcome out = run_scenario(load(R"({"seed": 1,
        "world": {"storage": {"path": "qdt.db", "synchronous": "full"}},
        "steps": [{"op": "repeat", "times": )" + std::to_string(crashes) + R"(, "steps": [
          {"op": "push", "items": [{"queue": "q", "data": 1}]}, {"op": "crash_storage"}]}]})"),
                                        {});
    EXPECT_TRUE(out.passed) << out.result.to_json()["failures"].dump(2);
    EXPECT_EQ(out.history.storage_crashes.size(), static_cast<size_t>(crashes));
    std::set<size_t> records;
    for (const auto& crash : out.history.storage_crashes) records.insert(properties::recorded_changes(crash));
    return records;
  };
  EXPECT_EQ(records_per_crash(10), std::set<size_t>{1});
  EXPECT_EQ(records_per_crash(200), std::set<size_t>{1});
}

}  // namespace
}  // namespace qdt::sim
