// Unknown fields, wherever a scenario has an object: refused with the JSON
// path, named with the nearest known field, and nothing loaded.
#include "sim/scenario/json_reader.h"

#include <gtest/gtest.h>

#include "sim/scenario/scenario.h"

namespace qdt::sim {
namespace {

// Every error of loading `text`, as "PATH: reason" lines.
std::string errors_of(const std::string& text) {
  const LoadResult r = load_scenario_text(text, "t.json");
  EXPECT_EQ(r.scenario.has_value(), r.errors.empty());
  std::string out;
  for (const LoadError& e : r.errors) out += e.path + ": " + e.reason + "\n";
  return out;
}

constexpr const char* kItem = R"({"queue": "q", "data": {}})";

TEST(JsonReader, OnlyNamesTheNearestAllowedField) {
  std::vector<LoadError> errors;
  const std::string file = "f.json";
  JsonReader r(file, errors);
  r.only(nlohmann::json::parse(R"({"timeout_ms": 1, "backoff": 2, "zzz": 3, "a/b": 4})"), "/retry",
         {"timeout_ms", "attempts", "backoff_ms"});
  ASSERT_EQ(errors.size(), 3u);
  EXPECT_EQ(errors[0].path, "/retry/a~1b");  // a key cannot forge a path
  EXPECT_EQ(errors[0].reason, "unknown field");
  EXPECT_EQ(errors[1].path, "/retry/backoff");
  EXPECT_EQ(errors[1].reason, "unknown field; did you mean \"backoff_ms\"?");
  EXPECT_EQ(errors[2].path, "/retry/zzz");
  EXPECT_EQ(errors[2].reason, "unknown field");
}

TEST(JsonReader, PushItemsTakeOnlyTheFieldsTheBrokerReads) {
  EXPECT_EQ(errors_of(R"({"steps": [{"op": "push", "items": [)" + std::string(kItem) +
                      R"(, {"queue": "q", "partiton": "p1", "data": {}}]}]})"),
            "/steps/0/items/1/partiton: unknown field; did you mean \"partition\"?\n");
  EXPECT_EQ(errors_of(R"({"steps": [{"op": "push", "items": [{"queue": "q", "transactionID": "t", "data": {},
                                                               "payload": 1}]}]})"),
            "/steps/0/items/0/payload: unknown field\n"
            "/steps/0/items/0/transactionID: unknown field; did you mean \"transactionId\"?\n");
  // Inside a composite step the path is the child's.
  EXPECT_EQ(errors_of(R"({"steps": [{"op": "parallel", "steps": [{"op": "push", "items": [{"queue": "q",
                            "data": {}, "partiton": "p"}]}]}]})"),
            "/steps/0/steps/0/items/0/partiton: unknown field; did you mean \"partition\"?\n");
  // Malformed requests are still sent on purpose: the broker rejects them, not the loader.
  EXPECT_EQ(errors_of(R"({"steps": [{"op": "push", "items": [1, {"queue": 7, "data": {}}, {}]}]})"), "");
  EXPECT_EQ(errors_of(R"({"steps": [{"op": "push", "items": {"queue": "q"}}]})"), "");
  EXPECT_EQ(errors_of(R"({"steps": [{"op": "push", "items": [{"queue": "q", "partition": "p", "transactionId": "t",
                                                               "data": {}}]}]})"),
            "");
}

TEST(JsonReader, EveryNestedObjectRefusesAMisspeltField) {
  const std::string push = R"({"op": "push", "id": "p", "items": [{"queue": "q", "data": {}}]})";
  EXPECT_EQ(errors_of(R"({"steps": [)" + push + R"(, {"op": "push", "items": [], "retry": {"backoff": 5}}]})"),
            "/steps/1/retry/backoff: unknown field; did you mean \"backoff_ms\"?\n");
  EXPECT_EQ(errors_of(R"({"stesp": []})"), "/stesp: unknown field; did you mean \"steps\"?\n/steps: required\n");
  EXPECT_EQ(errors_of(R"({"steps": [{"op": "advance", "sec": 1}]})"),
            "/steps/0/sec: unknown field; did you mean \"seconds\"?\n"
            "/steps/0: advance takes exactly one of \"seconds\" or \"ms\"\n");
  EXPECT_EQ(errors_of(R"({"world": {"cache": {"enable": false}}, "steps": []})"),
            "/world/cache/enable: unknown field; did you mean \"enabled\"?\n");
  EXPECT_EQ(errors_of(R"({"world": {"netwrok": {}}, "steps": []})"),
            "/world/netwrok: unknown field; did you mean \"network\"?\n");
  EXPECT_EQ(errors_of(R"({"world": {"network": {"loss_reponse": 1}}, "steps": []})"),
            "/world/network/loss_reponse: unknown field; did you mean \"loss_response\"?\n");
  EXPECT_EQ(errors_of(R"({"world": {"storage": {"purge_bach": 1}}, "steps": []})"),
            "/world/storage/purge_bach: unknown field; did you mean \"purge_batch\"?\n");
  EXPECT_EQ(errors_of(R"({"world": {"schedule": {"mode": "pct", "pct_dept": 2}}, "steps": []})"),
            "/world/schedule/pct_dept: unknown field; did you mean \"pct_depth\"?\n");
  EXPECT_EQ(errors_of(R"({"queues": {"q": {"dedupWindowSecond": 1}}, "steps": []})"),
            "/queues/q/dedupWindowSecond: unknown field; did you mean \"dedupWindowSeconds\"?\n");
  EXPECT_EQ(errors_of(R"({"queues": {"a/b": {"retention": 1}}, "steps": []})"),
            "/queues/a~1b/retention: unknown field; did you mean \"retentionSeconds\"?\n");
  EXPECT_EQ(errors_of(R"({"steps": [{"op": "configure", "queue": "q", "options": {"retentionSecond": 1}}]})"),
            "/steps/0/options/retentionSecond: unknown field; did you mean \"retentionSeconds\"?\n");
  EXPECT_EQ(errors_of(R"({"steps": [)" + push + R"(], "expect": {"p": [{"staus": "queued"}]}})"),
            "/expect/p/0/staus: unknown field; did you mean \"status\"?\n/expect/p/0/status: required\n");
  EXPECT_EQ(errors_of(R"({"world": {"variant": "skip-prob"}, "steps": []})"),
            "/world/variant: unknown variant \"skip-prob\"; did you mean \"skip-probe\"? (qdt mutants --list names them)\n");
  // A known option with a bad value is still apply_options' reason.
  EXPECT_EQ(errors_of(R"({"queues": {"q": {"dedupWindowSeconds": -1}}, "steps": []})"),
            "/queues/q/dedupWindowSeconds: must be >= 0, got -1\n");
}

}  // namespace
}  // namespace qdt::sim
