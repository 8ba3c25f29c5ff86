#include "reports/coverage_section.h"

#include <sstream>
#include <vector>

#include "reports/html_page.h"

namespace qdt::reports {

using json = nlohmann::json;

std::string coverage_section(const json& summary) {
  if (!summary.contains("coverage_report") || !summary["coverage_report"].is_object()) return "";
  const json& report = summary["coverage_report"];
  std::vector<std::string> profiles;
  const json seeds_per_profile = report.value("profiles", json::object());  // items() must not outlive it
  for (const auto& [profile, seeds] : seeds_per_profile.items()) profiles.push_back(profile);
  std::ostringstream out;
  out << "<h2 id=\"coverage\">Reachability coverage</h2>\n<p>" << report.value("reached", 0) << " of "
      << report.value("points", 0)
      << " reachability points reached (<code>QDT_REACHED</code> in the code and states read from each run's "
         "history; the catalogue is <code>sim/scenario/reach_points.cpp</code>). A point never reached is a state this "
         "campaign never tested.";
  const json impossible = report.value("cannot_happen", json::array());
  if (!impossible.empty()) {
    out << " " << impossible.size() << " more cannot happen in this campaign (its engine, its cache), greyed below.";
  }
  out << "</p>\n";
  const json missing = summary.value("coverage_missing", json::array());
  if (!missing.empty()) {
    out << "<p class=\"fail\">Required by <code>--require-coverage</code> and never reached:";
    for (const json& name : missing) out << " <code>" << html_escape(name.get<std::string>()) << "</code>";
    out << "</p>\n";
  }
  std::vector<std::string> head = {"point", "means", "seeds"};
  for (const std::string& p : profiles) head.push_back(p);
  // Collapsed: the table is long and, unlike the failures above it, needs no action on a failing campaign.
  out << "<details>\n<summary>Every point, with the seeds that reached it per profile ("
      << report.value("points", 0) - report.value("reached", 0) << " never reached, shaded yellow)</summary>\n"
      << table_begin(head);
  const json rows = report.value("by_point", json::array());
  for (const json& row : rows) {
    const uint64_t seeds = row.value("seeds", uint64_t{0});
    const std::string why = row.value("cannot_happen", std::string());
    const char* shade = !why.empty() ? " class=\"impossible\"" : seeds == 0 ? " class=\"unreached\"" : "";
    out << "<tr" << shade << "><td><code>" << html_escape(row.value("name", std::string()))
        << "</code></td><td class=\"text\">" << html_escape(row.value("means", std::string()))
        << (why.empty() ? "" : " — cannot happen here: " + html_escape(why)) << "</td><td>" << seeds << "</td>";
    const json by_profile = row.value("by_profile", json::object());
    for (const std::string& p : profiles) out << "<td>" << by_profile.value(p, uint64_t{0}) << "</td>";
    out << "</tr>\n";
  }
  out << "<tr><th>seeds run</th><td></td><td></td>";
  for (const std::string& p : profiles) out << "<td>" << seeds_per_profile.value(p, uint64_t{0}) << "</td>";
  out << "</tr>\n" << table_end() << "</details>\n";
  return out.str();
}

}  // namespace qdt::reports
