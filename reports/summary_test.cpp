#include "reports/summary.h"

#include <gtest/gtest.h>

#include "reports/html_page.h"

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

// A run's own command (its flags, its quoted path) is the report's replay line.
TEST(Summary, MarkdownReplaysWithTheRunsCommand) {
  const std::vector<nlohmann::json> results = {
      {{"scenario", "x"}, {"passed", false}, {"file", "my dir/x.json"},
       {"replay", "qdt replay 'my dir/x.json' --variant skip-probe --storage postgres"},
       {"failures", {{{"kind", "property"}, {"property", "offsets"}, {"step", "p"}, {"detail", "gap"}}}}}};
  const std::string md = summary_markdown("Replay", results);
  EXPECT_NE(md.find("Replay: `qdt replay 'my dir/x.json' --variant skip-probe --storage postgres`"), std::string::npos)
      << md;
}

// The rule and its explanation come from the failure's fields; a failure
// from before rule ids (a rule without an explanation) shows its detail only.
TEST(Summary, MarkdownNamesTheRuleAndItsExplanation) {
  const std::vector<nlohmann::json> results = {
      {{"scenario", "x"}, {"passed", false}, {"file", "x.json"},
       {"failures", {{{"kind", "property"}, {"property", "offsets"}, {"step", "p"}, {"detail", "gap"},
                      {"rule", "offsets/gap"}, {"explanation", "Offsets were *skipped*."},
                      {"expected", "queued from offset 2"}, {"actual", "queued from offset 3"}},
                     {{"kind", "property"}, {"property", "offsets"}, {"step", "q"}, {"detail", "old"},
                      {"rule", "queued from offset #"}}}}}};
  const std::string md = summary_markdown("Replay", results);
  EXPECT_NE(md.find("**offsets** at step `p`: gap\n  rule `offsets/gap`: Offsets were \\*skipped\\*. Expected "
                    "`queued from offset 2`, got `queued from offset 3`.\n"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("**offsets** at step `q`: old\n"), std::string::npos) << md;
  EXPECT_EQ(md.find("queued from offset #"), std::string::npos) << md;
}

// A name from a scenario file stays text in the Markdown report: one table
// row, no HTML tag, no code span it can close.
TEST(Summary, MarkdownKeepsHostileNamesAsText) {
  const std::string hostile = "x|y\n<script>alert(1)</script>`z`\\";
  const std::vector<nlohmann::json> results = {
      {{"scenario", hostile}, {"passed", false}, {"file", "f`.json"},
       {"failures", {{{"kind", "expectation"}, {"step", hostile}, {"detail", hostile}}}}}};
  const std::string md = summary_markdown("Replay", results);
  EXPECT_NE(md.find("### x\\|y &lt;script>"), std::string::npos) << md;
  // Only inside a code span, where Markdown shows it as it is.
  EXPECT_EQ(md.find("<script"), md.find("`` x|y <script") + 7) << md;
  EXPECT_NE(md.find("| x\\|y &lt;script>alert(1)&lt;/script>\\`z\\`\\\\ |"), std::string::npos) << md;
  EXPECT_NE(md.find("Replay: `` qdt replay f`.json ``"), std::string::npos) << md;
  EXPECT_NE(md.find("at step `` x|y <script>alert(1)</script>`z`\\ ``"), std::string::npos) << md;
  for (size_t at = md.find("\n|"); at != std::string::npos; at = md.find("\n|", at + 1)) {
    EXPECT_EQ(md[md.find('\n', at + 1) - 1], '|') << "a row ends where it began";
  }
}

TEST(Summary, CodeSpansAreFencedPastTheirBackticks) {
  EXPECT_EQ(md_code("p2"), "`p2`");
  EXPECT_EQ(md_code("a``b"), "``` a``b ```");
  EXPECT_EQ(md_code("`"), "`` ` ``");
  EXPECT_EQ(md_code("a\nb"), "`a b`");
}

}  // namespace
}  // namespace qdt::reports
