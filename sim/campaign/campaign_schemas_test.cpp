#include "sim/campaign/campaign_schemas.h"

#include <gtest/gtest.h>

#include <variant>

#include "sim/campaign/campaign_journal.h"
#include "sim/campaign/campaign_merge.h"
#include "sim/scenario/coverage.h"

namespace qdt::sim {
namespace {

using json = nlohmann::json;

json failure() { return {{"profile", "default"}, {"seed", 3}, {"property", "offsets"}, {"detail", "gap"}}; }

json summary_with(const json& failure_record) {
  json s = empty_share();
  s["seeds_run"] = 3;
  s["failed"] = 1;
  s["failures"] = json::array({failure_record});
  return s;
}

// What qdt writes, it reads back: a share (a journal part's shape, with its
// checksum) and a journal's campaign.json.
TEST(CampaignSchemas, AcceptWhatQdtWrites) {
  json part = summary_with(failure());
  part["checksum"] = "00";
  EXPECT_TRUE(summary_schema_errors(part, "p.json").empty());
  json shrunk = failure();
  shrunk.update({{"file", "f.json"}, {"replay", "qdt replay f.json"}, {"steps", 4}, {"shrink_runs", 9},
                 {"properties", {"offsets"}}, {"step_kind", "push"}, {"rule", "offsets/gap"},
                 {"explanation", "Offsets were skipped."}, {"event", 4}, {"expected", "queued from offset 2"},
                 {"actual", "queued from offset 3"}});
  EXPECT_TRUE(summary_schema_errors(summary_with(shrunk), "s.json").empty());
  // A summary written before rule ids: its rule is prose, and nothing else of the rule is there.
  json older = failure();
  older["rule"] = "queued from offset #, but the next free offset is #";
  EXPECT_TRUE(summary_schema_errors(summary_with(older), "s.json").empty());
  CampaignOptions o;
  EXPECT_TRUE(journal_schema_errors(campaign_manifest(o, impl::Variant::none), "campaign.json").empty());
}

// The merge fuzzer's first finding: a failure with a file but no replay
// aborted the triage printer, which reads the replay of a shrunk failure.
TEST(CampaignSchemas, AFailureWithAFileNeedsItsReplay) {
  json f = failure();
  f["file"] = "f.json";
  const auto read = read_summary_text(summary_with(f).dump(), "s.json");
  const LoadError* e = std::get_if<LoadError>(&read);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->path, "/failures/0");
  EXPECT_NE(e->reason.find("replay"), std::string::npos) << e->reason;
}

TEST(CampaignSchemas, EveryFieldTheTriageReadsIsTyped) {
  for (const auto& [key, value] : std::vector<std::pair<std::string, json>>{
           {"properties", json::array({1})}, {"step_kind", 7}, {"rule", false}, {"check", json::object()},
           {"explanation", 1}, {"event", -1}, {"expected", json::array()}, {"actual", nullptr}, {"fiel", "x"}}) {
    json f = failure();
    f[key] = value;
    const auto read = read_summary_text(summary_with(f).dump(), "s.json");
    const LoadError* e = std::get_if<LoadError>(&read);
    ASSERT_NE(e, nullptr) << key;
    EXPECT_EQ(e->path.rfind("/failures/0", 0), 0u) << key << ": " << e->path;
  }
}

// The schema's count bound is coverage.h's kMaxSummaryCount.
TEST(CampaignSchemas, CountsStopAtTheSummaryBound) {
  json s = summary_with(failure());
  s["pushes"] = kMaxSummaryCount;
  EXPECT_TRUE(summary_schema_errors(s, "s.json").empty());
  s["pushes"] = kMaxSummaryCount + 1;
  ASSERT_EQ(summary_schema_errors(s, "s.json").size(), 1u);
  EXPECT_EQ(summary_schema_errors(s, "s.json")[0].path, "/pushes");
}

TEST(CampaignSchemas, AManifestWithAWrongTypeNamesTheField) {
  CampaignOptions o;
  json m = campaign_manifest(o, impl::Variant::none);
  m["max_shrinks"] = "3";
  const std::vector<LoadError> errors = journal_schema_errors(m, "campaign.json");
  ASSERT_FALSE(errors.empty());
  EXPECT_EQ(errors[0].path, "/max_shrinks");
}

}  // namespace
}  // namespace qdt::sim
