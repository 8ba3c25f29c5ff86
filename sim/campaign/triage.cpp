#include "sim/campaign/triage.h"

#include <regex>

namespace qdt::sim {

std::string failure_rule(const std::string& detail) {
  static const std::regex kUuid("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
  static const std::regex kQuoted("'[^']*'|\"[^\"]*\"");
  static const std::regex kGroup("\\s*(\\([^()]*\\)|\\[[^\\[\\]]*\\])");
  // A minus is a sign only where no word goes on through it ("layer-2" keeps its hyphen).
  static const std::regex kSignedNumber("(^|[^A-Za-z0-9_-])-[0-9]+(\\.[0-9]+)?");
  static const std::regex kNumber("[0-9]+(\\.[0-9]+)?");
  static const std::regex kEvent("^(event|events) #(, #)*:?\\s*");
  static const std::regex kSpaces("\\s+");
  std::string s = std::regex_replace(detail, kUuid, "…");
  s = std::regex_replace(s, kQuoted, "…");
  // Innermost groups first, until none is left (they nest: "(event 3 (now …))").
  for (std::string before; before != s;) {
    before = s;
    s = std::regex_replace(s, kGroup, "");
  }
  s = std::regex_replace(s, kSignedNumber, "$1#");
  s = std::regex_replace(s, kNumber, "#");
  s = std::regex_replace(s, kSpaces, " ");
  s = std::regex_replace(s, kEvent, "");
  while (!s.empty() && (s.back() == ' ' || s.back() == '.' || s.back() == ':')) s.pop_back();
  return s;
}

namespace {
const nlohmann::json* find_step(const nlohmann::json& steps, const std::string& id) {
  if (!steps.is_array()) return nullptr;
  for (const nlohmann::json& s : steps) {
    if (!s.is_object()) continue;
    if (s.contains("id") && s["id"] == id) return &s;
    if (!s.contains("steps")) continue;
    if (const nlohmann::json* inner = find_step(s["steps"], id)) return inner;
  }
  return nullptr;
}
}  // namespace

std::string failing_step_kind(const nlohmann::json& scenario, const std::string& step) {
  const nlohmann::json* found = nullptr;
  if (!step.empty() && step.front() == '/') {
    try {
      const nlohmann::json::json_pointer path(step);
      if (scenario.contains(path)) found = &scenario.at(path);
    } catch (const nlohmann::json::exception&) {
      return "";  // not a JSON path after all
    }
  } else if (!step.empty() && scenario.is_object() && scenario.contains("steps")) {
    found = find_step(scenario["steps"], step);
  }
  if (found == nullptr || !found->is_object() || !(*found).contains("op") || !(*found)["op"].is_string()) return "";
  return (*found)["op"].get<std::string>();
}

}  // namespace qdt::sim
