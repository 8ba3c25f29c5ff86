#include "reports/study_statement.h"

#include <sstream>

#include "reports/html_page.h"

namespace qdt::reports {
namespace {

using json = nlohmann::json;

constexpr const char* kStated =
    "As the study file states them, from its results at the commit its report recorded; the tables below are "
    "this run's numbers.";

std::string question_of(const json& doc) { return doc.value("question", std::string()); }

json conclusions_of(const json& doc) {
  const auto it = doc.find("conclusions");
  return it != doc.end() && it->is_array() ? *it : json::array();
}

}  // namespace

std::string study_statement_html(const json& doc) {
  const std::string question = question_of(doc);
  const json conclusions = conclusions_of(doc);
  if (question.empty() && conclusions.empty()) return "";
  std::ostringstream out;
  if (!question.empty()) out << "<h2>Question</h2>\n<p class=\"question\">" << html_escape(question) << "</p>\n";
  if (!conclusions.empty()) {
    out << "<h2>Conclusions</h2>\n<p class=\"note\">" << html_escape(kStated) << "</p>\n<ul class=\"conclusions\">\n";
    for (const json& c : conclusions) out << "<li>" << html_escape(c.is_string() ? c.get<std::string>() : c.dump()) << "</li>\n";
    out << "</ul>\n";
  }
  return out.str();
}

std::string study_statement_markdown(const json& doc) {
  const std::string question = question_of(doc);
  const json conclusions = conclusions_of(doc);
  std::ostringstream out;
  if (!question.empty()) out << "**Question.** " << md_escape(question) << "\n\n";
  if (!conclusions.empty()) {
    out << "**Conclusions.** " << kStated << "\n\n";
    for (const json& c : conclusions) out << "- " << md_escape(c.is_string() ? c.get<std::string>() : c.dump()) << "\n";
    out << "\n";
  }
  return out.str();
}

}  // namespace qdt::reports
