#include "reports/summary.h"

#include <gtest/gtest.h>

namespace qdt::reports {
namespace {

TEST(Summary, TableCountsPassesAndFailures) {
  const std::vector<nlohmann::json> results = {
      {{"scenario", "a"}, {"passed", true}, {"trace_hash", "0123456789abcdef"}, {"metrics", {{"requests", 2}}}},
      {{"scenario", "bb"}, {"passed", false}, {"file", "scenarios/bb.json"},
       {"failures", {{{"kind", "property"}, {"property", "offsets"}, {"step", "p2"}, {"detail", "gap"}}}}}};
  const std::string table = summary_table(results);
  EXPECT_NE(table.find("a "), std::string::npos);
  EXPECT_NE(table.find("FAIL"), std::string::npos);
  EXPECT_NE(table.find("1 passed, 1 failed"), std::string::npos);
  const std::string md = summary_markdown("Replay", results);
  EXPECT_NE(md.find("**1 of 2 scenarios passed.**"), std::string::npos);
  EXPECT_NE(md.find("**offsets** at step `p2`: gap"), std::string::npos);
  EXPECT_NE(md.find("qdt replay scenarios/bb.json"), std::string::npos);
}

}  // namespace
}  // namespace qdt::reports
