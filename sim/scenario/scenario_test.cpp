#include "sim/scenario/scenario.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <fstream>

#include "sim/scenario/step_ack.h"
#include "sim/scenario/step_advance.h"
#include "sim/scenario/step_composite.h"
#include "sim/scenario/step_crash_storage.h"
#include "sim/scenario/step_storage_fail.h"

namespace qdt::sim {
namespace {

// The first error of loading `text`, as "PATH: reason".
std::string first_error(const std::string& text) {
  const LoadResult r = load_scenario_text(text, "t.json");
  if (r.scenario) return "";
  EXPECT_FALSE(r.errors.empty());
  return r.errors.empty() ? "?" : r.errors[0].path + ": " + r.errors[0].reason;
}

TEST(ScenarioLoader, LoadsAValidScenarioWithDefaults) {
  const LoadResult r = load_scenario_text(R"({
    "name": "x", "seed": 9,
    "queues": {"orders": {"dedupWindowSeconds": 60}},
    "steps": [
      {"id": "p1", "op": "push", "items": [{"queue": "orders", "transactionId": "t1", "data": {}}]},
      {"op": "advance", "seconds": 1.5},
      {"op": "parallel", "steps": [{"id": "a", "op": "push", "items": []}, {"op": "advance", "ms": 3}]},
      {"id": "k", "op": "ack", "queue": "orders", "transactionId": "t1"}
    ],
    "expect": {"p1": [{"status": "queued"}], "a": [], "k": {"status": "acked"}, "stored": {"orders/Default": 1}}
  })", "x.json");
  ASSERT_TRUE(r.scenario) << (r.errors.empty() ? "" : r.errors[0].to_string());
  const Scenario& s = *r.scenario;
  EXPECT_EQ(s.seed, 9u);
  EXPECT_EQ(s.world.network.latency_ms_min, 1);
  EXPECT_EQ(s.world.network.latency_ms_max, 5);
  ASSERT_EQ(s.steps.size(), 4u);
  EXPECT_EQ(s.steps[1].as<AdvanceArgs>().ms, 1500);
  EXPECT_EQ(s.steps[2].children.size(), 2u);
  EXPECT_EQ(s.steps[3].as<AckArgs>().partition, "Default");
  EXPECT_EQ(s.expect_stored.size(), 1u);
}

TEST(ScenarioLoader, MalformedInputsNameThePathAndTheReason) {
  EXPECT_NE(first_error(R"({"steps": [{"op": "push", "items": [)").find("not valid JSON"), std::string::npos);
  EXPECT_EQ(first_error(R"({"steps": [{"op": "explode"}]})").substr(0, 11), "/steps/0/op");
  EXPECT_EQ(first_error(R"({"seed": "one", "steps": []})").substr(0, 5), "/seed");
  EXPECT_EQ(first_error(R"({"queues": {"q": {"dedupWindowSeconds": -1}}, "steps": []})")
                .substr(0, 30),
            "/queues/q/dedupWindowSeconds: ");
  EXPECT_EQ(first_error(R"({"steps": [{"id": "a", "op": "push", "items": []}],
                            "expect": {"nope": [{"status": "queued"}]}})"),
            "/expect/nope: expectation for a step that does not exist");
  EXPECT_EQ(first_error(R"({"steps": [{"id": "a", "op": "push", "items": [{"queue":"q","data":1}]}],
                            "expect": {"a": [{"status": "duplicate", "message_id": "@zz/0"}]}})"),
            "/expect/a/0/message_id: \"@zz/0\" refers to step \"zz\", which is not a push step of this file");
  EXPECT_EQ(first_error(R"({"steps": [{"id": "a", "op": "push", "items": []}, {"id": "a", "op": "push", "items": []}]})"),
            "/steps/1/id: duplicate step id \"a\"");
  EXPECT_EQ(first_error(R"({"steps": [{"op": "push", "items": [], "broker": 1}]})"),
            "/steps/0/broker: broker 1 does not exist (world.brokers is 1)");
  EXPECT_FALSE(first_error(R"({"steps": [{"op": "advance", "seconds": 1, "ms": 2}]})").empty());
  EXPECT_FALSE(first_error(R"({"steps": [{"op": "parallel", "steps": [{"op": "parallel", "steps": []}]}]})").empty());
  EXPECT_FALSE(first_error(R"({"steps": [{"op": "push", "items": [], "colour": "red"}]})").empty());
  EXPECT_FALSE(first_error(R"({"steps": []], "x": 1})").empty());
  EXPECT_FALSE(first_error(R"([])").empty());
  EXPECT_FALSE(first_error(R"({})").empty());
  EXPECT_EQ(first_error(R"({"steps": [{"op": "evict_cache", "broker": 0, "partition": "p"}]})"),
            "/steps/0/partition: a partition needs its queue");
  EXPECT_EQ(first_error(R"({"steps": [{"op": "cache", "broker": 0}]})"), "/steps/0/enabled: required");
  EXPECT_FALSE(first_error(R"({"steps": [{"op": "network"}]})").empty());  // changes nothing
  EXPECT_FALSE(first_error(R"({"steps": [{"op": "push", "items": [], "retry": {"attempts": 0}}]})").empty());
}

// crash_storage and world.storage.synchronous: file storage only, one of
// three values; the default is full.
TEST(ScenarioLoader, CrashStorageAndSynchronousNeedFileStorage) {
  EXPECT_EQ(first_error(R"({"steps": [{"op": "crash_storage"}]})"),
            "/steps/0: crash_storage needs file storage: set /world/storage/path to a file name");
  EXPECT_EQ(first_error(R"({"world": {"storage": {"path": ":memory:"}}, "steps": [{"op": "crash_storage", "torn": false}]})"),
            "/steps/0: crash_storage needs file storage: set /world/storage/path to a file name");
  EXPECT_EQ(first_error(R"({"world": {"storage": {"path": "q.db"}}, "steps": [{"op": "crash_storage", "torn": 1}]})")
                .substr(0, 15),
            "/steps/0/torn: ");
  EXPECT_EQ(first_error(R"({"world": {"storage": {"path": "q.db"}}, "steps": [{"op": "crash_storage", "when": 1}]})")
                .substr(0, 15),
            "/steps/0/when: ");
  EXPECT_EQ(first_error(R"({"world": {"storage": {"path": "q.db", "synchronous": "FULL"}}, "steps": []})"),
            "/world/storage/synchronous: expected \"full\", \"normal\" or \"off\", got \"FULL\"");
  EXPECT_EQ(first_error(R"({"world": {"storage": {"path": "q.db", "synchronous": "extra"}}, "steps": []})"),
            "/world/storage/synchronous: expected \"full\", \"normal\" or \"off\", got \"extra\"");
  EXPECT_EQ(first_error(R"({"world": {"storage": {"path": "q.db", "synchronous": 2}}, "steps": []})").substr(0, 28),
            "/world/storage/synchronous: ");
  EXPECT_EQ(first_error(R"({"world": {"storage": {"synchronous": "off"}}, "steps": []})"),
            "/world/storage/synchronous: applies to file storage only: set /world/storage/path to a file name");
  {
    const LoadResult r = load_scenario_text(
        R"({"world": {"storage": {"path": "q.db"}}, "steps": [{"op": "crash_storage"}]})", "d.json");
    ASSERT_TRUE(r.scenario) << r.errors[0].to_string();
    EXPECT_EQ(r.scenario->world.storage.synchronous, "full");
    EXPECT_EQ(r.scenario->steps[0].kind, &crash_storage_step);
    EXPECT_TRUE(r.scenario->steps[0].as<CrashStorageArgs>().torn);
  }
  {
    const LoadResult r = load_scenario_text(
        R"({"world": {"storage": {"path": "q.db", "synchronous": "off"}}, "steps": [{"op": "crash_storage", "torn": false}]})",
        "d.json");
    ASSERT_TRUE(r.scenario) << r.errors[0].to_string();
    EXPECT_EQ(r.scenario->world.storage.synchronous, "off");
    EXPECT_FALSE(r.scenario->steps[0].as<CrashStorageArgs>().torn);
  }
}

// storage_fail's fault fields and world.storage.interleave: defaults, every
// accepted value, and a clear path and reason for the rest.
// A storage path becomes part of an SQLite URI and a file in the run's own
// folder: anything but a plain file name is refused at /world/storage/path.
TEST(ScenarioLoader, StoragePathIsOnePlainFileName) {
  const auto with_path = [](const std::string& path) {
    return first_error(R"({"world": {"storage": {"path": ")" + path + R"("}}, "steps": []})");
  };
  const std::string reason =
      "/world/storage/path: expected \":memory:\" or a plain file name (1-128 bytes of A-Z a-z 0-9 . _ -, not "
      "starting with \".\"), made in a fresh folder of the run's own";
  for (const std::string& bad : std::vector<std::string>{"..", ".", "", ".hidden", "x.db?mode=memory&a=", "x.db?vfs=unix&a=", "a/b.db",
                                "/tmp/x.db", "x.db#f", "x%3F.db", std::string(300, 'a'), "sp ace.db"}) {
    EXPECT_EQ(with_path(bad), reason) << bad;
  }
  EXPECT_EQ(with_path(std::string(129, 'a')), reason);
  for (const std::string& good : std::vector<std::string>{":memory:", "qdt.db", "a", "x-1_2.sqlite", std::string(128, 'a')}) {
    EXPECT_EQ(with_path(good), "") << good;
  }
}

// One name rule wherever a queue, partition, consumer group or key appears:
// 1-255 bytes (86 euro signs are 258 bytes).
TEST(ScenarioLoader, NamesAreOneToTwoHundredFiftyFiveBytesInEveryStep) {
  std::string euros;
  for (int i = 0; i < 86; ++i) euros += "\xe2\x82\xac";
  const std::string q = R"({"queues": {"q": {}}, "steps": [)";
  const std::string reason = ": a name is 1-255 bytes, got 258";
  EXPECT_EQ(first_error(q + R"({"op": "ack", "queue": ")" + euros + R"(", "transactionId": "t"}]})"),
            "/steps/0/queue" + reason);
  EXPECT_EQ(first_error(q + R"({"op": "ack", "queue": "q", "transactionId": ")" + euros + R"("}]})"),
            "/steps/0/transactionId" + reason);
  EXPECT_EQ(first_error(q + R"({"op": "ack", "queue": "q", "transactionId": "t", "consumerGroup": ")" + euros +
                        R"("}]})"),
            "/steps/0/consumerGroup" + reason);
  EXPECT_EQ(first_error(q + R"({"op": "configure", "queue": ")" + euros + R"(", "options": {}}]})"),
            "/steps/0/queue" + reason);
  EXPECT_EQ(first_error(q + R"({"op": "read", "queue": "q", "partition": ")" + euros + R"("}]})"),
            "/steps/0/partition" + reason);
  EXPECT_EQ(first_error(q + R"({"op": "delete_segment", "queue": "q", "partition": ")" + euros +
                        R"(", "offset": 0}]})"),
            "/steps/0/partition" + reason);
  EXPECT_EQ(first_error(q + R"({"op": "evict_cache", "broker": 0, "queue": "q", "partition": ")" + euros +
                        R"("}]})"),
            "/steps/0/partition" + reason);
  EXPECT_EQ(first_error(q + R"({"op": "retention", "queue": ""}]})"), "/steps/0/queue: a name is 1-255 bytes, got 0");
  EXPECT_EQ(first_error(R"({"queues": {")" + euros + R"(": {}}, "steps": []})"),
            "/queues/" + euros + ": a queue name is 1-255 bytes");
  EXPECT_EQ(first_error(q + R"(], "expect": {"stored": {")" + euros + R"(/p": 1}}})"),
            "/expect/stored/" + euros + "/p: expected a \"queue/partition\" key (names of 1-255 bytes)");
  // 255 bytes is a name.
  EXPECT_EQ(first_error(q + R"({"op": "read", "queue": "q", "partition": ")" + std::string(255, 'p') + R"("}]})"), "");
}

TEST(ScenarioLoader, AHugeCountIsTooLargeNotNegative) {
  EXPECT_EQ(first_error(R"({"queues": {"q": {}}, "steps": [], "expect": {"stored": {"q/p": 18446744073709551615}}})"),
            "/expect/stored/q/p: must be <= 9223372036854775807");
  EXPECT_EQ(first_error(R"({"queues": {"q": {"dedupWindowSeconds": 9223372036854775808}}, "steps": []})"),
            "/queues/q/dedupWindowSeconds: must be <= 2147483647");
  // What PostgreSQL's int4 columns hold bounds every engine, so they agree.
  EXPECT_EQ(first_error(R"({"queues": {"q": {"dedupWindowSeconds": 2147483648}}, "steps": []})"),
            "/queues/q/dedupWindowSeconds: must be <= 2147483647");
  EXPECT_EQ(first_error(R"({"queues": {"q": {"retentionSeconds": 2147483647}}, "steps": [{"op": "configure", )"
                        R"("queue": "q", "options": {"completedRetentionSeconds": 2147483648}}]})"),
            "/steps/0/options/completedRetentionSeconds: must be <= 2147483647");
}

TEST(ScenarioLoader, StorageFaultFieldsAndInterleave) {
  {
    const LoadResult r = load_scenario_text(R"({"steps": [{"op": "storage_fail", "count": 2}]})", "d.json");
    ASSERT_TRUE(r.scenario) << r.errors[0].to_string();
    const Step& s = r.scenario->steps[0];
    EXPECT_EQ(s.as<StorageFailArgs>().fault.op, StorageOpKind::push);
    EXPECT_EQ(s.as<StorageFailArgs>().fault.after_statements, 0);
    EXPECT_EQ(s.as<StorageFailArgs>().fault.code, FaultCode::io_error);
    EXPECT_EQ(s.as<StorageFailArgs>().fault.count, 2);
    EXPECT_EQ(s.as<StorageFailArgs>().fault.pg, PgFaultAction::cancel);
    EXPECT_TRUE(r.scenario->world.storage.interleave);
  }
  const std::vector<std::pair<std::string, StorageOpKind>> kinds = {
      {"push", StorageOpKind::push}, {"fetch", StorageOpKind::fetch},         {"hydrate", StorageOpKind::hydrate},
      {"ack", StorageOpKind::ack},   {"read", StorageOpKind::read},           {"retention", StorageOpKind::retention},
      {"purge", StorageOpKind::purge}, {"any", StorageOpKind::any}};
  for (const auto& [name, kind] : kinds) {
    const LoadResult r = load_scenario_text(R"({"world": {"storage": {"interleave": false}}, "steps": [
        {"op": "storage_fail", "count": 3, "target": ")" + name + R"(", "after_statements": 64, "code": "full"}]})",
                                            "k.json");
    ASSERT_TRUE(r.scenario) << name << ": " << r.errors[0].to_string();
    const Step& s = r.scenario->steps[0];
    EXPECT_EQ(s.as<StorageFailArgs>().fault.op, kind) << name;
    EXPECT_EQ(s.as<StorageFailArgs>().fault.after_statements, 64);
    EXPECT_EQ(s.as<StorageFailArgs>().fault.code, FaultCode::full);
    EXPECT_EQ(s.as<StorageFailArgs>().fault.count, 3);
    EXPECT_EQ(s.as<StorageFailArgs>().fault.count, 3);
    EXPECT_FALSE(r.scenario->world.storage.interleave);
  }
  EXPECT_EQ(first_error(R"({"steps": [{"op": "storage_fail", "count": 1, "target": "vacuum"}]})"),
            "/steps/0/target: unknown storage transaction \"vacuum\" (expected \"push\", \"fetch\", \"hydrate\", "
            "\"ack\", \"read\", \"retention\", \"purge\" or \"any\")");
  EXPECT_EQ(first_error(R"({"steps": [{"op": "storage_fail", "count": 1, "code": "busy"}]})"),
            "/steps/0/code: unknown fault code \"busy\" (expected \"ioerr\" or \"full\")");
  for (const auto& [name, action] : std::vector<std::pair<std::string, PgFaultAction>>{
           {"terminate", PgFaultAction::terminate}, {"cancel", PgFaultAction::cancel}}) {
    const LoadResult r =
        load_scenario_text(R"({"steps": [{"op": "storage_fail", "count": 1, "pg": ")" + name + R"("}]})", "pg.json");
    ASSERT_TRUE(r.scenario) << name << ": " << r.errors[0].to_string();
    EXPECT_EQ(r.scenario->steps[0].as<StorageFailArgs>().fault.pg, action) << name;
  }
  EXPECT_EQ(first_error(R"({"steps": [{"op": "storage_fail", "count": 1, "pg": "kill"}]})"),
            "/steps/0/pg: unknown PostgreSQL fault \"kill\" (expected \"terminate\" or \"cancel\")");
  EXPECT_EQ(first_error(R"({"steps": [{"op": "storage_fail", "count": 1, "after_statements": 65}]})"),
            "/steps/0/after_statements: must be <= 64");
  EXPECT_EQ(first_error(R"({"steps": [{"op": "storage_fail", "count": 1, "after_statements": -1}]})"),
            "/steps/0/after_statements: must be in [0, 64], got -1");
  EXPECT_EQ(first_error(R"({"steps": [{"op": "storage_fail", "count": 1, "target": 3}]})"),
            "/steps/0/target: expected a string");
  EXPECT_EQ(first_error(R"({"steps": [{"op": "storage_fail", "target": "ack"}]})"), "/steps/0/count: required");
  EXPECT_EQ(first_error(R"({"steps": [{"op": "storage_fail", "count": 1, "kind": "ack"}]})"),
            "/steps/0/kind: unknown field");
  EXPECT_EQ(first_error(R"({"world": {"storage": {"interleave": 1}}, "steps": []})"),
            "/world/storage/interleave: expected true or false");
  // The schema agrees on each of these.
  for (const char* bad : {R"({"steps": [{"op": "storage_fail", "count": 1, "target": "vacuum"}]})",
                          R"({"steps": [{"op": "storage_fail", "count": 1, "code": "busy"}]})",
                          R"({"steps": [{"op": "storage_fail", "count": 1, "pg": "kill"}]})",
                          R"({"steps": [{"op": "storage_fail", "count": 1, "after_statements": 65}]})",
                          R"({"world": {"storage": {"interleave": 1}}, "steps": []})"}) {
    EXPECT_FALSE(schema_errors(nlohmann::json::parse(bad), "f").empty()) << bad;
  }
  EXPECT_TRUE(schema_errors(nlohmann::json::parse(R"({"world": {"storage": {"interleave": false}}, "steps": [
      {"op": "storage_fail", "count": 1, "target": "purge", "after_statements": 3, "code": "full", "pg": "cancel"}]})"),
                            "f")
                  .empty());
}

// Fuzz-like: every prefix of a valid file is rejected cleanly or accepted,
// never a crash or an exception.
TEST(ScenarioLoader, EveryTruncationIsHandled) {
  const std::string text = R"({"name":"t","seed":3,"world":{"brokers":2,"network":{"latency_ms":[0,2]}},)"
                           R"("queues":{"q":{"dedupWindowSeconds":5}},"steps":[{"id":"p","op":"push","broker":1,)"
                           R"("items":[{"queue":"q","transactionId":"a","data":{}}]},{"op":"advance","ms":10}],)"
                           R"("expect":{"p":[{"status":"queued","message_id":"new"}],"stored":{"q/Default":1}}})";
  ASSERT_TRUE(load_scenario_text(text, "t.json").scenario);
  for (size_t n = 0; n < text.size(); ++n) {
    const LoadResult r = load_scenario_text(text.substr(0, n), "t.json");
    EXPECT_FALSE(r.scenario) << n;
    EXPECT_FALSE(r.errors.empty()) << n;
  }
  // Byte flips anywhere: whatever happens, a clear verdict.
  for (size_t n = 0; n < text.size(); n += 3) {
    std::string bad = text;
    bad[n] = static_cast<char>(bad[n] ^ 0x15);
    const LoadResult r = load_scenario_text(bad, "t.json");
    EXPECT_NE(r.scenario.has_value(), !r.errors.empty()) << n;
  }
}

TEST(ScenarioLoader, ShippedInvalidFilesAreRejected) {
  const std::filesystem::path dir = std::filesystem::path(QDT_SOURCE_DIR) / "sim" / "testdata" / "invalid";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << "no invalid test files";
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const LoadResult r = load_scenario_file(entry.path().string());
    EXPECT_FALSE(r.scenario) << entry.path();
    ASSERT_FALSE(r.errors.empty()) << entry.path();
    EXPECT_FALSE(r.errors[0].path.empty());
    EXPECT_FALSE(r.errors[0].reason.empty());
    ++checked;
  }
  EXPECT_GE(checked, 5);
}

// The shipped schema and the loader's own rules agree on the shipped files.
TEST(ScenarioSchema, AcceptsShippedScenariosAndRejectsInvalidOnes) {
  const std::filesystem::path root(QDT_SOURCE_DIR);
  int valid = 0, invalid = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root / "scenarios")) {
    if (entry.path().extension() != ".json" || entry.path().parent_path().filename() == "schema" ||
        entry.path().parent_path().filename() == "sweeps") {
      continue;  // JSON Schemas and sweep files (qdt explore) are not scenarios
    }
    std::ifstream in(entry.path());
    const auto doc = nlohmann::json::parse(in);
    EXPECT_TRUE(schema_errors(doc, "f").empty()) << entry.path();
    ++valid;
  }
  for (const auto& entry : std::filesystem::directory_iterator(root / "sim" / "testdata" / "invalid")) {
    std::ifstream in(entry.path());
    const auto doc = nlohmann::json::parse(in, nullptr, false);
    if (doc.is_discarded()) continue;  // not JSON at all
    static const std::set<std::string> kLoaderOnly = {
        // cross-references are the loader's rules, not the schema's
        "missing-step-reference.json", "expect-for-missing-step.json",
        // bounds of the run with repeats unrolled
        "repeat-advances-more-than-ten-years.json", "repeat-nested-unbounded.json", "repeat-retries-unbounded.json",
        // parser rules (sim/base/json_input.h) a schema cannot state: depth and duplicate keys
        "nesting-deeper-than-64.json", "duplicate-key-top-level.json", "duplicate-key-in-step.json"};
    if (kLoaderOnly.count(entry.path().filename().string())) continue;
    EXPECT_FALSE(schema_errors(doc, "f").empty()) << entry.path();
    ++invalid;
  }
  EXPECT_GE(valid, 20);
  EXPECT_GE(invalid, 5);
  EXPECT_FALSE(schema_errors(nlohmann::json::parse(R"({"steps": [{"op": "push"}]})"), "f").empty());
}

TEST(ScenarioLoader, ShippedScenariosAllLoad) {
  const std::filesystem::path dir = std::filesystem::path(QDT_SOURCE_DIR) / "scenarios";
  int loaded = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (entry.path().extension() != ".json" || entry.path().parent_path().filename() == "schema" ||
        entry.path().parent_path().filename() == "sweeps") {
      continue;  // JSON Schemas and sweep files (qdt explore) are not scenarios
    }
    const LoadResult r = load_scenario_file(entry.path().string());
    EXPECT_TRUE(r.scenario) << (r.errors.empty() ? "" : r.errors[0].to_string());
    ++loaded;
  }
  EXPECT_GE(loaded, 20);
}

// The schema names the same variants as the code (world.variant), in order.
TEST(ScenarioSchema, VariantEnumMatchesTheCatalogue) {
  const nlohmann::json schema = nlohmann::json::parse(scenario_schema_text());
  const auto& names = schema["definitions"]["world"]["properties"]["variant"]["enum"];
  std::vector<std::string> want = {"none"};
  for (const std::string& n : impl::variant_names()) want.push_back(n);
  EXPECT_EQ(names.get<std::vector<std::string>>(), want);
}

TEST(ScenarioLoader, RepeatRunsItsChildrenTimesAndIsBounded) {
  const LoadResult r = load_scenario_text(R"({"steps": [{"op": "repeat", "times": 3, "steps": [
      {"op": "repeat", "times": 2, "steps": [{"op": "push", "items": [{"queue": "q", "data": {}}]}]},
      {"op": "advance", "ms": 10}]}]})", "r.json");
  ASSERT_TRUE(r.scenario) << r.errors[0].to_string();
  ASSERT_EQ(r.scenario->steps.size(), 1u);
  EXPECT_EQ(r.scenario->steps[0].as<RepeatArgs>().times, 3);
  ASSERT_EQ(r.scenario->steps[0].children.size(), 2u);
  EXPECT_EQ(r.scenario->steps[0].children[0].as<RepeatArgs>().times, 2);
  EXPECT_EQ(first_error(R"({"steps": [{"op": "repeat", "times": 2, "steps": [{"id": "x", "op": "advance", "ms": 1}]}]})"),
            "/steps/0/steps/0/id: a step inside repeat runs many times and cannot have an id");
  EXPECT_EQ(first_error(R"({"steps": [{"op": "repeat", "times": 0, "steps": []}]})").substr(0, 15), "/steps/0/times:");
  EXPECT_EQ(first_error(R"({"steps": [{"op": "repeat", "steps": []}]})").substr(0, 15), "/steps/0/times:");
  EXPECT_EQ(first_error(R"({"steps": [{"op": "repeat", "times": 2, "steps": [{"op": "parallel", "steps": []}]}]})"),
            "/steps/0/steps/0/op: parallel may not be nested inside parallel, sequence or repeat");
  // 100 000 x 100 000 steps: each repeat is within bounds, the run is not.
  EXPECT_EQ(first_error(R"({"steps": [{"op": "repeat", "times": 100000, "steps": [{"op": "repeat", "times": 100000,
      "steps": [{"op": "advance", "ms": 0}]}]}]})"),
            "/steps: with repeats unrolled the script runs more than 2000000 steps");
  EXPECT_EQ(first_error(R"({"steps": [{"op": "repeat", "times": 1000, "steps": [{"op": "advance", "seconds": 315360000}]}]})"),
            "/steps: with repeats unrolled the script advances virtual time by more than ten years");
}

// Pushed bytes are counted as the items' JSON text: a value of 60 000
// backslashes is 120 002 bytes once escaped, so 2 300 pushes of it exceed
// 256 MiB while 2 000 do not (the characters alone, 138 MB, would pass both).
TEST(ScenarioLoader, PushedBytesAreCountedAsTheItemsText) {
  const auto script = [](int times) {
    return R"({"steps": [{"op": "repeat", "times": )" + std::to_string(times) +
           R"(, "steps": [{"op": "push", "items": [{"queue": "q", "data": ")" + std::string(60'000 * 2, '\\') +
           R"("}]}]}]})";
  };
  EXPECT_EQ(first_error(script(2300)), "/steps: with repeats unrolled the script pushes more than 256 MiB of items");
  EXPECT_EQ(first_error(script(2000)), "");
}

// Each crash_storage records what storage recovered: their number, and
// their number times the items pushed, are bounded, not only the steps.
TEST(ScenarioLoader, StorageCrashesAreBoundedWithWhatTheyRecover) {
  const auto script = [](int times, int pushes_per_crash) {
    std::string steps;
    for (int i = 0; i < pushes_per_crash; ++i) steps += R"({"op": "push", "items": [{"queue": "q", "data": 1}]}, )";
    return R"({"world": {"storage": {"path": "qdt.db"}}, "steps": [{"op": "repeat", "times": )" +
           std::to_string(times) + R"(, "steps": [)" + steps + R"({"op": "crash_storage"}]}]})";
  };
  EXPECT_EQ(first_error(script(1000, 2)), "");
  EXPECT_EQ(first_error(script(1001, 0)),
            "/steps: with repeats unrolled the script runs more than 1000 crash_storage steps");
  EXPECT_EQ(first_error(script(1000, 3)),
            "/steps: with repeats unrolled the script's crash_storage steps times the bytes of items it pushes is more "
            "than 64 MiB (each crash records what storage recovered)");
}

}  // namespace
}  // namespace qdt::sim
