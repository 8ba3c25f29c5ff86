#include "sim/scenario/run_expectations.h"

#include <algorithm>
#include <cassert>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace qdt::sim {
namespace {

using json = nlohmann::json;

using properties::Rule;

// A step's answer differs from its expect entry (expectation/response).
RunFailure failure(const std::string& step, const std::string& detail, std::string expected = "",
                   std::string actual = "", Rule rule = Rule::expectation_response) {
  return {"expectation", std::nullopt, step, std::nullopt, detail, std::nullopt, rule, std::nullopt,
          std::move(expected), std::move(actual)};
}

// Each step's place in the script, depth first, for reporting in the order
// a reader meets the steps (the expect block itself is a JSON object).
void number_steps(const std::vector<Step>& steps, std::map<std::string, size_t>& place) {
  for (const Step& step : steps) {
    place.emplace(step.id, place.size());
    number_steps(step.children, place);
  }
}

// The expectations in script order; one naming no step of the script last.
std::vector<std::pair<const std::string*, const StepExpect*>> in_script_order(const Scenario& s) {
  std::map<std::string, size_t> place;
  number_steps(s.steps, place);
  std::vector<std::pair<const std::string*, const StepExpect*>> ordered;
  for (const auto& [id, x] : s.expect) ordered.emplace_back(&id, &x);
  std::stable_sort(ordered.begin(), ordered.end(), [&](const auto& a, const auto& b) {
    const auto pa = place.find(*a.first);
    const auto pb = place.find(*b.first);
    return (pa == place.end() ? place.size() : pa->second) < (pb == place.end() ? place.size() : pb->second);
  });
  return ordered;
}

}  // namespace

void check_expectations(const Scenario& s, const StepOutcomes& out, const history::History& h, World& world,
                        std::vector<RunFailure>& failures) {
  // Position of each push step's (last) response among all responses, for "new".
  std::map<std::string, size_t> position;
  for (size_t i = 0; i < h.requests.size(); ++i) position[h.requests[i].step] = i;
  // "step/index" of every item whose expectation failed: what names it fails with it.
  std::set<std::string> failed_items;

  // A push step's response as JSON, built only for a step an expectation names.
  std::map<std::string, json> push_json;
  auto answered = [&](const std::string& id) -> const json* {
    if (const auto r = out.responses.find(id); r != out.responses.end()) return &r->second;
    if (const auto p = out.pushes.find(id); p != out.pushes.end()) return &(push_json[id] = p->second.to_json());
    return nullptr;
  };
  for (const auto& [id_of, x_of] : in_script_order(s)) {
    const std::string& id = *id_of;
    const StepExpect& x = *x_of;
    const json* response = answered(id);
    if (response == nullptr) {
      failures.push_back(failure(id, "the step never answered", "an answer", "none", Rule::expectation_unanswered));
      continue;
    }
    if (x.ack_status) {
      const std::string got = (*response)["status"];
      if (got != *x.ack_status) {
        failures.push_back(failure(id, "expected " + *x.ack_status + ", got " + got, *x.ack_status, got));
      }
      continue;
    }
    if (x.count || x.transaction_ids) {
      const json& r = *response;
      if (r.contains("error")) {
        failures.push_back(failure(id, "the read failed in storage: " + r["error"].get<std::string>(), "a read",
                                   "error"));
        continue;
      }
      if (x.count && r["count"].get<int64_t>() != *x.count) {
        failures.push_back(failure(id, "expected " + std::to_string(*x.count) + " messages, read " + r["count"].dump(),
                                   std::to_string(*x.count) + " messages", r["count"].dump() + " messages"));
      }
      if (x.transaction_ids) {
        std::vector<std::string> got;
        for (const auto& m : r["messages"]) got.push_back(m["transactionId"]);
        if (got != *x.transaction_ids) {
          failures.push_back(failure(id, "expected transactionIds " + json(*x.transaction_ids).dump() + ", read " +
                                             json(got).dump(),
                                     json(*x.transaction_ids).dump(), json(got).dump()));
        }
      }
      continue;
    }
    const impl::PushResponse& push = out.pushes.at(id);
    if (x.rejected) {
      if (!push.rejected) {
        failures.push_back(failure(id, "expected the request to be rejected, it was accepted", "rejected", "accepted"));
      }
      continue;
    }
    if (push.rejected) {
      failures.push_back(failure(id, "the request was rejected: " + push.error, "accepted", "rejected"));
      continue;
    }
    assert(x.items);
    if (push.items.size() != x.items->size()) {
      failures.push_back(failure(id, "expected " + std::to_string(x.items->size()) + " items, got " +
                                         std::to_string(push.items.size()),
                                 std::to_string(x.items->size()) + " items",
                                 std::to_string(push.items.size()) + " items"));
      continue;
    }
    for (size_t i = 0; i < push.items.size(); ++i) {
      const impl::ItemResponse& got = push.items[i];
      const ItemExpect& want = (*x.items)[i];
      const std::string where = id + "/" + std::to_string(i);
      if (impl::status_name(got.status) != want.status) {
        // Its id follows from its status: one line says both.
        failures.push_back(failure(id, "item " + where + ": expected " + want.status + ", got " +
                                           impl::status_name(got.status) + " (id " + got.message_id + ")",
                                   want.status, std::string(impl::status_name(got.status))));
        failed_items.insert(where);
        continue;
      }
      if (!want.message_id) continue;
      const std::string& ref = *want.message_id;
      std::string expected;
      if (ref == "zero") {
        expected = impl::kZeroUuidText;
      } else if (ref == "new") {
        std::set<std::string> before;
        const size_t upto = position.count(id) ? position[id] : h.requests.size();
        for (size_t r = 0; r < upto; ++r) {
          for (const auto& item : h.requests[r].responses) before.insert(item.message_id);
        }
        for (size_t k = 0; k < i; ++k) before.insert(push.items[k].message_id);
        if (before.count(got.message_id) || got.message_id == impl::kZeroUuidText) {
          failures.push_back(failure(id, "item " + where + ": expected a new id, got " + got.message_id +
                                             ", which was answered before",
                                     "a new id", got.message_id));
        }
        continue;
      } else if (ref[0] == '@') {
        const auto slash = ref.find('/');
        const std::string step = ref.substr(1, slash - 1);
        const size_t index = std::stoul(ref.substr(slash + 1));
        const auto other = out.pushes.find(step);
        if (other == out.pushes.end() || index >= other->second.items.size()) {
          failures.push_back(failure(id, "item " + where + ": " + ref + " names no answered item"));
          continue;
        }
        expected = other->second.items[index].message_id;
        if (failed_items.count(step + "/" + std::to_string(index)) && got.message_id != expected) {
          // A knock-on: the item it names answered otherwise than expected.
          failures.push_back(failure(id, "item " + where + ": its id is not " + ref + "'s, which failed above"));
          failed_items.insert(where);
          continue;
        }
      } else {
        expected = ref;
      }
      if (got.message_id != expected) {
        failures.push_back(failure(id, "item " + where + ": expected message_id " + expected + " (" + ref +
                                           "), got " + got.message_id,
                                   expected, got.message_id));
        failed_items.insert(where);
      }
    }
  }
  for (const auto& [key, n] : s.expect_stored) {
    const int64_t got = world.storage().stored_messages(key.first, key.second);
    if (got != n) {
      failures.push_back(failure("stored",
                                 key.first + "/" + key.second + ": expected " + std::to_string(n) +
                                     " stored messages, found " + std::to_string(got) +
                                     (failed_items.empty() ? "" : " (items above failed too)"),
                                 std::to_string(n) + " stored", std::to_string(got) + " stored",
                                 Rule::expectation_stored));
    }
  }
}

}  // namespace qdt::sim
