#include "sim/campaign/shrink.h"

#include <functional>
#include <vector>

#include "sim/campaign/campaign.h"

namespace qdt::sim {
namespace {

using json = nlohmann::json;

bool fails_with(const std::optional<RunResult>& result, const std::string& signature) {
  if (!result || result->passed) return false;
  for (const RunFailure& f : result->failures) {
    if (f.signature() == signature) return true;
  }
  return false;
}

// Longer lists (a volume seed's steps, its large request's items) are halved
// before their members are tried one by one; generated seeds stay below it.
constexpr size_t kOneByOneMax = 48;

// Every one-change-smaller variant of `doc`, most reducing first.
std::vector<json> candidates(const json& doc) {
  std::vector<json> out;
  const json& steps = doc["steps"];
  // A volume seed's script (workload_volume.h) loses halves first: one at a
  // time it would take a replay per step and a copy of the script per item.
  if (steps.size() > kOneByOneMax) {
    for (const bool front : {false, true}) {
      json c = doc;
      json& list = c["steps"];
      const auto half = list.begin() + static_cast<std::ptrdiff_t>(list.size() / 2);
      front ? list.erase(list.begin(), half) : list.erase(half, list.end());
      out.push_back(std::move(c));
    }
  }
  // Remove one top-level step (from the end: later steps depend on earlier ones less often).
  for (size_t i = steps.size(); i-- > 0;) {
    json c = doc;
    c["steps"].erase(i);
    out.push_back(std::move(c));
  }
  for (size_t i = 0; i < steps.size(); ++i) {
    const json& s = steps[i];
    if (s.contains("steps")) {
      // Remove one child; or splice the children in sequentially.
      for (size_t j = s["steps"].size(); j-- > 0;) {
        json c = doc;
        c["steps"][i]["steps"].erase(j);
        out.push_back(std::move(c));
      }
      json c = doc;
      json spliced = json::array();
      for (size_t k = 0; k < steps.size(); ++k) {
        if (k == i) {
          for (const json& child : s["steps"]) spliced.push_back(child);
        } else {
          spliced.push_back(steps[k]);
        }
      }
      c["steps"] = spliced;
      out.push_back(std::move(c));
    }
  }
  // Simplify pushes and waits, top level and children (addressed by JSON pointer).
  std::function<void(const json&, const std::string&)> visit = [&](const json& list, const std::string& base) {
    for (size_t i = 0; i < list.size(); ++i) {
      const json& s = list[i];
      const json::json_pointer at(base + "/" + std::to_string(i));
      if (s.value("op", "") == "push" && s.contains("items") && s["items"].is_array()) {
        if (s["items"].size() > kOneByOneMax) {
          for (const bool front : {false, true}) {
            json c = doc;
            json& items = c[at]["items"];
            const auto half = items.begin() + static_cast<std::ptrdiff_t>(items.size() / 2);
            front ? items.erase(items.begin(), half) : items.erase(half, items.end());
            out.push_back(std::move(c));
          }
        }
        for (size_t k = s["items"].size(); k-- > 0 && s["items"].size() > 1 && s["items"].size() <= kOneByOneMax;) {
          json c = doc;
          c[at]["items"].erase(k);
          out.push_back(std::move(c));
        }
        if (s.contains("retry")) {
          json c = doc;
          c[at].erase("retry");
          out.push_back(std::move(c));
        }
        if (s.value("broker", 0) != 0) {
          json c = doc;
          c[at]["broker"] = 0;
          out.push_back(std::move(c));
        }
      }
      if (s.value("op", "") == "advance") {
        const int64_t ms = s.contains("ms") ? static_cast<int64_t>(s["ms"].get<double>())
                                            : static_cast<int64_t>(s["seconds"].get<double>() * 1000);
        if (ms > 0) {
          json c = doc;
          c[at].erase("seconds");
          c[at]["ms"] = ms / 2;
          out.push_back(std::move(c));
        }
      }
      if (s.contains("steps")) visit(s["steps"], base + "/" + std::to_string(i) + "/steps");
    }
  };
  visit(steps, "/steps");
  // Remove faults from the world.
  if (doc.contains("world")) {
    const json& w = doc["world"];
    if (w.contains("network")) {
      for (const char* fault : {"loss_request", "loss_response", "duplicate"}) {
        if (w["network"].contains(fault)) {
          json c = doc;
          c["world"]["network"].erase(fault);
          out.push_back(std::move(c));
        }
      }
    }
    if (w.value("brokers", 1) > 1) {
      json c = doc;
      c["world"]["brokers"] = 1;
      out.push_back(std::move(c));
    }
  }
  return out;
}

}  // namespace

Shrunk shrink(const json& scenario, impl::Variant variant, const std::string& signature, int max_runs,
              StorageEngineKind engine) {
  Shrunk best;
  best.scenario = scenario;
  best.scenario.erase("expect");
  best.result = run_document(best.scenario, variant, true, true, true, engine);
  best.runs = 1;
  bool progress = true;
  while (progress && best.runs < max_runs) {
    progress = false;
    for (json& candidate : candidates(best.scenario)) {
      if (best.runs >= max_runs) break;
      std::optional<RunResult> result = run_document(candidate, variant, true, true, true, engine);
      ++best.runs;
      if (fails_with(result, signature)) {
        best.scenario = std::move(candidate);
        best.result = std::move(result);
        progress = true;
        break;
      }
    }
  }
  return best;
}

}  // namespace qdt::sim
