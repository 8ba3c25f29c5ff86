#include "sim/study/sweep_points.h"

#include <gtest/gtest.h>

#include <functional>

namespace qdt::sim {
namespace {

using json = nlohmann::json;

// A sweep over the default profile measuring two metrics, varying `vary`.
std::string with(const std::string& vary) {
  return R"({"name": "t", "base": {"profile": "default"}, "vary": )" + vary +
         R"(, "seeds": 2, "metrics": ["sidecar_rows_scanned", "cache.vouched"]})";
}

TEST(SweepPoints, CartesianProductLastKnobFastest) {
  const SweepLoad r = load_sweep_text(with(R"({"world.brokers": [2, 3], "world.cache.budget_bytes": [1, 2, 3]})"), "s.json");
  ASSERT_TRUE(r.sweep);
  const std::vector<Point> points = expand_points(*r.sweep);
  ASSERT_EQ(points.size(), 6u);
  EXPECT_EQ(points[0], (Point{0, 0}));
  EXPECT_EQ(points[1], (Point{0, 1}));
  EXPECT_EQ(points[5], (Point{1, 2}));
  EXPECT_EQ(point_text(*r.sweep, points[4]), "world.brokers=3, world.cache.budget_bytes=2");
  EXPECT_EQ(point_values(*r.sweep, points[4]), (json{{"world.brokers", 3}, {"world.cache.budget_bytes", 2}}));
}

TEST(SweepPoints, KnobsSetPathsAndWildcards) {
  json doc = {{"queues", {{"a", {{"dedupWindowSeconds", 1}}}, {"b", json::object()}}}};
  EXPECT_EQ(apply_knob(doc, {"queues", "*", "dedupWindowSeconds"}, 60), std::nullopt);
  EXPECT_EQ(doc["queues"]["a"]["dedupWindowSeconds"], 60);
  EXPECT_EQ(doc["queues"]["b"]["dedupWindowSeconds"], 60);
  EXPECT_EQ(apply_knob(doc, {"world", "cache", "budget_bytes"}, 5), std::nullopt);  // created
  EXPECT_EQ(doc["world"]["cache"]["budget_bytes"], 5);
  json empty = {{"steps", json::array()}};
  EXPECT_EQ(apply_knob(empty, {"queues", "*", "dedupWindowSeconds"}, 1), "queues.* matches nothing in the scenario");
  json scalar = {{"world", 3}};
  EXPECT_EQ(apply_knob(scalar, {"world", "brokers"}, 1), "world is not an object or an array");
}

TEST(SweepPoints, KnobsIndexArraysAndStarMatchesEveryElement) {
  json doc = {{"steps", {{{"op", "repeat"}, {"times", 2}, {"steps", {{{"op", "advance"}, {"ms", 1}}}}},
                         {{"op", "advance"}, {"ms", 5}}}}};
  EXPECT_EQ(apply_knob(doc, {"steps", "0", "steps", "0", "ms"}, 250), std::nullopt);
  EXPECT_EQ(doc["steps"][0]["steps"][0]["ms"], 250);
  EXPECT_EQ(apply_knob(doc, {"steps", "*", "op"}, "advance"), std::nullopt);
  EXPECT_EQ(doc["steps"][0]["op"], "advance");
  EXPECT_EQ(doc["steps"][1]["op"], "advance");
  EXPECT_EQ(apply_knob(doc, {"steps", "2", "ms"}, 1),
            "steps is an array of 2 elements: 2 is not an index into it (0-based) or *");
  EXPECT_EQ(apply_knob(doc, {"steps", "op"}, 1), "steps is an array of 2 elements: op is not an index into it (0-based) or *");
}

TEST(SweepPoints, GeneratorKnobsFixWhatTheProfileDraws) {
  const SweepLoad r = load_sweep_text(
      R"({"name": "t", "base": {"profile": "skew"}, "vary": {"generator.skew_ms": [1234], "generator.partitions": [1], "generator.steps": [40]}, "seeds": 1, "metrics": ["double_writes"]})",
      "s.json");
  ASSERT_TRUE(r.sweep) << r.errors[0].to_string();
  const PointDocument d = point_document(*r.sweep, {0, 0, 0}, 3);
  ASSERT_FALSE(d.error) << *d.error;
  EXPECT_EQ(d.doc["steps"].size(), 40u);
  int skews = 0;
  const std::function<void(const json&)> visit = [&](const json& steps) {
    for (const json& s : steps) {
      if (s["op"] == "skew") {
        ++skews;
        EXPECT_EQ(s["ms"], 1234);
      }
      if (s.contains("items")) {
        for (const json& item : s["items"]) EXPECT_EQ(item["partition"], "p0");
      }
      if (s.contains("steps")) visit(s["steps"]);
    }
  };
  visit(d.doc["steps"]);
  EXPECT_GT(skews, 0) << "seed 3 of the skew profile draws no skew in 40 steps: pick another seed";
  EXPECT_TRUE(check_points(*r.sweep).empty());
}

TEST(SweepPoints, ProfileDocumentsGetTheSeedAndTheKnobs) {
  const SweepLoad r = load_sweep_text(with(R"({"world.cache.budget_bytes": [4096], "queues.*.dedupWindowSeconds": [77]})"), "s.json");
  ASSERT_TRUE(r.sweep);
  const PointDocument d = point_document(*r.sweep, expand_points(*r.sweep)[0], 5);
  ASSERT_FALSE(d.error);
  EXPECT_EQ(d.doc["seed"], 5);
  EXPECT_EQ(d.doc["world"]["cache"]["budget_bytes"], 4096);
  ASSERT_FALSE(d.doc["queues"].empty());
  for (const auto& [name, q] : d.doc["queues"].items()) EXPECT_EQ(q["dedupWindowSeconds"], 77) << name;
  EXPECT_TRUE(check_points(*r.sweep).empty());
}

TEST(SweepPoints, AnInvalidPointNamesTheKnobAndThePoint) {
  const SweepLoad r = load_sweep_text(with(R"({"world.brokers": [2, 99]})"), "s.json");
  ASSERT_TRUE(r.sweep);
  const auto errors = check_points(*r.sweep);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].file, "s.json");
  EXPECT_EQ(errors[0].path, "/vary/world.brokers");
  EXPECT_NE(errors[0].reason.find("point 1 (world.brokers=99), seed 1"), std::string::npos) << errors[0].reason;
  EXPECT_NE(errors[0].reason.find("/world/brokers"), std::string::npos) << errors[0].reason;
}

TEST(SweepPoints, AScenarioBaseRunsTheFileWithTheSweepsSeed) {
  const std::string dir = std::string(QDT_SOURCE_DIR) + "/scenarios/";
  const SweepLoad r = load_sweep_text(
      R"({"name": "t", "base": {"scenario": "basic-duplicate.json"}, "vary": {"queues.*.dedupWindowSeconds": [0, 60]}, "seeds": 1, "metrics": ["duplicates"]})",
      dir + "sweep.json");
  ASSERT_TRUE(r.sweep) << r.errors[0].to_string();
  EXPECT_EQ(r.sweep->scenario_file, dir + "basic-duplicate.json");
  const PointDocument d = point_document(*r.sweep, {1}, 9);
  EXPECT_EQ(d.doc["seed"], 9);
  EXPECT_EQ(d.doc["queues"]["orders"]["dedupWindowSeconds"], 60);
  EXPECT_EQ(d.doc["name"], "basic-duplicate");
}

TEST(SweepAggregate, MeanMinMaxFailuresAndRawValues) {
  const SweepLoad r = load_sweep_text(with(R"({"world.brokers": [2]})"), "s.json");
  ASSERT_TRUE(r.sweep);
  std::vector<SeedValues> runs = {{1, true, "", "h1", {4, 1}}, {2, false, "model-agreement", "h2", {7, 2}}};
  const json p = aggregate_point(*r.sweep, {0}, 0, runs);
  EXPECT_EQ(p["metrics"]["sidecar_rows_scanned"], (json{{"mean", 5.5}, {"min", 4}, {"max", 7}}));
  EXPECT_EQ(p["metrics"]["cache.vouched"]["mean"], 1.5);
  EXPECT_EQ(p["raw"]["sidecar_rows_scanned"], (json{4, 7}));
  EXPECT_EQ(p["failures"], 1);
  EXPECT_EQ(p["failed_seeds"], (json{{{"seed", 2}, {"property", "model-agreement"}}}));
  EXPECT_EQ(p["knobs"], (json{{"world.brokers", 2}}));
  EXPECT_TRUE(p["metrics"]["sidecar_rows_scanned"]["min"].is_number_integer());
}

}  // namespace
}  // namespace qdt::sim
