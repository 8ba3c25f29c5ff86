#include "reports/html_page.h"

#include <algorithm>
#include <cctype>
#include <string_view>

#include "reports/display_text.h"

namespace qdt::reports {

std::string html_escape(const std::string& text) {
  const std::string shown = neutral_text(text, true);
  std::string out;
  out.reserve(shown.size());
  for (char c : shown) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string md_escape(const std::string& text) {
  const std::string shown = neutral_text(text, false);
  std::string out;
  out.reserve(shown.size() + shown.size() / 4);
  // What opens a block where the text starts a line (a list item's or a
  // heading's text, a paragraph): "- ", "+ ", "= ", "> ", "1. ", "1) ".
  size_t digits = 0;
  while (digits < shown.size() && shown[digits] >= '0' && shown[digits] <= '9') ++digits;
  for (size_t i = 0; i < shown.size(); ++i) {
    const char c = shown[i];
    const bool opens_block = (i == 0 && (c == '-' || c == '+' || c == '=' || c == '>')) ||
                             (i == digits && digits > 0 && (c == '.' || c == ')') && (i + 1 == shown.size() || shown[i + 1] == ' '));
    const auto alnum = [&](size_t k) { return k < shown.size() && std::isalnum(static_cast<unsigned char>(shown[k])); };
    if (c == '<') {
      out += "&lt;";
    } else if (c == '_' && i > 0 && alnum(i - 1) && alnum(i + 1)) {
      out += c;  // inside a word, as in budget_bytes: CommonMark opens no emphasis there
    } else if (opens_block || std::string_view("\\`*_[]#|~&").find(c) != std::string_view::npos) {
      // CommonMark takes a backslash before any ASCII punctuation as the character itself.
      (out += '\\') += c;
    } else {
      out += c;
    }
  }
  return out;
}

std::string md_code(const std::string& text) {
  const std::string flat = neutral_text(text, false);
  size_t longest = 0, run = 0;
  for (const char c : flat) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  const std::string fence(longest + 1, '`');
  const std::string pad = longest > 0 ? " " : "";  // a space each side keeps an edge backtick inside
  return fence + pad + flat + pad + fence;
}

std::string page_begin(const std::string& title) {
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
         "<title>" + html_escape(title) + "</title>\n<style>\n"
         "body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;padding:1rem 1.5rem;"
         "color:#1a1a1a;background:#fff;line-height:1.45}\n"
         // Wide enough that a 1280 px screen gives its width to the tables, not to margins.
         "main{max-width:1600px;margin:0 auto}\n"
         "h1{font-size:1.5rem}h2{font-size:1.2rem;margin-top:2rem;border-bottom:1px solid #ddd}h3{font-size:1.05rem}h4{font-size:1rem}h5{font-size:.95rem;margin-bottom:.3rem}\n"
         "dl{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem}dt{font-weight:600}dd{margin:0;"
         "overflow-wrap:anywhere}\n"
         "code{font-size:.9em;background:#f4f4f4;padding:0 .2em;overflow-wrap:anywhere}\n"
         ".scroll{overflow-x:auto}\n"
         "table{border-collapse:collapse;font-size:.9rem;font-variant-numeric:tabular-nums}\n"
         "th,td{border:1px solid #ccc;padding:.25rem .5rem;text-align:right;white-space:nowrap}"
         "th{background:#f4f4f4;white-space:normal}\n"
         "td.left{text-align:left}\n"
         "td.text{text-align:left;white-space:normal;min-width:8rem;overflow-wrap:anywhere}\n"
         // Ids and file names wrap at their hyphens, so one long name cannot push the table past the screen.
         "td.id{text-align:left;white-space:normal;overflow-wrap:break-word}\n"
         // A chart is drawn 640 px wide with 14 px text: never shown below 560 px nor above 800 px, its text
         // stays between 12 and 18 px. A screen narrower than 560 px scrolls the chart sideways, as a table.
         ".charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,560px),1fr));gap:1rem}\n"
         "figure{margin:0;min-width:0;overflow-x:auto}"
         "figure svg{width:100%;min-width:560px;max-width:800px;height:auto;display:block;margin:0 auto}"
         "figcaption{font-size:.85rem;color:#444}\n"
         ".note{background:#fff4d6;border:1px solid #e0c060;padding:.5rem}\n"
         ".fail{color:#a00000;font-weight:600}.pass{color:#006000;font-weight:600}\n"
         // Offending rows of a failing run, and (lighter) the rest of its partition.
         "tr.hl td{background:#ffd9d9;border-color:#d08080}tr.hl td:first-child{box-shadow:inset 4px 0 #c00000}\n"
         "tr.part td{background:#fff1f1}\n"
         "tr.fault td{background:#f1f1ff}\n"
         // Not red: a coverage point never reached is a gap in the search, not a broken property.
         "tr.unreached td{background:#fff4d6}\n"
         "tr.impossible td{color:#777}\n"
         "details>summary{cursor:pointer;margin:.5rem 0}\n"
         "ul.failures li{margin-bottom:.4rem}\n"
         "@media (max-width:600px){body{padding:.5rem}th,td{padding:.2rem .3rem;font-size:.8rem}"
         "dl{grid-template-columns:1fr}dt{margin-top:.3rem}}\n"
         "</style>\n</head>\n<body>\n<main>\n";
}

std::string table_begin(const std::vector<std::string>& headers) {
  std::string out = "<div class=\"scroll\"><table>\n<thead><tr>";
  for (const std::string& h : headers) out += "<th>" + html_escape(h) + "</th>";
  return out + "</tr></thead>\n<tbody>\n";
}

std::string table_end() { return "</tbody>\n</table></div>\n"; }

std::string page_end() { return "</main>\n</body>\n</html>\n"; }

}  // namespace qdt::reports
