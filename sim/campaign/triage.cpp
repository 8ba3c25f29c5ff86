#include "sim/campaign/triage.h"

#include <algorithm>
#include <map>
#include <utility>
#include <vector>

#include "reports/display_text.h"
#include "sim/base/shell_word.h"

namespace qdt::sim {

using json = nlohmann::json;
using reports::terminal_text;

std::string failure_cause(const json& f) {
  const std::string property = f["property"].get<std::string>();
  const std::string kind = f.value("step_kind", "");
  const std::string rule = f.value("rule", "");
  // A rule id starts with the property that broke it ("expectation/…", "generator/…" for those).
  if (rule.rfind(property + "/", 0) == 0) return kind.empty() ? rule : rule + " · " + kind;
  std::string cause = property;
  if (!kind.empty()) cause += " · " + kind;
  if (!rule.empty()) cause += " · " + rule;
  return cause;
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

// Failures grouped by cause, most seeds first, each with one replay (a
// shrunk file where there is one, else the command that shrinks one), then
// every failing seed nobody shrank with the command that shrinks it.
void print_triage(std::ostream& out, const json& failures, int max_shrinks) {
  if (failures.empty()) return;
  std::map<std::string, std::vector<const json*>> groups;
  std::map<std::string, uint64_t> caught_by;  // a seed counts under every property that failed it
  for (const json& f : failures) {
    groups[failure_cause(f)].push_back(&f);
    for (const json& name : f.value("properties", json::array({f["property"]}))) caught_by[name.get<std::string>()]++;
  }
  out << "  failing seeds by property that caught them:";
  for (const auto& [property, seeds] : caught_by) out << " " << terminal_text(property) << " " << seeds << ";";
  out << "\n";
  std::vector<std::pair<std::string, std::vector<const json*>>> causes(groups.begin(), groups.end());
  std::stable_sort(causes.begin(), causes.end(),
                   [](const auto& x, const auto& y) { return x.second.size() > y.second.size(); });
  constexpr size_t kCausesListed = 8;
  out << "  " << causes.size() << " cause" << (causes.size() == 1 ? "" : "s")
      << " (rule broken · step), most seeds first:\n";
  for (size_t i = 0; i < std::min(causes.size(), kCausesListed); ++i) {
    const auto& [cause, members] = causes[i];
    out << "    " << members.size() << " × " << terminal_text(cause) << "\n";
    if (members.front()->contains("explanation")) {
      out << "      " << terminal_text((*members.front())["explanation"].get<std::string>()) << "\n";
    }
    const auto explained = std::find_if(members.begin(), members.end(), [](const json* f) { return f->contains("why"); });
    if (explained != members.end()) out << "      likely cause: " << terminal_text((**explained)["why"].get<std::string>()) << "\n";
    const auto shrunk = std::find_if(members.begin(), members.end(), [](const json* f) { return f->contains("file"); });
    if (shrunk != members.end()) {
      out << command_below("      ", "replay one", terminal_text((**shrunk)["replay"].get<std::string>()));
    } else if (members.front()->contains("check")) {
      out << command_below("      ", "shrink one", terminal_text((*members.front())["check"].get<std::string>()));
    }
  }
  if (causes.size() > kCausesListed) out << "    and " << causes.size() - kCausesListed << " more causes\n";
  std::vector<const json*> unshrunk;
  for (const json& f : failures) {
    if (!f.contains("file")) unshrunk.push_back(&f);
  }
  if (unshrunk.empty()) return;
  out << "  " << unshrunk.size() << " failing seed" << (unshrunk.size() == 1 ? "" : "s")
      << " not shrunk (--max-shrinks " << max_shrinks << "); each shrinks with the command below it:\n";
  constexpr size_t kListed = 5;
  for (size_t i = 0; i < std::min(unshrunk.size(), kListed); ++i) {
    const json& f = *unshrunk[i];
    out << command_below("    ", terminal_text(f["profile"].get<std::string>()) + " seed " +
                                   std::to_string(f["seed"].get<uint64_t>()) + " (" +
                                   terminal_text(f["property"].get<std::string>()) + ")",
                         terminal_text(f["check"].get<std::string>()));
  }
  if (unshrunk.size() > kListed) {
    out << "    and " << unshrunk.size() - kListed << " more (each with its command as \"check\" in --json)\n";
  }
}

}  // namespace qdt::sim
