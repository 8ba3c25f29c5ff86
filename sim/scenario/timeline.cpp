#include "sim/scenario/timeline.h"

#include <map>
#include <regex>
#include <set>
#include <variant>

#include "properties/model_answers.h"
#include "properties/step_index.h"
#include "sim/scenario/step_kinds.h"
#include "sim/scenario/step_push.h"
#include "sim/scenario/timeline_story.h"
#include "sim/scenario/timeline_text.h"
#include "sim/world/world_config.h"

namespace qdt::sim {
namespace {

using json = nlohmann::json;

// What the failures point at, gathered once for every highlighting decision.
struct Blame {
  std::map<std::string, std::set<std::string>> partitions_of_step;  // failing step -> partitions ("" = any)
  std::set<std::string> partitions;                                 // every failing partition
  std::set<size_t> events;                                          // events a detail names
};

// Checkers name events in details as "event 4", "fetch event 7", ...: the
// offending event is also a field (RunFailure::event); the detail names the
// others a reader compares it with (the earlier copy, the committing push).
std::set<size_t> events_named(const std::string& detail) {
  static const std::regex kEvent(R"(\bevent (\d+)\b)");
  std::set<size_t> out;
  for (auto it = std::sregex_iterator(detail.begin(), detail.end(), kEvent); it != std::sregex_iterator(); ++it) {
    out.insert(std::stoull((*it)[1].str()));
  }
  return out;
}

json failures_of(const RunResult& result, Blame& blame) {
  json out = json::array();
  for (const RunFailure& f : result.failures) {
    const std::string partition = f.partition.value_or("");
    std::set<size_t> events = events_named(f.detail);
    if (f.event) events.insert(*f.event);
    if (!f.step.empty()) blame.partitions_of_step[f.step].insert(partition);
    if (!partition.empty()) blame.partitions.insert(partition);
    blame.events.insert(events.begin(), events.end());
    json failure = {{"kind", f.kind},
                    {"property", f.signature()},
                    {"step", f.step},
                    {"partition", partition},
                    {"detail", f.detail},
                    {"events", events}};
    f.add_rule_fields(failure);
    out.push_back(std::move(failure));
  }
  return out;
}

bool blames(const Blame& blame, const std::string& step, const std::string& partition) {
  const auto it = blame.partitions_of_step.find(step);
  if (step.empty() || it == blame.partitions_of_step.end()) return false;
  return it->second.count("") || it->second.count(partition);
}

// Faults a push step met on its way: from every delivery the history records
// for it and every failed storage transaction its frames were in.
std::vector<std::string> push_faults(const std::string& step, const history::History& h,
                                     const properties::StepIndex& index) {
  std::vector<std::string> out;
  std::map<uint32_t, int> deliveries_of_attempt;
  for (const history::RequestRecord& r : h.requests) {
    if (r.step != step) continue;
    const std::string attempt = "attempt " + std::to_string(r.attempt + 1);
    if (++deliveries_of_attempt[r.attempt] == 2) out.push_back(attempt + ": delivered twice");
    if (!r.delivered) out.push_back(attempt + ": request lost");
    else if (r.lost_in_crash) out.push_back(attempt + ": lost in a crash of broker " + std::to_string(r.broker));
    else if (!r.response_received) out.push_back(attempt + ": response lost or late");
    if (r.rejected) out.push_back(attempt + ": rejected: " + r.error);
  }
  for (size_t e = 0; e < h.events.size(); ++e) {
    const auto* p = std::get_if<history::PushEvent>(&h.events[e]);
    if (p && p->failed && index.step_of(*p, 0) == step) {
      out.push_back("storage push (event " + std::to_string(e) + ") " + fault_text(p->fault));
    }
  }
  return out;
}

void add_steps(const std::vector<Step>& steps, int depth, const RunOutcome& outcome, const Blame& blame,
               const properties::StepIndex& index, json& out) {
  const std::map<std::string, json>& answered = outcome.result.step_responses;
  for (const Step& s : steps) {
    // Results name a step without an id by its JSON path (runner.cpp).
    const std::string& label = s.id[0] == '#' ? s.path : s.id;
    const auto time = outcome.step_times.find(s.path);
    json row = {{"id", s.id},
                {"path", s.path},
                {"depth", depth},
                {"op", op_name(s)},
                {"summary", s.kind->summary(s)},
                {"started_ms", time == outcome.step_times.end() ? json() : json(time->second.started_ms)},
                {"ended_ms", time == outcome.step_times.end() ? json() : json(time->second.ended_ms)},
                {"responses", json::array()},
                {"answer", ""},
                {"faults", json::array()},
                {"highlighted", blame.partitions_of_step.count(label) > 0}};
    if (s.kind->fault) row["faults"].push_back(op_name(s) + ": " + s.kind->summary(s));
    if (is_push(s)) {
      for (const std::string& f : push_faults(s.id, outcome.history, index)) row["faults"].push_back(f);
    }
    if (const auto it = answered.find(label); it != answered.end()) {
      const json& response = it->second;
      if (response.is_array()) {
        for (const json& item : response) {
          row["responses"].push_back({{"index", item["index"]},
                                      {"status", item["status"]},
                                      {"message_id", item["message_id"]},
                                      {"transaction_id", item["transaction_id"]}});
        }
      } else if (response.contains("error")) {
        row["answer"] = (is_push(s) ? "rejected: " : "error: ") + response["error"].get<std::string>();
      } else if (response.contains("count")) {
        row["answer"] = response["count"].dump() + " messages";
      } else {
        row["answer"] = response.value("status", std::string()) +
                        (response.contains("offset") ? " offset " + response["offset"].dump() : std::string());
      }
    }
    out.push_back(std::move(row));
    add_steps(s.children, depth + 1, outcome, blame, index, out);
  }
}

std::string step_of_event(const history::Event& event, const properties::StepIndex& index) {
  if (const auto* p = std::get_if<history::PushEvent>(&event)) return index.step_of(*p, 0);
  if (const auto* a = std::get_if<history::AckEvent>(&event)) return a->step;
  if (const auto* r = std::get_if<history::ReadEvent>(&event)) return r->step;
  return "";
}

json fingerprint_of(const history::PartitionFingerprint& f) {
  return {{"last_offset", f.last_offset}, {"txns_start", f.txns_start}};
}

// What a push transaction saw of its partition, read under its lock just
// before and just after it, with the broker's cache watermark it carried:
// the state view of a failing step. The row counters count writes over the
// process's life, so only their difference is the transaction's.
json state_of(const history::PushEvent& p) {
  json state = {{"broker", p.broker},
                {"p_verified", p.p_verified},
                {"window_assumed_s", p.window_seconds_assumed},
                {"window_s", p.window_seconds},
                {"failed", p.failed},
                {"probe_ran", p.probe_ran},
                {"rows_scanned", p.rows_scanned},
                {"before", fingerprint_of(p.rows_before)},
                {"after", p.rows_after_read ? fingerprint_of(p.rows_after) : json()}};
  if (p.rows_after_read) {
    state["segments_written"] = p.rows_after.segments - p.rows_before.segments;
    state["sidecar_rows_written"] = p.rows_after.sidecar_rows - p.rows_before.sidecar_rows;
  }
  return state;
}

json events_of(const history::History& h, const Blame& blame, const properties::StepIndex& index) {
  std::map<size_t, properties::PushVerdict> verdicts;
  for (properties::PushVerdict& v : properties::push_verdicts(h)) verdicts.emplace(v.event, std::move(v));
  json out = json::array();
  for (size_t e = 0; e < h.events.size(); ++e) {
    const EventText text = event_text(h.events[e]);
    const std::string step = step_of_event(h.events[e], index);
    json row = {{"index", e},
                {"kind", text.kind},
                {"at_ms", text.at_ms ? json(*text.at_ms) : json()},
                {"partition", text.partition},
                {"step", step},
                {"summary", text.summary},
                {"highlighted", blame.events.count(e) > 0 || blames(blame, step, text.partition)},
                {"in_failing_partition", blame.partitions.count(text.partition) > 0}};
    if (const auto* p = std::get_if<history::PushEvent>(&h.events[e])) row["state"] = state_of(*p);
    if (const auto v = verdicts.find(e); v != verdicts.end()) {
      row["answer"] = v->second.storage;
      row["model"] = v->second.model;
      row["agrees"] = v->second.agrees;
    }
    out.push_back(std::move(row));
  }
  return out;
}

// Per partition, every offset a queued push stored (at the storage time of
// its transaction) and the offset of every duplicate a producer was answered
// (at the time the broker answered): the client's view, so a duplicate the
// broker answered without asking storage shows too. A zero id names no
// offset and is left out (the steps table shows it).
json offsets_of(const history::History& h, const properties::StepIndex& index) {
  std::map<std::string, json> points;
  std::map<std::pair<std::string, std::string>, int64_t> offset_of;  // (partition, message id) -> offset
  for (const history::Event& event : h.events) {
    const auto* p = std::get_if<history::PushEvent>(&event);
    if (!p || p->failed || !p->queued) continue;
    const std::string partition = p->queue + "/" + p->partition;
    for (size_t i = 0; i < p->frames.size(); ++i) {
      const int64_t offset = p->base_offset + static_cast<int64_t>(i);
      offset_of[{partition, p->frames[i].message_id}] = offset;
      points[partition].push_back({{"at_ms", p->now_ms - kEpochUnixMs}, {"offset", offset}, {"kind", "stored"},
                                   {"step", index.step_of(*p, i)}, {"window_ms", p->window_seconds * 1000}});
    }
  }
  for (const history::RequestRecord& r : h.requests) {
    if (r.responses.size() != r.items.size()) continue;
    for (size_t i = 0; i < r.items.size(); ++i) {
      if (r.responses[i].status != "duplicate") continue;
      const std::string partition = r.items[i].queue + "/" + r.items[i].partition;
      const auto it = offset_of.find({partition, r.responses[i].message_id});
      if (it == offset_of.end()) continue;
      points[partition].push_back({{"at_ms", r.answered_at_ms - kEpochUnixMs}, {"offset", it->second},
                                   {"kind", "duplicate"}, {"step", r.step}});
    }
  }
  json out = json::array();
  for (auto& [partition, series] : points) out.push_back({{"partition", partition}, {"points", std::move(series)}});
  return out;
}

json model_answers_of(const history::History& h, const Blame& blame) {
  json out = json::array();
  for (const properties::ItemAnswer& a : properties::item_answers(h)) {
    const std::string partition = a.queue + "/" + a.partition;
    out.push_back({{"step", a.step},
                   {"request", a.request},
                   {"item", a.item},
                   {"partition", partition},
                   {"transaction_id", a.transaction_id},
                   {"got_status", a.got.status},
                   {"got_message_id", a.got.message_id},
                   {"model_statuses", a.want.statuses},
                   {"model_message_ids", a.want.all_ids()},
                   {"model_on_arrival", a.model_on_arrival},
                   {"because", a.transaction_mismatch ? "the response names txn " + a.got.transaction_id : a.want.because},
                   {"agrees", a.agrees()},
                   {"highlighted", !a.agrees() || blames(blame, a.step, partition)}});
  }
  return out;
}

}  // namespace

json timeline_document(const Scenario& scenario, const RunOutcome& outcome, const TimelineContext& context) {
  const RunResult& result = outcome.result;
  const properties::StepIndex index(outcome.history);
  Blame blame;
  json doc = {{"kind", "qdt-timeline"},
              {"scenario", scenario.name},
              {"description", scenario.description},
              {"file", scenario.file},
              {"seed", scenario.seed},
              {"variant", result.variant},
              {"passed", outcome.passed},
              {"trace_hash", result.trace_hash},
              {"command", context.command},
              {"virtual_duration_ms", result.metrics.value("virtual_duration_ms", int64_t{0})},
              {"failures", failures_of(result, blame)}};
  if (context.commit) doc["commit"] = *context.commit;
  json steps = json::array();
  add_steps(scenario.steps, 0, outcome, blame, index, steps);
  doc["steps"] = std::move(steps);
  doc["events"] = events_of(outcome.history, blame, index);
  doc["offsets"] = offsets_of(outcome.history, index);
  doc["attempts"] = attempts_of(outcome.history);
  doc["fault_spans"] = fault_spans_of(scenario, outcome);
  doc["model_answers"] = model_answers_of(outcome.history, blame);
  return doc;
}

}  // namespace qdt::sim
