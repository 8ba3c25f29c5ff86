#include "sim/scenario/timeline_story.h"

#include <map>
#include <variant>

#include "sim/scenario/step_kinds.h"
#include "sim/scenario/timeline_text.h"
#include "sim/world/world_config.h"

namespace qdt::sim {
namespace {

using json = nlohmann::json;

int64_t since_start(int64_t storage_ms) { return storage_ms - kEpochUnixMs; }

// (partition, message id) -> offset, and request -> first offset its frames stored.
struct Offsets {
  std::map<std::pair<std::string, std::string>, int64_t> of_message;
  std::map<uint64_t, int64_t> of_request;
};

Offsets stored_offsets(const history::History& h) {
  Offsets out;
  for (const history::Event& event : h.events) {
    const auto* p = std::get_if<history::PushEvent>(&event);
    if (!p || p->failed || !p->queued) continue;
    for (size_t i = 0; i < p->frames.size(); ++i) {
      const int64_t offset = p->base_offset + static_cast<int64_t>(i);
      out.of_message[{p->queue + "/" + p->partition, p->frames[i].message_id}] = offset;
      out.of_request.emplace(p->frames[i].origin_request, offset);
    }
  }
  return out;
}

std::string attempt_name(const history::RequestRecord& r) { return "attempt " + std::to_string(r.attempt + 1); }

// The next delivery of the same push, if there is one.
const history::RequestRecord* next_attempt(const history::History& h, const history::RequestRecord& r) {
  for (const history::RequestRecord& n : h.requests) {
    if (n.push_id == r.push_id && n.step == r.step && n.attempt == r.attempt + 1 && n.delivered) return &n;
  }
  return nullptr;
}

void add_step_spans(const std::vector<Step>& steps, const RunOutcome& outcome, json& out) {
  for (const Step& s : steps) {
    add_step_spans(s.children, outcome, out);
    // advance is time passing and configure is drawn as the window; composites hold their children.
    const std::string op = op_name(s);
    if (!s.kind->fault || !s.children.empty() || op == "advance" || op == "configure") continue;
    const auto time = outcome.step_times.find(s.path);
    if (time == outcome.step_times.end()) continue;
    out.push_back({{"from_ms", time->second.started_ms},
                   {"to_ms", time->second.ended_ms},
                   {"label", op + ": " + s.kind->summary(s)},
                   {"step", s.id[0] == '#' ? s.path : s.id}});
  }
}

}  // namespace

json attempts_of(const history::History& h) {
  const Offsets offsets = stored_offsets(h);
  json out = json::array();
  for (const history::RequestRecord& r : h.requests) {
    if (!r.delivered || r.items.empty()) continue;
    const std::string partition = r.items[0].queue + "/" + r.items[0].partition;
    json offset;
    std::string outcome;
    if (r.lost_in_crash) {
      outcome = "lost in a crash";
    } else if (!r.response_received) {
      outcome = "response lost";
    } else if (r.rejected) {
      outcome = "rejected";
    } else if (!r.responses.empty()) {
      outcome = r.responses[0].status;
      const auto it = offsets.of_message.find({partition, r.responses[0].message_id});
      if (it != offsets.of_message.end()) offset = it->second;
    }
    if (const auto it = offsets.of_request.find(r.request); offset.is_null() && it != offsets.of_request.end()) {
      offset = it->second;
    }
    out.push_back({{"step", r.step},
                   {"attempt", r.attempt + 1},
                   {"partition", partition},
                   {"at_ms", since_start(r.received_at_ms)},
                   {"offset", offset},
                   {"outcome", outcome}});
  }
  return out;
}

json fault_spans_of(const Scenario& scenario, const RunOutcome& outcome) {
  const history::History& h = outcome.history;
  json out = json::array();
  for (const history::RequestRecord& r : h.requests) {
    if (!r.delivered) continue;
    if (r.lost_in_crash) {
      out.push_back({{"from_ms", since_start(r.received_at_ms)}, {"to_ms", since_start(r.answered_at_ms)},
                     {"label", attempt_name(r) + ": lost in a crash of broker " + std::to_string(r.broker)},
                     {"step", r.step}});
    } else if (!r.response_received) {
      const history::RequestRecord* next = next_attempt(h, r);
      const int64_t to = next ? next->received_at_ms : r.answered_at_ms;
      out.push_back({{"from_ms", since_start(r.answered_at_ms)}, {"to_ms", since_start(to)},
                     {"label", attempt_name(r) + ": response lost"}, {"step", r.step}});
    }
  }
  for (const history::Event& event : h.events) {
    const auto* p = std::get_if<history::PushEvent>(&event);
    if (!p || !p->failed) continue;
    out.push_back({{"from_ms", since_start(p->now_ms)}, {"to_ms", since_start(p->now_ms)},
                   {"label", "storage push " + fault_text(p->fault)}, {"step", ""}});
  }
  add_step_spans(scenario.steps, outcome, out);
  return out;
}

}  // namespace qdt::sim
