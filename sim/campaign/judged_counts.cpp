#include "sim/campaign/judged_counts.h"

#include <cstdint>
#include <utility>

#include "properties/evidence.h"

namespace qdt::sim {
namespace {

using json = nlohmann::json;

struct Kind {
  std::string events;
  int64_t of = 0;
  int64_t judged = 0;
  std::vector<std::string> properties;
};

// The properties grouped by the kind of event they read, in property order.
std::vector<Kind> kinds_of(const json& totals) {
  std::vector<Kind> kinds;
  for (const properties::Evidence& e : properties::evidence_of(history::History{})) {
    const int64_t of = totals.value("evidence." + e.property + ".of", int64_t{0});
    const int64_t judged = totals.value("evidence." + e.property + ".judged", int64_t{0});
    Kind* kind = nullptr;
    for (Kind& k : kinds) kind = k.events == e.events ? &k : kind;
    if (kind == nullptr) kind = &kinds.emplace_back(Kind{e.events, of, judged, {}});
    kind->properties.push_back(e.property);
  }
  return kinds;
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) out += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  return out;
}

}  // namespace

std::vector<std::string> hollow_properties(const json& totals) {
  std::vector<std::string> out;
  for (const Kind& k : kinds_of(totals)) {
    if (k.of == 0 || k.judged > 0) continue;
    out.push_back("judged 0 of " + std::to_string(k.of) + " " + k.events + ": every one failed, so " +
                  joined(k.properties) + " judged nothing");
  }
  return out;
}

json judged_counts(const json& totals) {
  json out = json::object();
  for (const properties::Evidence& e : properties::evidence_of(history::History{})) {
    out[e.property] = {{"of", totals.value("evidence." + e.property + ".of", int64_t{0})},
                       {"judged", totals.value("evidence." + e.property + ".judged", int64_t{0})}};
  }
  return out;
}

std::string unjudged_text(const json& totals) {
  std::string out;
  for (const Kind& k : kinds_of(totals)) {
    if (k.judged == k.of) continue;
    out += (out.empty() ? "" : ", ") + std::to_string(k.of - k.judged) + " of " + std::to_string(k.of) + " " + k.events;
  }
  return out;
}

std::string idle_properties_text(const json& totals) {
  std::string out;
  for (const Kind& k : kinds_of(totals)) {
    if (k.of != 0) continue;
    out += (out.empty() ? "" : "; ") + ("no " + k.events + ", so " + joined(k.properties) + " judged nothing");
  }
  return out;
}

}  // namespace qdt::sim
