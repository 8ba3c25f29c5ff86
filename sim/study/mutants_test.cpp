// qdt mutants: the harmless-argument registry, the verdicts, the exit code
// and the report on hand-made results; one real variant caught end to end.
#include "sim/study/mutants.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>

#include "sim/base/outcome.h"
#include "sim/study/mutant_arguments.h"
#include "sim/study/mutants_report.h"
#include "sim/campaign/workload.h"

namespace qdt::sim {
namespace {

using impl::Variant;

MutantResult caught(Variant v) {
  MutantResult r;
  r.variant = v;
  r.caught = true;
  r.seeds_run = 3;
  r.seeds_total = 20;
  r.property = "model-agreement";
  r.detail = "event 6: model answers duplicate";
  r.profile = "window-edge";
  r.seed = 1;
  r.file = "out/" + impl::variant_name(v) + "/window-edge-1-model-agreement.json";
  r.file_written = true;
  r.steps = 2;
  r.shrink_runs = 40;
  r.replay = "qdt replay " + r.file + " --variant " + impl::variant_name(v);
  return r;
}

MutantResult survived(Variant v) {
  MutantResult r;
  r.variant = v;
  r.seeds_run = 20;
  r.seeds_total = 20;
  return r;
}

const HarmlessRegistry kArguedPlainSet = {{Variant::plain_set, "the cache only ever answers -1 more often", "t.x"}};

TEST(MutantArguments, TheBuildsRegistryIsWellFormed) {
  EXPECT_TRUE(registry_problems(harmless_arguments()).empty());
  const std::vector<Variant> all = impl::all_variants();
  for (const HarmlessArgument& a : harmless_arguments()) {
    EXPECT_NE(std::find(all.begin(), all.end(), a.variant), all.end()) << impl::variant_name(a.variant);
    EXPECT_FALSE(a.argument.empty()) << impl::variant_name(a.variant);
  }
}

TEST(MutantArguments, ProblemsAreNamed) {
  EXPECT_TRUE(registry_problems({}).empty());
  EXPECT_TRUE(registry_problems(kArguedPlainSet).empty());
  const HarmlessRegistry twice = {{Variant::plain_set, "a", ""}, {Variant::plain_set, "b", ""}};
  ASSERT_EQ(registry_problems(twice).size(), 1u);
  EXPECT_NE(registry_problems(twice)[0].find("plain-set"), std::string::npos);
  EXPECT_EQ(registry_problems({{Variant::none, "x", ""}}).size(), 1u);
  EXPECT_EQ(registry_problems({{Variant::bloom_filter, "", ""}}).size(), 1u);
}

TEST(MutantArguments, FindsOnlyItsVariant) {
  ASSERT_NE(find_harmless_argument(kArguedPlainSet, Variant::plain_set), nullptr);
  EXPECT_EQ(find_harmless_argument(kArguedPlainSet, Variant::plain_set)->test, "t.x");
  EXPECT_EQ(find_harmless_argument(kArguedPlainSet, Variant::bloom_filter), nullptr);
  EXPECT_EQ(find_harmless_argument({}, Variant::plain_set), nullptr);
}

TEST(MutantsReport, CaughtExitsZero) {
  const std::vector<MutantResult> results = {caught(Variant::skip_probe), caught(Variant::last_wins)};
  EXPECT_EQ(classify(results[0], {}), MutantVerdict::caught);
  EXPECT_EQ(mutants_outcome(results, {}), Outcome::held);
  // An argument for a caught variant changes nothing: it was caught.
  EXPECT_EQ(classify(caught(Variant::plain_set), kArguedPlainSet), MutantVerdict::caught);
}

TEST(MutantsReport, SurvivorWithoutArgumentIsAHoleAndExitsOne) {
  const std::vector<MutantResult> results = {caught(Variant::skip_probe), survived(Variant::plain_set)};
  EXPECT_EQ(classify(results[1], {}), MutantVerdict::hole);
  EXPECT_EQ(mutants_outcome(results, {}), Outcome::failed);
  // Another variant's argument does not cover it.
  const HarmlessRegistry other = {{Variant::bloom_filter, "x", ""}};
  EXPECT_EQ(mutants_outcome(results, other), Outcome::failed);
}

TEST(MutantsReport, SurvivorWithArgumentIsHarmlessAndExitsZero) {
  const std::vector<MutantResult> results = {caught(Variant::skip_probe), survived(Variant::plain_set)};
  EXPECT_EQ(classify(results[1], kArguedPlainSet), MutantVerdict::harmless);
  EXPECT_EQ(mutants_outcome(results, kArguedPlainSet), Outcome::held);
  EXPECT_EQ(mutants_outcome({}, {}), Outcome::held);
}

TEST(MutantsReport, JsonListsVariantsSurvivorsAndHoles) {
  const std::vector<MutantResult> results = {caught(Variant::skip_probe), survived(Variant::plain_set),
                                             survived(Variant::bloom_filter)};
  const nlohmann::json doc = mutants_json(results, kArguedPlainSet, {{"seeds", 20}});
  EXPECT_EQ(doc["seeds"], 20);
  ASSERT_EQ(doc["variants"].size(), 3u);
  const nlohmann::json& v0 = doc["variants"][0];
  EXPECT_EQ(v0["variant"], "skip-probe");
  EXPECT_EQ(v0["verdict"], "caught");
  EXPECT_EQ(v0["property"], "model-agreement");
  EXPECT_EQ(v0["profile"], "window-edge");
  EXPECT_EQ(v0["seed"], 1);
  EXPECT_EQ(v0["seeds_run"], 3);
  EXPECT_EQ(v0["steps"], 2);
  EXPECT_EQ(v0["file"], "out/skip-probe/window-edge-1-model-agreement.json");
  EXPECT_EQ(v0["replay"], "qdt replay out/skip-probe/window-edge-1-model-agreement.json --variant skip-probe");
  EXPECT_TRUE(v0.contains("wall_s"));
  EXPECT_EQ(doc["variants"][1]["verdict"], "survived");
  EXPECT_EQ(doc["variants"][1]["harmless"], kArguedPlainSet[0].argument);
  EXPECT_EQ(doc["variants"][2]["verdict"], "hole");
  EXPECT_FALSE(doc["variants"][2].contains("property"));
  ASSERT_EQ(doc["survivors"].size(), 2u);
  EXPECT_EQ(doc["survivors"][0]["variant"], "plain-set");
  EXPECT_EQ(doc["survivors"][0]["harmless"], true);
  EXPECT_EQ(doc["survivors"][0]["test"], "t.x");
  EXPECT_EQ(doc["survivors"][1]["variant"], "bloom-filter");
  EXPECT_EQ(doc["survivors"][1]["harmless"], false);
  EXPECT_EQ(doc["holes"], nlohmann::json::array({"bloom-filter"}));
  EXPECT_EQ(doc["exit_code"], status_number(Outcome::failed));
}

TEST(MutantsReport, ResultsSurviveTheWorkerPipe) {
  for (const MutantResult& r : {caught(Variant::queue_scope), survived(Variant::stale_window)}) {
    EXPECT_EQ(result_json(result_from_json(result_json(r))), result_json(r));
  }
}

TEST(MutantsReport, TableSaysCaughtSurvivedAndHole) {
  const std::vector<MutantResult> results = {caught(Variant::skip_probe), survived(Variant::plain_set),
                                             survived(Variant::bloom_filter)};
  const std::string table = mutants_table(results, kArguedPlainSet);
  EXPECT_NE(table.find("window-edge seed 1"), std::string::npos) << table;
  EXPECT_NE(table.find("qdt replay out/skip-probe/window-edge-1-model-agreement.json --variant skip-probe"),
            std::string::npos);
  EXPECT_NE(table.find("plain-set: survived (harmless: " + kArguedPlainSet[0].argument + ")"), std::string::npos)
      << table;
  EXPECT_NE(table.find("bloom-filter: hole"), std::string::npos) << table;
  EXPECT_NE(table.find("1 caught, 1 survived (harmless), 1 holes"), std::string::npos) << table;
}

TEST(MutantsReport, ListNamesEveryVariantAndItsArgument) {
  const std::string text = variant_list(kArguedPlainSet, false);
  for (Variant v : impl::all_variants()) {
    EXPECT_NE(text.find(impl::variant_name(v)), std::string::npos);
    EXPECT_NE(text.find(impl::variant_description(v)), std::string::npos);
  }
  EXPECT_NE(text.find("harmless: " + kArguedPlainSet[0].argument), std::string::npos);
  const auto list = nlohmann::json::parse(variant_list(kArguedPlainSet, true));
  ASSERT_EQ(list.size(), impl::all_variants().size());
  for (const auto& entry : list) EXPECT_EQ(entry["harmless"], entry["variant"] == "plain-set");
}

// A shipped variant's thresholds travel through the worker pipe, are printed
// with their replay commands, and one that fails its check fails the run.
TEST(MutantsReport, ThresholdsArePrintedAndAFailedCheckExitsOne) {
  MutantResult r = caught(Variant::shipped_expiry);
  HoleThreshold t;
  t.knob = "skew_ms";
  t.setting = "repeat_age_ms=30000";
  t.meaning = "smallest skew";
  t.hi = 100;
  t.found = true;
  t.value = 30001;
  t.evaluations = 27;
  t.verified = true;
  t.detail = "double write: false at 30000, true at 30001";
  t.file = "out/shipped-expiry/shipped-expiry-skew-threshold-age-30000ms.json";
  t.file_written = true;
  t.replay = "qdt replay " + t.file + " --variant shipped-expiry";
  r.thresholds = {t};
  EXPECT_EQ(result_json(result_from_json(result_json(r))), result_json(r));
  EXPECT_EQ(mutants_outcome({r}, {}), Outcome::held);
  const std::string table = mutants_table({r}, {});
  EXPECT_NE(table.find("shipped-expiry repeat_age_ms=30000: skew_ms = 30001"), std::string::npos) << table;
  EXPECT_NE(table.find(t.replay), std::string::npos) << table;
  EXPECT_EQ(mutants_json({r}, {}, {})["variants"][0]["thresholds"][0]["value"], 30001);
  r.thresholds[0].verified = false;
  EXPECT_EQ(mutants_outcome({r}, {}), Outcome::failed);
  EXPECT_NE(mutants_table({r}, {}).find("CHECK FAILED"), std::string::npos);
  // Without thresholds there is no section.
  EXPECT_EQ(mutants_table({caught(Variant::last_wins)}, {}).find("holes bite"), std::string::npos);
}

TEST(Mutants, SelectionFollowsTheCatalogue) {
  EXPECT_EQ(select_variants({}).variants, impl::all_variants());
  const VariantSelection picked = select_variants({"last-wins", "skip-probe", "last-wins"});
  EXPECT_TRUE(picked.error.empty());
  EXPECT_EQ(picked.variants, (std::vector<Variant>{Variant::skip_probe, Variant::last_wins}));
  EXPECT_NE(select_variants({"skip-probe", "nope"}).error.find("'nope'"), std::string::npos);
  EXPECT_FALSE(select_variants({"none"}).error.empty());
}

// A variant is caught at the first failure in interleaved seed order, its
// failure shrunk and written below OUT/VARIANT; the same again gives the same result.
TEST(Mutants, SkipProbeIsCaughtAtItsFirstFailure) {
  const std::filesystem::path out = std::filesystem::temp_directory_path() / "qdt-mutants-test";
  std::filesystem::remove_all(out);
  MutantsOptions options;
  options.seeds = 5;
  options.profile = "all";
  options.out_dir = out.string();
  options.quiet = true;
  const WallClock still = [] { return 0.0; };
  const MutantResult a = run_mutant(options, Variant::skip_probe, still, "");
  EXPECT_TRUE(a.caught);
  EXPECT_EQ(a.seed, 1u);
  EXPECT_GE(a.seeds_run, 1u);
  EXPECT_EQ(a.seeds_total, 5u * profile_names().size());
  EXPECT_TRUE(a.file_written);
  EXPECT_TRUE(std::filesystem::exists(a.file));
  EXPECT_EQ(std::filesystem::path(a.file).parent_path().filename(), "skip-probe");
  EXPECT_GE(a.steps, 1);
  EXPECT_NE(a.replay.find("--variant skip-probe"), std::string::npos);
  const MutantResult b = run_mutant(options, Variant::skip_probe, still, "");
  EXPECT_EQ(result_json(a), result_json(b));
  std::filesystem::remove_all(out);
}

}  // namespace
}  // namespace qdt::sim
