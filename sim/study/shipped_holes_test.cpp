// The shipped design's holes, measured: each family's threshold is a real
// one (doubled at it under the variant, not on the safe side of it), the
// reference stores no double at it and passes, the replay files fail under
// the variant and pass on the reference, and the thresholds are the values
// the mechanism predicts (skew + age past the window; the 30 s TTL plus the
// push that refreshes it).
#include "sim/study/shipped_holes.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "sim/campaign/campaign.h"

namespace qdt::sim {
namespace {

using impl::Variant;

std::string temp_dir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("qdt-shipped-holes-" + name);
  std::filesystem::remove_all(dir);
  return dir.string();
}

nlohmann::json load(const std::string& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

bool doubles(const nlohmann::json& doc, Variant v) { return run_hole(doc, v).double_writes > 0; }

TEST(ShippedHoles, FamiliesLoadAndPassOnTheReference) {
  for (int64_t skew_ms : {int64_t{0}, int64_t{30000}, int64_t{3600000}}) {
    const HoleRun r = run_hole(expiry_skew_scenario(skew_ms, 30000), Variant::none);
    EXPECT_TRUE(r.passed) << skew_ms;
    EXPECT_EQ(r.double_writes, 0) << skew_ms;
  }
  for (bool traffic : {true, false}) {
    for (int64_t delay_ms : {int64_t{0}, int64_t{29999}, int64_t{120000}}) {
      const HoleRun r = run_hole(meta_ttl_delay_scenario(delay_ms, traffic), Variant::none);
      EXPECT_TRUE(r.passed) << delay_ms << " " << traffic;
      EXPECT_EQ(r.double_writes, 0) << delay_ms << " " << traffic;
    }
  }
}

TEST(ShippedHoles, ExpirySkewThresholdsAreRealSteps) {
  const std::string out = temp_dir("expiry");
  const std::vector<HoleThreshold> ts = measure_holes(Variant::shipped_expiry, out);
  ASSERT_EQ(ts.size(), 4u);
  for (const HoleThreshold& t : ts) {
    SCOPED_TRACE(t.setting + ": " + t.detail);
    ASSERT_TRUE(t.found);
    EXPECT_TRUE(t.verified);
    EXPECT_TRUE(threshold_ok(t));
    const int64_t age_ms = std::stoll(t.setting.substr(t.setting.find('=') + 1));
    // Re-derived here rather than trusted: doubled at the threshold, not below it, never on the reference.
    EXPECT_TRUE(doubles(expiry_skew_scenario(t.value, age_ms), Variant::shipped_expiry));
    EXPECT_FALSE(doubles(expiry_skew_scenario(t.value - 1, age_ms), Variant::shipped_expiry));
    EXPECT_TRUE(run_hole(expiry_skew_scenario(t.value, age_ms), Variant::none).passed);
    // The mechanism: the broker's cutoff (its clock minus the window) passes the original's storage time.
    EXPECT_EQ(t.value, kHoleWindowSeconds * 1000 - age_ms + 1);
    // The file replays as stated.
    ASSERT_TRUE(t.file_written);
    const nlohmann::json file = load(t.file);
    EXPECT_FALSE(file["world"].contains("variant"));
    EXPECT_FALSE(run_document(file, Variant::shipped_expiry).value().passed);
    EXPECT_TRUE(run_document(file, Variant::none).value().passed);
    EXPECT_EQ(t.replay, "qdt replay " + t.file + " --variant shipped-expiry");
  }
}

TEST(ShippedHoles, MetaTtlHoleStaysOpenForTheTtl) {
  const std::string out = temp_dir("meta-ttl");
  const std::vector<HoleThreshold> ts = measure_holes(Variant::shipped_meta_ttl, out);
  ASSERT_EQ(ts.size(), 2u);
  const HoleThreshold& busy = ts[0];
  SCOPED_TRACE(busy.detail);
  ASSERT_TRUE(busy.found);
  EXPECT_TRUE(busy.verified);
  EXPECT_TRUE(doubles(meta_ttl_delay_scenario(0, true), Variant::shipped_meta_ttl));
  EXPECT_TRUE(doubles(meta_ttl_delay_scenario(busy.value, true), Variant::shipped_meta_ttl));
  EXPECT_FALSE(doubles(meta_ttl_delay_scenario(busy.value + 1, true), Variant::shipped_meta_ttl));
  EXPECT_FALSE(doubles(meta_ttl_delay_scenario(busy.value, true), Variant::none));
  // The TTL (30 s) runs from the last refresh; the push that refreshes it still carries the old window.
  EXPECT_GE(busy.value, 30000);
  EXPECT_LE(busy.value, 31000);
  ASSERT_TRUE(busy.file_written);
  const nlohmann::json file = load(busy.file);
  EXPECT_FALSE(run_document(file, Variant::shipped_meta_ttl).value().passed);
  EXPECT_TRUE(run_document(file, Variant::none).value().passed);
  // Nothing pushed between the widening and the repeat: the stale window is never refreshed in time.
  const HoleThreshold& quiet = ts[1];
  EXPECT_FALSE(quiet.expect_found);
  EXPECT_FALSE(quiet.found);
  EXPECT_TRUE(threshold_ok(quiet));
  EXPECT_TRUE(doubles(meta_ttl_delay_scenario(quiet.hi, false), Variant::shipped_meta_ttl));
}

TEST(ShippedHoles, ThresholdOkRejectsContradictions) {
  HoleThreshold t;
  t.expect_found = true;
  EXPECT_FALSE(threshold_ok(t));  // not found though expected
  t.found = true;
  EXPECT_FALSE(threshold_ok(t));  // found but not verified
  t.verified = true;
  EXPECT_FALSE(threshold_ok(t));  // no file
  t.file_written = true;
  EXPECT_TRUE(threshold_ok(t));
  t.expect_found = false;
  EXPECT_FALSE(threshold_ok(t));  // found where the design says it cannot be
}

TEST(ShippedHoles, ThresholdJsonRoundTrips) {
  const nlohmann::json doc = {{"knob", "skew_ms"},   {"setting", "repeat_age_ms=1000"}, {"meaning", "m"},
                              {"lo", 0},             {"hi", 10},                        {"expect_found", true},
                              {"found", true},       {"value", 7},                      {"evaluations", 9},
                              {"verified", true},    {"detail", "d"},                   {"file", "f.json"},
                              {"file_written", true}, {"replay", "qdt replay f.json --variant shipped-expiry"}};
  const HoleThreshold t = threshold_from_json(doc);
  EXPECT_EQ(t.value, 7);
  EXPECT_EQ(t.replay, "qdt replay f.json --variant shipped-expiry");
  EXPECT_EQ(threshold_json(t), doc);
}

TEST(ShippedHoles, OnlyTheShippedVariantsHaveFamilies) {
  for (Variant v : impl::all_variants()) {
    EXPECT_EQ(has_hole_families(v), v == Variant::shipped_expiry || v == Variant::shipped_meta_ttl);
  }
  EXPECT_TRUE(measure_holes(Variant::last_wins, temp_dir("none")).empty());
}

}  // namespace
}  // namespace qdt::sim
