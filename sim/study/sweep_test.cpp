#include "sim/study/sweep.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "sim/study/sweep_points.h"
#include "sim/study/sweep_run.h"

namespace qdt::sim {
namespace {

using json = nlohmann::json;

// The first error of loading `text`, as "PATH: reason"; "" when it loads.
std::string first_error(const std::string& text) {
  const SweepLoad r = load_sweep_text(text, "s.json");
  if (r.sweep) return "";
  EXPECT_FALSE(r.errors.empty());
  return r.errors.empty() ? "?" : r.errors[0].path + ": " + r.errors[0].reason;
}

std::string with(const std::string& vary, const std::string& extra = "") {
  return R"({"name": "t", "base": {"profile": "default"}, "vary": )" + vary +
         R"(, "seeds": 2, "metrics": ["sidecar_rows_scanned", "cache.vouched"])" + extra + "}";
}

TEST(SweepLoader, LoadsListsAndRangesInPathOrder) {
  const SweepLoad r = load_sweep_text(
      with(R"({"world.cache.budget_bytes": [65536, 1048576], "queues.*.dedupWindowSeconds": {"from": 60, "to": 180, "step": 60}})",
           R"(, "first_seed": 7, "variant": "skip-probe")"),
      "s.json");
  ASSERT_TRUE(r.sweep) << r.errors[0].to_string();
  const Sweep& s = *r.sweep;
  EXPECT_EQ(s.profile, "default");
  EXPECT_EQ(s.first_seed, 7u);
  EXPECT_EQ(s.variant, impl::Variant::skip_probe);
  ASSERT_EQ(s.knobs.size(), 2u);
  EXPECT_EQ(s.knobs[0].path, "queues.*.dedupWindowSeconds");  // object keys sort
  EXPECT_EQ(s.knobs[0].values, (std::vector<json>{60, 120, 180}));
  EXPECT_TRUE(s.knobs[0].values[1].is_number_integer());
  EXPECT_EQ(s.knobs[1].values, (std::vector<json>{65536, 1048576}));
  EXPECT_EQ(point_count(s), 6u);
}

TEST(SweepLoader, FractionalRangesHaveNoDrift) {
  const SweepLoad r = load_sweep_text(with(R"({"world.network.loss_response": {"from": 0, "to": 0.3, "step": 0.1}})"), "s.json");
  ASSERT_TRUE(r.sweep) << r.errors[0].to_string();
  ASSERT_EQ(r.sweep->knobs[0].values.size(), 4u);
  EXPECT_NEAR(r.sweep->knobs[0].values[3].get<double>(), 0.3, 1e-12);
}

TEST(SweepLoader, SchemaErrorsNameThePath) {
  EXPECT_NE(first_error("{").find("not valid JSON"), std::string::npos);
  EXPECT_EQ(first_error(with(R"({"world.brokers": [1]})", R"(, "colour": 1)")).substr(0, 1), "/");
  EXPECT_EQ(first_error(with(R"({"world.brokers": []})")).substr(0, 20), "/vary/world.brokers:");
  EXPECT_EQ(first_error(with(R"({"world..brokers": [1]})")),
            "/vary/world..brokers: a knob path is dotted field names or * (world.cache.budget_bytes)");
  EXPECT_EQ(first_error(with(R"({"world.brokers.": [1]})")).substr(0, 22), "/vary/world.brokers.: ");
  EXPECT_EQ(first_error(R"({"name": "t", "base": {"profile": "default"}, "vary": {"world.brokers": [1]}, "seeds": 20000, "metrics": ["items"]})")
                .substr(0, 7),
            "/seeds:");
  EXPECT_EQ(first_error(R"({"name": "a b", "base": {"profile": "default"}, "vary": {"world.brokers": [1]}, "seeds": 1, "metrics": ["items"]})")
                .substr(0, 6),
            "/name:");
  EXPECT_FALSE(first_error(R"({"name": "t", "base": {"profile": "default", "scenario": "x.json"}, "vary": {"world.brokers": [1]}, "seeds": 1, "metrics": ["items"]})")
                   .empty());
}

TEST(SweepLoader, CodeRulesNameThePathAndTheReason) {
  EXPECT_EQ(first_error(with(R"({"seed": [1, 2]})")).substr(0, 11), "/vary/seed:");
  EXPECT_EQ(first_error(with(R"({"world.*": [1]})")), "/vary/world.*: a knob path ends with a field name, not *");
  EXPECT_EQ(first_error(with(R"({"world.brokers": {"from": 4, "to": 1, "step": 1}})")),
            "/vary/world.brokers: a range needs step > 0 and from <= to");
  EXPECT_EQ(first_error(with(R"({"world.cache.budget_bytes": {"from": 0, "to": 1000000, "step": 1}})")).substr(0, 32),
            "/vary/world.cache.budget_bytes: ");
  EXPECT_EQ(first_error(with(R"({"world.brokers": {"from": 1, "to": 40, "step": 1}, "world.cache.budget_bytes": {"from": 1, "to": 40, "step": 1}})")),
            "/vary: more than 1000 points (the product of the knobs' value counts)");
  EXPECT_EQ(first_error(R"({"name": "t", "base": {"profile": "default"}, "vary": {"world.brokers": {"from": 1, "to": 100, "step": 1}}, "seeds": 10000, "metrics": ["items"]})"),
            "/seeds: 100 points x 10000 seeds is more than 100000 runs");
  EXPECT_EQ(first_error(R"({"name": "t", "base": {"profile": "nope"}, "vary": {"world.brokers": [1]}, "seeds": 1, "metrics": ["items"]})")
                .substr(0, 30),
            "/base/profile: unknown profile");
  EXPECT_EQ(first_error(R"({"name": "t", "base": {"profile": "default"}, "vary": {"world.brokers": [1]}, "seeds": 1, "metrics": ["items", "cache.nope"]})")
                .substr(0, 36),
            "/metrics/1: unknown metric \"cache.no");
  EXPECT_EQ(first_error(with(R"({"world.brokers": [1]})", R"(, "variant": "nope")")).substr(0, 9), "/variant:");
  EXPECT_EQ(first_error(R"({"name": "t", "base": {"scenario": "missing.json"}, "vary": {"world.brokers": [1]}, "seeds": 1, "metrics": ["items"]})")
                .substr(0, 30),
            "/base/scenario: cannot open mi");
}

// Steps at the ends of the doubles: the count is bounded in double before it
// becomes an integer, and the error states it.
TEST(SweepLoader, ExtremeRangeStepsAreCountedBeforeConversion) {
  const std::string knob = "/vary/world.cache.budget_bytes: ";
  EXPECT_EQ(first_error(with(R"({"world.cache.budget_bytes": {"from": 0, "to": 1, "step": 5e-324}})")),
            knob + "the range has over 2^53 values, more than 1000");
  EXPECT_EQ(first_error(with(R"({"world.cache.budget_bytes": {"from": -9007199254740991, "to": 9007199254740991, "step": 1e-308}})")),
            knob + "the range has over 2^53 values, more than 1000");
  EXPECT_EQ(first_error(with(R"({"world.cache.budget_bytes": {"from": 0, "to": 1, "step": 0.0001}})")),
            knob + "the range has 10001 values, more than 1000");
  EXPECT_EQ(first_error(with(R"({"world.cache.budget_bytes": {"from": 0, "to": 1, "step": 1e308}})")),
            knob + "a range's from, to and step are within +-2^53");
  EXPECT_EQ(first_error(with(R"({"world.cache.budget_bytes": {"from": 0, "to": 0, "step": 5e-324}})")), "");
  EXPECT_EQ(first_error(with(R"({"world.cache.budget_bytes": {"from": 5e-324, "to": 1e-323, "step": 5e-324}})")), "");
  // A zero step (-0, or 1e-400 read as 0) is refused by the schema.
  EXPECT_EQ(first_error(with(R"({"world.cache.budget_bytes": {"from": 0, "to": 1, "step": -0.0}})")).substr(0, 36),
            "/vary/world.cache.budget_bytes/step:");
  EXPECT_EQ(first_error(with(R"({"world.cache.budget_bytes": {"from": 0, "to": 1, "step": 1e-400}})")).substr(0, 36),
            "/vary/world.cache.budget_bytes/step:");
}

TEST(SweepLoader, MetricNamesAreTheRunsMetricKeys) {
  const auto& names = known_metric_names();
  for (const char* n : {"sidecar_rows_scanned", "cache.vouched", "cache.cache_bytes", "virtual_duration_ms", "items"}) {
    EXPECT_TRUE(std::binary_search(names.begin(), names.end(), std::string(n))) << n;
  }
  EXPECT_FALSE(std::binary_search(names.begin(), names.end(), std::string("cache")));
  const json metrics = {{"items", 3}, {"cache", {{"vouched", 2.5}}}};
  EXPECT_EQ(metric_value(metrics, "items"), 3.0);
  EXPECT_EQ(metric_value(metrics, "cache.vouched"), 2.5);
  EXPECT_EQ(metric_value(metrics, "cache"), std::nullopt);
  EXPECT_EQ(metric_value(metrics, "nope.x"), std::nullopt);
}

TEST(SweepLoader, GeneratorAndStepsKnobsNeedTheRightBase) {
  EXPECT_EQ(first_error(with(R"({"generator.nope": [1]})")), "");  // the name is checked per point
  const SweepLoad bad = load_sweep_text(with(R"({"generator.nope": [1]})"), "s.json");
  ASSERT_TRUE(bad.sweep);
  const auto errors = check_points(*bad.sweep);
  ASSERT_FALSE(errors.empty());
  EXPECT_NE(errors[0].reason.find("unknown generator knob \"nope\""), std::string::npos) << errors[0].reason;
  EXPECT_EQ(errors[0].path, "/vary/generator.nope");
  const SweepLoad range = load_sweep_text(with(R"({"generator.partitions": [0]})"), "s.json");
  ASSERT_TRUE(range.sweep);
  EXPECT_NE(check_points(*range.sweep)[0].reason.find("generator.partitions takes an integer in 1..64, not 0"),
            std::string::npos);
  EXPECT_EQ(first_error(with(R"({"steps.0.ms": [1]})")),
            "/vary/steps.0.ms: steps. knobs need a scenario base (a profile draws its steps per seed)");
  EXPECT_EQ(first_error(with(R"({"generator.a.b": [1]})")), "/vary/generator.a.b: a generator knob is generator.NAME");
}

TEST(SweepRun, ResultsAreTheSameForAnyJobs) {
  const SweepLoad r = load_sweep_text(with(R"({"world.cache.budget_bytes": [2048, 1048576]})"), "s.json");
  ASSERT_TRUE(r.sweep);
  int ticks = 0;
  const WallClock wall = [&ticks] { return static_cast<double>(++ticks); };
  SweepRunOptions one;
  one.quiet = true;
  SweepRunOptions two = one;
  two.jobs = 2;
  SweepRunResult a = run_sweep(*r.sweep, one, wall), b = run_sweep(*r.sweep, two, wall);
  ASSERT_TRUE(a.errors.empty());
  ASSERT_TRUE(b.errors.empty());
  a.document.erase("wall_s");
  b.document.erase("wall_s");
  EXPECT_EQ(a.document, b.document);
  EXPECT_EQ(a.document["points"].size(), 2u);
  EXPECT_EQ(a.document["runs"], 4);
  EXPECT_EQ(a.document["knobs"][0]["unit"], "bytes");
  EXPECT_EQ(a.document["metrics"][0]["unit"], "count");
}

TEST(SweepLoader, AStudysQuestionAndConclusionsAreOptionalTextsCheckedWithTheirPath) {
  const std::string vary = R"({"world.brokers": [1]})";
  const SweepLoad r = load_sweep_text(with(vary, R"(, "question": "q?", "conclusions": ["one <b>", "two"])"), "s.json");
  ASSERT_TRUE(r.sweep) << r.errors[0].to_string();
  EXPECT_EQ(first_error(with(vary, R"(, "conclusions": "one")")).substr(0, 14), "/conclusions: ");
  EXPECT_EQ(first_error(with(vary, R"(, "conclusions": ["one", 2])")).substr(0, 16), "/conclusions/1: ");
  EXPECT_EQ(first_error(with(vary, R"(, "conclusions": [])")).substr(0, 14), "/conclusions: ");
  EXPECT_EQ(first_error(with(vary, R"(, "question": "")")).substr(0, 11), "/question: ");
  EXPECT_FALSE(first_error(with(vary, R"(, "conclusion": ["one"])")).empty()) << "a misspelt field is rejected";
  // The run's document carries them for the page.
  SweepRunOptions options;
  options.quiet = true;
  const SweepRunResult run = run_sweep(*r.sweep, options, [] { return 0.0; });
  ASSERT_TRUE(run.errors.empty());
  EXPECT_EQ(run.document["question"], "q?");
  EXPECT_EQ(run.document["conclusions"], json({"one <b>", "two"}));
}

TEST(SweepRun, ExpectationsJudgeByDefaultAndIgnoredOnlyThePropertiesDo) {
  const std::string file = std::string(QDT_SOURCE_DIR) + "/sim/testdata/sweeps/expect-window.json";
  SweepLoad r = load_sweep_file(file);
  ASSERT_TRUE(r.sweep) << r.errors[0].to_string();
  EXPECT_TRUE(r.sweep->check_expectations);
  SweepRunOptions options;
  options.quiet = true;
  const WallClock wall = [] { return 0.0; };
  const SweepRunResult checked = run_sweep(*r.sweep, options, wall);
  ASSERT_TRUE(checked.errors.empty());
  EXPECT_EQ(checked.document["expectations"], "check");
  EXPECT_EQ(checked.document["failures"], 2);  // window 0: the retry is stored as new, as the properties allow
  EXPECT_EQ(checked.document["points"][0]["failed_seeds"][0]["property"], "expectation");
  r.sweep->check_expectations = false;
  const SweepRunResult ignored = run_sweep(*r.sweep, options, wall);
  ASSERT_TRUE(ignored.errors.empty());
  EXPECT_EQ(ignored.document["expectations"], "ignore");
  EXPECT_EQ(ignored.document["failures"], 0);
  EXPECT_EQ(ignored.document["points"][0]["raw"], checked.document["points"][0]["raw"]) << "the runs are the same";
  // The file's field, and a value it does not know.
  const std::string vary = R"({"world.brokers": [1]})";
  const SweepLoad ignore = load_sweep_text(with(vary, R"(, "expectations": "ignore")"), "s.json");
  ASSERT_TRUE(ignore.sweep);
  EXPECT_FALSE(ignore.sweep->check_expectations);
  EXPECT_EQ(first_error(with(vary, R"(, "expectations": "off")")).substr(0, 15), "/expectations: ");
}

TEST(SweepRun, Units) {
  EXPECT_EQ(unit_of("virtual_duration_ms"), "ms");
  EXPECT_EQ(unit_of("queues.*.dedupWindowSeconds"), "s");
  EXPECT_EQ(unit_of("cache.cache_bytes"), "bytes");
  EXPECT_EQ(unit_of("world.network.loss_response"), "probability");
  EXPECT_EQ(unit_of("world.brokers"), "count");
}

}  // namespace
}  // namespace qdt::sim

namespace qdt::sim {
namespace {

TEST(SweepExample, EveryCuratedStudyStatesItsQuestionAndConclusions) {
  for (const char* name : {"probe-work-vs-cache-budget", "sidecar-depth-vs-rate-and-window",
                           "zero-id-duplicates-vs-retention", "repeats-vs-retry-backoff", "double-writes-vs-skew",
                           "double-writes-vs-time-since-widening"}) {
    const SweepLoad r = load_sweep_file(std::string(QDT_SOURCE_DIR) + "/reports/studies/" + name + ".json");
    ASSERT_TRUE(r.sweep) << r.errors[0].to_string();
    EXPECT_FALSE(r.sweep->doc.value("question", std::string()).empty()) << name;
    EXPECT_FALSE(r.sweep->doc.value("conclusions", json::array()).empty()) << name;
  }
}

TEST(SweepExample, TheShippedSweepLoadsAndEveryPointIsValid) {
  const std::string file = std::string(QDT_SOURCE_DIR) + "/scenarios/sweeps/cache-budget.json";
  const SweepLoad r = load_sweep_file(file);
  ASSERT_TRUE(r.sweep) << r.errors[0].to_string();
  EXPECT_EQ(r.sweep->name, "cache-budget");
  EXPECT_EQ(r.sweep->knobs.size(), 2u);
  const auto errors = check_points(*r.sweep);
  EXPECT_TRUE(errors.empty()) << errors[0].to_string();
}

}  // namespace
}  // namespace qdt::sim
