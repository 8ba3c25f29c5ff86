#include "reports/summary.h"

#include "reports/display_text.h"
#include "reports/failure_text.h"
#include "reports/html_page.h"

#include <algorithm>
#include <sstream>

namespace qdt::reports {
namespace {

using json = nlohmann::json;

struct Column {
  const char* title;
  std::string (*cell)(const json&);
};

std::string metric(const json& r, const char* name) {
  const auto& m = r.value("metrics", json::object());
  return m.contains(name) ? m[name].dump() : "-";
}

const std::vector<Column>& columns() {
  static const std::vector<Column> cols = {
      {"scenario", [](const json& r) { return r.value("scenario", std::string("?")); }},
      {"result", [](const json& r) { return std::string(r.value("passed", false) ? "PASS" : "FAIL"); }},
      {"requests", [](const json& r) { return metric(r, "requests"); }},
      {"items", [](const json& r) { return metric(r, "items"); }},
      {"queued", [](const json& r) { return metric(r, "queued"); }},
      {"duplicate", [](const json& r) { return metric(r, "duplicates"); }},
      {"zero-id", [](const json& r) { return metric(r, "zero_id_duplicates"); }},
      {"probes", [](const json& r) { return metric(r, "probes_run"); }},
      {"virtual s", [](const json& r) {
         const auto& m = r.value("metrics", json::object());
         std::ostringstream out;
         out.setf(std::ios::fixed);
         out.precision(3);
         out << m.value("virtual_duration_ms", 0) / 1000.0;
         return out.str();
       }},
      {"trace", [](const json& r) { return r.value("trace_hash", std::string()).substr(0, 12); }},
  };
  return cols;
}

size_t passed_count(const std::vector<json>& results) {
  return static_cast<size_t>(
      std::count_if(results.begin(), results.end(), [](const json& r) { return r.value("passed", false); }));
}

}  // namespace

std::string summary_table(const std::vector<json>& results) {
  const auto& cols = columns();
  std::vector<size_t> width(cols.size());
  std::vector<std::vector<std::string>> rows;
  for (size_t c = 0; c < cols.size(); ++c) width[c] = std::string(cols[c].title).size();
  for (const json& r : results) {
    std::vector<std::string> row;
    for (size_t c = 0; c < cols.size(); ++c) {
      row.push_back(terminal_text(cols[c].cell(r)));  // a scenario's name, for a terminal
      width[c] = std::max(width[c], row.back().size());
    }
    rows.push_back(std::move(row));
  }
  std::ostringstream out;
  auto line = [&](const std::vector<std::string>& cells) {
    for (size_t c = 0; c < cells.size(); ++c) {
      out << cells[c] << std::string(width[c] - cells[c].size() + (c + 1 < cells.size() ? 2 : 0), ' ');
    }
    out << '\n';
  };
  std::vector<std::string> header;
  for (const auto& col : cols) header.push_back(col.title);
  line(header);
  for (const auto& row : rows) line(row);
  out << passed_count(results) << " passed, " << results.size() - passed_count(results) << " failed\n";
  return out.str();
}

std::string summary_markdown(const std::string& title, const std::vector<json>& results) {
  std::ostringstream out;
  const size_t passed = passed_count(results);
  out << "# " << title << "\n\n";
  out << "**" << passed << " of " << results.size() << " scenarios passed.**\n\n";
  const auto& cols = columns();
  out << "|";
  for (const auto& c : cols) out << " " << c.title << " |";
  out << "\n|";
  for (size_t i = 0; i < cols.size(); ++i) out << "---|";
  out << "\n";
  for (const json& r : results) {
    out << "|";
    for (const auto& c : cols) out << " " << md_escape(c.cell(r)) << " |";
    out << "\n";
  }
  bool any = false;
  for (const json& r : results) {
    if (r.value("passed", false)) continue;
    if (!any) out << "\n## Failures\n";
    any = true;
    out << "\n### " << md_escape(r.value("scenario", std::string("?"))) << "\n\n";
    // The run's own command carries its flags (--variant, --storage) and a quoted path.
    out << "Replay: " << md_code(r.value("replay", "qdt replay " + r.value("file", std::string("?")))) << "\n\n";
    for (const json& f : r.value("failures", json::array())) {
      out << "- **" << md_escape(f.value("property", json()).is_string() ? f["property"].get<std::string>() : "expectation")
          << "** at step " << md_code(f.value("step", std::string())) << ": " << md_escape(f.value("detail", std::string()))
          << "\n";
      if (const std::string rule = failure_rule_md(f); !rule.empty()) out << "  " << rule << "\n";
    }
  }
  return out.str();
}

}  // namespace qdt::reports
