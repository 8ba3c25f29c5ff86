// The escapers on the class of hostile strings a name from an input file can
// be: Markdown's own syntax (a pipe ends a table cell, a fence or a "# " after
// a newline opens a block, brackets make a link, stars and underscores
// emphasis), raw HTML, C0 and C1 controls (an ANSI escape recolours a
// terminal), bidirectional controls (U+202E spells a name backwards) and
// the line and paragraph separators. Each must reach a Markdown report as
// text, leaving the report's structure as a plain name leaves it, and reach
// no page, report or terminal raw.
#include "reports/display_text.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "reports/html_page.h"
#include "reports/study_statement.h"
#include "reports/summary.h"

namespace qdt::reports {
namespace {

const std::vector<std::string>& hostile_strings() {
  static const std::vector<std::string> strings = {
      "|", "a|b", "```", "`", "``x``", "\n# heading", "# heading", "<script>alert(1)</script>",
      "<img src=x onerror=alert(1)>", "<!-- x -->", "[link](javascript:x)", "![img](x)", "*", "**bold**", "_",
      "__x__", "\\", "\\|", "~~strike~~", "&amp;", "&#x202E;", "- item", "+ item", "1. item", "1) item",
      "> quote", "===", "\r\n- item", "evil\u202Etxt.json", "\u202A\u202B\u202C\u202D", "\u2066x\u2067y\u2068z\u2069",
      "\u200Ex\u200F", "\u061Cx", "a\u2028b\u2029c", "\x1b[31mred\x1b[0m", "\x07" "bell\x7f", "\xc2\x9b" "2J",
      "not utf-8 \xff\xfe", "\t\ttab"};
  return strings;
}

// Where a byte sequence a reader must not receive raw starts in `text`, or npos.
// Line breaks are allowed where `line_breaks`.
size_t raw_hidden_at(std::string_view text, bool line_breaks) {
  for (size_t i = 0; i < text.size(); ++i) {
    const auto b = static_cast<unsigned char>(text[i]);
    if ((b < 0x20 && !(line_breaks && (b == '\n' || b == '\t' || b == '\r'))) || b == 0x7f) return i;
    const auto next = [&](size_t k) { return i + k < text.size() ? static_cast<unsigned char>(text[i + k]) : 0; };
    if (b == 0xc2 && next(1) >= 0x80 && next(1) <= 0x9f) return i;        // C1
    if (b == 0xd8 && next(1) == 0x9c) return i;                           // U+061C
    if (b == 0xe2 && next(1) == 0x80 && (next(2) == 0x8e || next(2) == 0x8f || (next(2) >= 0xa8 && next(2) <= 0xae))) {
      return i;  // U+200E, U+200F, U+2028..U+202E
    }
    if (b == 0xe2 && next(1) == 0x81 && next(2) >= 0xa6 && next(2) <= 0xa9) return i;  // U+2066..U+2069
    if (b == 0xff || b == 0xfe) return i;
  }
  return std::string_view::npos;
}

// The Markdown structure of `md`, line by line: each character that means
// something where it stands (not after a backslash, outside code spans,
// "&lt;" being ours), and whether the text after a list marker or heading
// marker opens a block of its own. A name that renders as text leaves this
// as a plain name does.
std::vector<std::string> skeleton(const std::string& md) {
  std::vector<std::string> out;
  std::istringstream in(md);
  for (std::string line; std::getline(in, line);) {
    std::string marks;
    size_t body = 0;  // after "- " or "### "
    if (line.rfind("- ", 0) == 0) body = 2;
    if (!line.empty() && line[0] == '#') body = line.find(' ') == std::string::npos ? line.size() : line.find(' ') + 1;
    if (body > 0 && body < line.size()) {
      size_t digits = body;
      while (digits < line.size() && std::isdigit(static_cast<unsigned char>(line[digits]))) ++digits;
      const char c = line[body];
      if (c == '-' || c == '+' || c == '=' || c == '>' || c == '#' || c == '*' ||
          (digits > body && digits < line.size() && (line[digits] == '.' || line[digits] == ')'))) {
        marks += "[opens a block]";
      }
    }
    for (size_t i = 0; i < line.size(); ++i) {
      const char c = line[i];
      if (c == '\\' && i + 1 < line.size()) {
        ++i;
        continue;
      }
      if (line.compare(i, 4, "&lt;") == 0) {
        i += 3;
        continue;
      }
      if (c == '`') {
        size_t n = 0;
        while (i + n < line.size() && line[i + n] == '`') ++n;
        for (size_t j = i + n; j < line.size();) {
          size_t m = 0;
          while (j + m < line.size() && line[j + m] == '`') ++m;
          if (m == n) {
            marks += "[code]";
            i = j + n - 1;
            break;
          }
          j += m > 0 ? m : 1;
        }
        if (marks.size() >= 6 && marks.compare(marks.size() - 6, 6, "[code]") == 0) continue;
      }
      if (std::string_view("|*_[]<#~&`").find(c) != std::string_view::npos) marks += c;
    }
    out.push_back(marks);
  }
  return out;
}

std::string replay_report(const std::string& name) {
  const std::vector<nlohmann::json> results = {
      {{"scenario", name}, {"passed", false}, {"file", "x.json"},
       {"failures", {{{"kind", "property"}, {"property", name}, {"step", name}, {"detail", name}}}}}};
  return summary_markdown("qdt replay", results);
}

std::string study_report(const std::string& name) {
  return study_statement_markdown({{"question", name}, {"conclusions", {name, "plain"}}});
}

TEST(DisplayText, EveryHostileStringReachesMarkdownAsText) {
  const std::vector<std::string> plain_replay = skeleton(replay_report("NAME"));
  const std::vector<std::string> plain_study = skeleton(study_report("NAME"));
  for (const std::string& h : hostile_strings()) {
    const std::string replay = replay_report(h), study = study_report(h);
    EXPECT_EQ(skeleton(replay), plain_replay) << "replay --report with " << nlohmann::json(h).dump() << ":\n" << replay;
    EXPECT_EQ(skeleton(study), plain_study) << "study statement with " << nlohmann::json(h).dump() << ":\n" << study;
    EXPECT_EQ(raw_hidden_at(replay, true), std::string_view::npos) << nlohmann::json(h).dump() << ": " << replay;
    EXPECT_EQ(raw_hidden_at(study, true), std::string_view::npos) << nlohmann::json(h).dump() << ": " << study;
    EXPECT_EQ(raw_hidden_at(md_escape(h), false), std::string_view::npos) << nlohmann::json(h).dump();
    EXPECT_EQ(raw_hidden_at(md_code(h), false), std::string_view::npos) << nlohmann::json(h).dump();
  }
}

TEST(DisplayText, NoHostileStringReachesAPageOrATerminalRaw) {
  for (const std::string& h : hostile_strings()) {
    const std::string page = html_escape(h), line = terminal_text(h);
    EXPECT_EQ(raw_hidden_at(page, true), std::string_view::npos) << nlohmann::json(h).dump() << ": " << page;
    EXPECT_EQ(page.find_first_of("<>\"'"), std::string::npos) << page;
    EXPECT_EQ(raw_hidden_at(line, false), std::string_view::npos) << nlohmann::json(h).dump() << ": " << line;
    EXPECT_EQ(line.find('\n'), std::string::npos);
    const std::vector<nlohmann::json> results = {{{"scenario", h}, {"passed", true}}};
    EXPECT_EQ(raw_hidden_at(summary_table(results), true), std::string_view::npos) << nlohmann::json(h).dump();
  }
}

// What is neutralised stays visible (U+FFFD), and what is not is kept whole.
TEST(DisplayText, NeutralisedCharactersShowAsTheReplacementCharacter) {
  EXPECT_EQ(terminal_text("evil\u202Etxt.json"), "evil\uFFFDtxt.json");
  EXPECT_EQ(terminal_text("\x1b[31m"), "\uFFFD[31m");
  EXPECT_EQ(terminal_text("a\nb\tc"), "a b c");
  EXPECT_EQ(neutral_text("a\nb\tc", true), "a\nb\tc");
  EXPECT_EQ(terminal_text("\xff" "a\xe2\x80"), "\uFFFD" "a\uFFFD\uFFFD");
  EXPECT_EQ(terminal_text("caf\u00e9 \u65e5\u672c \U0001F600 \u2014"), "caf\u00e9 \u65e5\u672c \U0001F600 \u2014");
  EXPECT_EQ(terminal_text("\xed\xa0\x80"), "\uFFFD\uFFFD\uFFFD");  // a surrogate is not UTF-8
  EXPECT_EQ(terminal_text("\xc0\xaf"), "\uFFFD\uFFFD");            // nor an overlong form
}

TEST(DisplayText, MarkdownEscapesWhatWouldOpenABlockOnlyWhereItWould) {
  EXPECT_EQ(md_escape("1. x"), "1\\. x");
  EXPECT_EQ(md_escape("- x"), "\\- x");
  EXPECT_EQ(md_escape("a-b 1.5"), "a-b 1.5");  // file names and numbers stay readable
  EXPECT_EQ(md_escape("64.0"), "64.0");
  EXPECT_EQ(md_escape("budget_bytes _x_"), "budget_bytes \\_x\\_");
  EXPECT_EQ(md_escape("[a](b)"), "\\[a\\](b)");
  EXPECT_EQ(md_escape("&amp;"), "\\&amp;");
}

}  // namespace
}  // namespace qdt::reports
