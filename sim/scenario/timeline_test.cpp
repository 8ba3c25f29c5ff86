#include "sim/scenario/timeline.h"

#include <gtest/gtest.h>

#include "sim/scenario/replay_line.h"

namespace qdt::sim {
namespace {

using json = nlohmann::json;

// The repeat after the window: queued on the reference; a broker trusting
// its cache hit (trust-local-hit) answers a false duplicate without storage.
constexpr const char* kScenario = R"({
  "name": "timeline-hand",
  "description": "learn, orig, wait past the window, repeat",
  "world": {"network": {"latency_ms": [0, 0]}, "storage": {"latency_ms": [1, 1]}},
  "queues": {"orders": {"dedupWindowSeconds": 60}},
  "steps": [
    {"id": "learn", "op": "push", "items": [{"queue": "orders", "transactionId": "x", "data": {}}]},
    {"id": "orig", "op": "push", "items": [{"queue": "orders", "transactionId": "a", "data": {}}]},
    {"op": "advance", "seconds": 61},
    {"id": "repeat", "op": "push", "items": [{"queue": "orders", "transactionId": "a", "data": {}}]}
  ]
})";

json timeline(impl::Variant variant) {
  const LoadResult loaded = load_scenario_text(kScenario, "hand.json");
  EXPECT_TRUE(loaded.scenario.has_value());
  RunOptions options;
  options.variant = variant;
  const RunOutcome outcome = run_scenario(*loaded.scenario, options);
  return timeline_document(*loaded.scenario, outcome,
                           {replay_command({"hand.json", variant}), std::string("abc123")});
}

const json& step(const json& doc, const std::string& id) {
  for (const json& s : doc["steps"]) {
    if (s["id"] == id) return s;
  }
  ADD_FAILURE() << "no step " << id;
  static const json none;
  return none;
}

TEST(Timeline, StepsInOrderWithTimesResponsesAndFaults) {
  const json doc = timeline(impl::Variant::none);
  EXPECT_EQ(doc["kind"], "qdt-timeline");
  EXPECT_TRUE(doc["passed"].get<bool>());
  EXPECT_EQ(doc["commit"], "abc123");
  EXPECT_EQ(doc["command"], "qdt replay hand.json");
  ASSERT_EQ(doc["steps"].size(), 4u);
  EXPECT_EQ(doc["steps"][2]["op"], "advance");
  EXPECT_EQ(doc["steps"][2]["summary"], "+61000 ms");
  EXPECT_EQ(doc["steps"][2]["faults"].size(), 1u);  // an advance changes the world under the producers
  EXPECT_EQ(doc["steps"][2]["ended_ms"].get<int64_t>() - doc["steps"][2]["started_ms"].get<int64_t>(), 61000);
  const json& repeat = step(doc, "repeat");
  EXPECT_GE(repeat["started_ms"].get<int64_t>(), 61000);
  EXPECT_GE(repeat["ended_ms"].get<int64_t>(), repeat["started_ms"].get<int64_t>());
  ASSERT_EQ(repeat["responses"].size(), 1u);
  EXPECT_EQ(repeat["responses"][0]["status"], "queued");  // past the window
  EXPECT_EQ(step(doc, "orig")["summary"], "broker 0, producer orig, 1 item: orders/Default a");
  EXPECT_TRUE(step(doc, "orig")["faults"].empty());
  for (const json& s : doc["steps"]) EXPECT_FALSE(s["highlighted"].get<bool>());
  for (const json& e : doc["events"]) EXPECT_FALSE(e["highlighted"].get<bool>());
  for (const json& a : doc["model_answers"]) EXPECT_TRUE(a["agrees"].get<bool>());
}

TEST(Timeline, OffsetsPerPartitionOverVirtualTime) {
  const json doc = timeline(impl::Variant::none);
  ASSERT_EQ(doc["offsets"].size(), 1u);
  EXPECT_EQ(doc["offsets"][0]["partition"], "orders/Default");
  const json& points = doc["offsets"][0]["points"];
  ASSERT_EQ(points.size(), 3u);  // x, a, and a again after the window
  for (int64_t i = 0; i < 3; ++i) {
    EXPECT_EQ(points[i]["offset"], i);
    EXPECT_EQ(points[i]["kind"], "stored");
  }
  EXPECT_EQ(points[2]["step"], "repeat");
  EXPECT_GE(points[2]["at_ms"].get<int64_t>(), 61000);
  // The model's verdict sits beside storage's for every push event.
  size_t pushes = 0;
  for (const json& e : doc["events"]) {
    if (e["kind"] != "push") continue;
    ++pushes;
    EXPECT_EQ(e["model"], e["answer"]);
    EXPECT_TRUE(e["agrees"].get<bool>());
  }
  EXPECT_EQ(pushes, 3u);
}

TEST(Timeline, FailingStepIsFlaggedUnderAVariantBesideTheModelsAnswer) {
  const json doc = timeline(impl::Variant::trust_local_hit);
  EXPECT_FALSE(doc["passed"].get<bool>());
  EXPECT_EQ(doc["command"], "qdt replay hand.json --variant trust-local-hit");
  bool model_agreement = false;
  for (const json& f : doc["failures"]) {
    if (f["property"] == "model-agreement") {
      model_agreement = true;
      EXPECT_EQ(f["step"], "repeat");
      EXPECT_EQ(f["partition"], "orders/Default");
      // The rule and its explanation are fields; the offending event is among those highlighted.
      EXPECT_EQ(f["rule"].get<std::string>().rfind("model-agreement/", 0), 0u) << f.dump();
      EXPECT_FALSE(f["explanation"].get<std::string>().empty());
      if (f.contains("event")) {
        EXPECT_TRUE(doc["events"][f["event"].get<size_t>()]["highlighted"].get<bool>()) << f.dump();
        EXPECT_NE(std::find(f["events"].begin(), f["events"].end(), f["event"]), f["events"].end()) << f.dump();
      }
    }
  }
  EXPECT_TRUE(model_agreement);
  EXPECT_TRUE(step(doc, "repeat")["highlighted"].get<bool>());
  EXPECT_FALSE(step(doc, "orig")["highlighted"].get<bool>());
  EXPECT_EQ(step(doc, "repeat")["responses"][0]["status"], "duplicate");
  // The false duplicate is on the chart, at the original's offset, though storage never saw it.
  const json& points = doc["offsets"][0]["points"];
  ASSERT_EQ(points.size(), 3u);
  EXPECT_EQ(points[2]["kind"], "duplicate");
  EXPECT_EQ(points[2]["offset"], 1);
  // What the client saw beside what the model answers.
  size_t flagged = 0;
  for (const json& a : doc["model_answers"]) {
    if (a["step"] != "repeat") continue;
    ++flagged;
    EXPECT_TRUE(a["highlighted"].get<bool>());
    EXPECT_FALSE(a["agrees"].get<bool>());
    EXPECT_EQ(a["got_status"], "duplicate");
    EXPECT_EQ(a["model_on_arrival"], "queued: no message of key a within the 60 s window");
  }
  EXPECT_EQ(flagged, 1u);
  // Every event of the failing partition is marked; none belongs to the repeat (storage never saw it).
  for (const json& e : doc["events"]) {
    if (e["partition"] == "orders/Default") {
      EXPECT_TRUE(e["in_failing_partition"].get<bool>());
    }
    EXPECT_NE(e["step"], "repeat");
  }
}

// The first response is lost after the commit; the retry is answered duplicate.
constexpr const char* kLostResponse = R"({
  "name": "lost-response",
  "world": {"network": {"latency_ms": [1, 3], "loss_response": 1}},
  "queues": {"orders": {"dedupWindowSeconds": 3600}},
  "steps": [
    {"op": "parallel", "steps": [
      {"id": "p1", "op": "push", "retry": {"timeout_ms": 100, "attempts": 3, "backoff_ms": 20},
       "items": [{"queue": "orders", "transactionId": "k", "data": {}}]},
      {"op": "sequence", "steps": [{"op": "advance", "ms": 50}, {"op": "network", "loss_response": 0}]}
    ]}
  ]
})";

TEST(Timeline, EachAttemptTheWindowAndTheFaultIntervalsTellTheRetryStory) {
  const LoadResult loaded = load_scenario_text(kLostResponse, "lost.json");
  ASSERT_TRUE(loaded.scenario.has_value());
  const RunOutcome outcome = run_scenario(*loaded.scenario, RunOptions());
  const json doc = timeline_document(*loaded.scenario, outcome, {replay_command({"lost.json", impl::Variant::none})});
  const json& attempts = doc["attempts"];
  ASSERT_EQ(attempts.size(), 2u);
  EXPECT_EQ(attempts[0]["attempt"], 1);
  EXPECT_EQ(attempts[0]["outcome"], "response lost");
  EXPECT_EQ(attempts[0]["offset"], 0);  // what it stored, though its answer never arrived
  EXPECT_EQ(attempts[1]["attempt"], 2);
  EXPECT_EQ(attempts[1]["outcome"], "duplicate");
  EXPECT_EQ(attempts[1]["offset"], 0);
  EXPECT_GT(attempts[1]["at_ms"].get<int64_t>(), attempts[0]["at_ms"].get<int64_t>() + 100);  // after the timeout
  // The lost response spans from the broker's answer to the retry's arrival; the network step is its own span.
  bool lost = false, network = false;
  for (const json& f : doc["fault_spans"]) {
    if (f["label"] == "attempt 1: response lost") {
      lost = true;
      EXPECT_EQ(f["step"], "p1");
      EXPECT_LT(f["from_ms"].get<int64_t>(), f["to_ms"].get<int64_t>());
      EXPECT_EQ(f["to_ms"], attempts[1]["at_ms"]);
    }
    network = network || f["label"] == "network: loss_response 0 ppm";
    EXPECT_NE(f["label"].get<std::string>().rfind("advance", 0), 0u) << "time passing is not a fault span";
  }
  EXPECT_TRUE(lost) << doc["fault_spans"].dump();
  EXPECT_TRUE(network) << doc["fault_spans"].dump();
  const json& stored = doc["offsets"][0]["points"][0];
  EXPECT_EQ(stored["kind"], "stored");
  EXPECT_EQ(stored["window_ms"], 3'600'000);
}

TEST(Timeline, SameRunSameDocument) {
  EXPECT_EQ(timeline(impl::Variant::trust_local_hit).dump(), timeline(impl::Variant::trust_local_hit).dump());
}

// Every push event carries the state view: its partition read under the
// lock before and after it, and the watermark its broker sent.
TEST(Timeline, APushEventCarriesThePartitionBeforeAndAfterItAndTheWatermark) {
  const json doc = timeline(impl::Variant::none);
  std::vector<json> states;
  for (const json& e : doc["events"]) {
    if (e["kind"] == "push") states.push_back(e["state"]);
  }
  ASSERT_EQ(states.size(), 3u);
  for (size_t i = 0; i < states.size(); ++i) {
    const json& st = states[i];
    EXPECT_EQ(st["before"]["last_offset"], static_cast<int64_t>(i) - 1) << i;
    EXPECT_EQ(st["after"]["last_offset"], static_cast<int64_t>(i)) << i;
    EXPECT_EQ(st["segments_written"], 1) << i;
    EXPECT_EQ(st["sidecar_rows_written"], 1) << i;
    EXPECT_EQ(st["window_s"], 60) << i;
    EXPECT_FALSE(st["failed"].get<bool>());
  }
  // The first push finds the broker's cache empty; the watermark is what it sent.
  EXPECT_EQ(states[0]["p_verified"], -1);
}

}  // namespace
}  // namespace qdt::sim
