#include "reports/failure_text.h"

#include "reports/html_page.h"

namespace qdt::reports {
namespace {

using json = nlohmann::json;

std::string field(const json& f, const char* key) {
  const auto it = f.find(key);
  return it != f.end() && it->is_string() ? it->get<std::string>() : std::string();
}

bool names_rule(const json& f) { return f.is_object() && !field(f, "explanation").empty(); }

}  // namespace

std::string failure_rule_html(const json& f) {
  if (!names_rule(f)) return "";
  std::string out = "<code>" + html_escape(field(f, "rule")) + "</code> " + html_escape(field(f, "explanation"));
  const std::string expected = field(f, "expected");
  const std::string actual = field(f, "actual");
  if (!expected.empty() || !actual.empty()) {
    out += "<br>expected <strong>" + html_escape(expected) + "</strong>, got <strong>" + html_escape(actual) +
           "</strong>";
  }
  return out;
}

std::string failure_rule_md(const json& f) {
  if (!names_rule(f)) return "";
  std::string out = "rule " + md_code(field(f, "rule")) + ": " + md_escape(field(f, "explanation"));
  const std::string expected = field(f, "expected");
  const std::string actual = field(f, "actual");
  if (!expected.empty() || !actual.empty()) out += " Expected " + md_code(expected) + ", got " + md_code(actual) + ".";
  return out;
}

}  // namespace qdt::reports
