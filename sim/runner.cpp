#include "sim/runner.h"

#include <algorithm>
#include <cassert>
#include <map>
#include <set>

#include "impl/retention.h"
#include "properties/checkers.h"
#include "sim/coverage.h"
#include "sim/history_reach.h"
#include "sim/repeat_metrics.h"
#include "sim/world.h"

namespace qdt::sim {
namespace {

using json = nlohmann::json;

struct StepOutcomes {
  std::map<std::string, json> responses;       // step id -> response JSON, every step but pushes
  std::map<std::string, impl::PushResponse> pushes;  // push steps' responses, as JSON only when asked
  // Summed over every push executed (a push inside repeat runs many times).
  int64_t retries = 0;
  int64_t timeouts = 0;
  std::map<std::string, StepTime> times;       // step path -> when it began and ended (the last run, inside repeat)
};

// The outcome of a push none of whose attempts got a response: every item
// answers `timeout` (SPEC 2.12), with the zero id.
impl::PushResponse timed_out(const json& items) {
  impl::PushResponse r;
  if (!items.is_array()) return r;
  for (const json& item : items) {
    impl::ItemResponse ir;
    ir.status = impl::ItemStatus::timeout;
    ir.message_id = impl::kZeroUuidText;
    if (item.is_object()) {
      if (item.contains("transactionId") && item["transactionId"].is_string()) ir.transaction_id = item["transactionId"];
      if (item.contains("queue") && item["queue"].is_string()) ir.queue = item["queue"];
    }
    r.items.push_back(std::move(ir));
  }
  return r;
}

class Runner {
 public:
  Runner(const Scenario& scenario, World& world) : scenario_(scenario), world_(world) {}

  void script() {
    for (const auto& [queue, options] : scenario_.queues) world_.admin().configure(queue, options);
    for (const Step& step : scenario_.steps) run(step);
  }

  // Times every step (children included) on the virtual clock, for the
  // timeline (sim/timeline.h); reading the clock changes nothing.
  // `send_region`: a push child of a parallel step, whose first step is its
  // first send and whose fiber ends after the push (World::push).
  void run(const Step& step, uint64_t send_region = 0) {
    const int64_t started_ms = world_.clock().now_ms();
    run_untimed(step, send_region);
    out_.times[step.path] = {started_ms, world_.clock().now_ms()};
  }

  void run_untimed(const Step& step, uint64_t send_region) {
    switch (step.op) {
      case Op::push: {
        World::PushOutcome outcome =
            world_.push(step.id, step.broker, step.producer, step.items, step.retry, send_region);
        out_.retries += outcome.attempts - 1;
        impl::PushResponse response = outcome.response ? std::move(*outcome.response) : timed_out(step.items);
        for (const auto& item : response.items) out_.timeouts += item.status == impl::ItemStatus::timeout ? 1 : 0;
        out_.pushes[step.id] = std::move(response);
        break;
      }
      case Op::evict_cache:
        world_.evict_cache(step.broker, step.queue, step.evict_partition);
        break;
      case Op::cache:
        world_.set_cache_enabled(step.broker, step.enabled);
        break;
      case Op::crash_broker:
        world_.crash_broker(step.broker);
        break;
      case Op::crash_storage:
        world_.crash_storage(step.torn);
        break;
      case Op::skew:
        world_.set_skew(step.broker, step.skew_ms);
        break;
      case Op::network: {
        NetworkConfig next = world_.config().network;
        step.network.apply(next);
        world_.set_network(next);
        world_.trace()
            .begin(world_.clock().now_ms(), "network")
            .field("latency", std::to_string(next.latency_ms_min) + ".." + std::to_string(next.latency_ms_max))
            .field("loss_request_ppm", next.loss_request_ppm)
            .field("loss_response_ppm", next.loss_response_ppm)
            .field("duplicate_ppm", next.duplicate_ppm)
            .end();
        break;
      }
      case Op::parallel: {
        std::vector<boost::fibers::fiber> fibers;
        fibers.reserve(step.children.size());
        for (const Step& child : step.children) {
          if (child.op != Op::push) {
            fibers.push_back(world_.spawn([this, &child] { run(child); }));
            continue;
          }
          // A push child starts with its send, which touches only its
          // producer: concurrent producers' sends commute (schedule search).
          const uint64_t region = SeededScheduler::new_region();
          fibers.push_back(world_.spawn(
              [this, &child, region] {
                run(child, region);
                SeededScheduler::label_fiber_exit();  // World::push's last label ends here
              },
              region, world_.send_footprint(child.producer)));
        }
        for (auto& f : fibers) f.join();
        break;
      }
      case Op::sequence:
        for (const Step& child : step.children) run(child);
        break;
      case Op::repeat:
        for (int64_t i = 0; i < step.times; ++i) {
          for (const Step& child : step.children) run(child);
        }
        break;
      case Op::advance:
        world_.sleep_ms(step.advance_ms);
        break;
      case Op::configure:
        world_.admin().configure(*step.queue, step.options);
        break;
      case Op::retention: {
        // A fault in the listing fails this pass; the next pass retries.
        bool listed = true;
        try {
          impl::run_retention(world_.retention(), step.queue);
        } catch (const impl::StorageError&) {
          listed = false;
        }
        if (!listed) world_.trace().begin(world_.clock().now_ms(), "retention-failed").end();
        break;
      }
      case Op::delete_segment:
        world_.admin().delete_segment(*step.queue, step.partition, step.offset);
        break;
      case Op::storage_fail:
        world_.fail_storage(step.fault);
        break;
      case Op::ack: {
        impl::AckResult r;
        if (failed_in_storage(step, [&] {
              r = world_.admin().ack(step.id, *step.queue, step.partition, step.transaction_id, step.consumer_group);
            })) {
          break;
        }
        json response = {{"status", r.acked ? "acked" : "unresolvable"}};
        if (r.acked) {
          response["offset"] = r.offset;
          response["message_id"] = r.message_id ? impl::to_string(*r.message_id) : impl::kZeroUuidText;
        }
        out_.responses[step.id] = std::move(response);
        break;
      }
      case Op::read: {
        json messages = json::array();
        std::vector<impl::StoredMessage> read;
        if (failed_in_storage(step, [&] {
              read = world_.admin().read(step.id, *step.queue, step.partition, step.from, step.limit);
            })) {
          break;
        }
        for (const auto& m : read) {
          messages.push_back({{"offset", m.offset},
                              {"message_id", impl::to_string(m.message_id)},
                              {"transactionId", m.transaction_id},
                              {"data", json::parse(m.payload, nullptr, false)}});
        }
        out_.responses[step.id] = {{"count", messages.size()}, {"messages", std::move(messages)}};
        break;
      }
    }
  }

  const StepOutcomes& outcomes() const { return out_; }

 private:
  // Runs a script step's storage call; when a fault failed it, the step
  // answers {"status": "error"} and this returns true.
  template <typename Call>
  bool failed_in_storage(const Step& step, Call&& call) {
    std::string error;
    try {
      call();
    } catch (const impl::StorageError& e) {
      error = e.what();
    }
    if (error.empty()) return false;
    out_.responses[step.id] = {{"status", "error"}, {"error", error}};
    return true;
  }

  const Scenario& scenario_;
  World& world_;
  StepOutcomes out_;
};

json failure(const std::string& step, const std::string& detail) {
  return {{"kind", "expectation"}, {"property", nullptr}, {"step", step}, {"detail", detail}};
}

// Checks the `expect` block against what the run answered.
void check_expectations(const Scenario& s, const StepOutcomes& out, const history::History& h, World& world,
                        json& failures) {
  // Position of each push step's (last) response among all responses, for "new".
  std::map<std::string, size_t> position;
  for (size_t i = 0; i < h.requests.size(); ++i) position[h.requests[i].step] = i;

  // A push step's response as JSON, built only for a step an expectation names.
  std::map<std::string, json> push_json;
  auto answered = [&](const std::string& id) -> const json* {
    if (const auto r = out.responses.find(id); r != out.responses.end()) return &r->second;
    if (const auto p = out.pushes.find(id); p != out.pushes.end()) return &(push_json[id] = p->second.to_json());
    return nullptr;
  };
  for (const auto& [id, x] : s.expect) {
    const json* response = answered(id);
    if (response == nullptr) {
      failures.push_back(failure(id, "the step never answered"));
      continue;
    }
    if (x.ack_status) {
      const std::string got = (*response)["status"];
      if (got != *x.ack_status) failures.push_back(failure(id, "expected " + *x.ack_status + ", got " + got));
      continue;
    }
    if (x.count || x.transaction_ids) {
      const json& r = *response;
      if (r.contains("error")) {
        failures.push_back(failure(id, "the read failed in storage: " + r["error"].get<std::string>()));
        continue;
      }
      if (x.count && r["count"].get<int64_t>() != *x.count) {
        failures.push_back(failure(id, "expected " + std::to_string(*x.count) + " messages, read " +
                                           r["count"].dump()));
      }
      if (x.transaction_ids) {
        std::vector<std::string> got;
        for (const auto& m : r["messages"]) got.push_back(m["transactionId"]);
        if (got != *x.transaction_ids) {
          failures.push_back(failure(id, "expected transactionIds " + json(*x.transaction_ids).dump() + ", read " +
                                             json(got).dump()));
        }
      }
      continue;
    }
    const impl::PushResponse& push = out.pushes.at(id);
    if (x.rejected) {
      if (!push.rejected) failures.push_back(failure(id, "expected the request to be rejected, it was accepted"));
      continue;
    }
    if (push.rejected) {
      failures.push_back(failure(id, "the request was rejected: " + push.error));
      continue;
    }
    assert(x.items);
    if (push.items.size() != x.items->size()) {
      failures.push_back(failure(id, "expected " + std::to_string(x.items->size()) + " items, got " +
                                         std::to_string(push.items.size())));
      continue;
    }
    for (size_t i = 0; i < push.items.size(); ++i) {
      const impl::ItemResponse& got = push.items[i];
      const ItemExpect& want = (*x.items)[i];
      const std::string where = id + "/" + std::to_string(i);
      if (impl::status_name(got.status) != want.status) {
        failures.push_back(
            failure(id, "item " + where + ": expected " + want.status + ", got " + impl::status_name(got.status)));
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
                                             ", which was answered before"));
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
      } else {
        expected = ref;
      }
      if (got.message_id != expected) {
        failures.push_back(failure(id, "item " + where + ": expected message_id " + expected + " (" + ref +
                                           "), got " + got.message_id));
      }
    }
  }
  for (const auto& [key, n] : s.expect_stored) {
    const int64_t got = world.storage().stored_messages(key.first, key.second);
    if (got != n) {
      failures.push_back(failure("stored", key.first + "/" + key.second + ": expected " + std::to_string(n) +
                                               " stored messages, found " + std::to_string(got)));
    }
  }
}

int64_t fused_segments(const World& world) {
  int64_t n = 0;
  for (uint32_t b = 0; b < world.broker_count(); ++b) n += static_cast<int64_t>(world.broker(b).stats().fused_segments);
  return n;
}

json cache_metrics(const World& world) {
  impl::DedupCache::Stats total;
  for (uint32_t b = 0; b < world.broker_count(); ++b) {
    const auto st = world.broker(b).cache().stats();
    total.answers += st.answers;
    total.vouched += st.vouched;
    total.hits += st.hits;
    total.hydrations_full += st.hydrations_full;
    total.hydrations_span += st.hydrations_span;
    total.hydration_failures += st.hydration_failures;
    total.rebuilds += st.rebuilds;
    total.evictions += st.evictions;
    total.declined += st.declined;
    total.disabled += st.disabled;
    total.bytes += st.bytes;
    total.hashes += st.hashes;
  }
  return {{"answers", total.answers},
          {"vouched", total.vouched},
          {"hits", total.hits},
          {"hydrations_full", total.hydrations_full},
          {"hydrations_span", total.hydrations_span},
          {"hydration_failures", total.hydration_failures},
          {"rebuilds", total.rebuilds},
          {"evictions", total.evictions},
          {"suppressed_partitions", total.declined},
          {"disabled_answers", total.disabled},
          {"cache_bytes", total.bytes},
          {"bytes_per_hash", total.hashes ? static_cast<double>(total.bytes) / static_cast<double>(total.hashes) : 0.0}};
}

json metrics_of(World& world, const StepOutcomes& out) {
  const history::History& h = world.history();
  const int64_t timeouts = out.timeouts, retries = out.retries;
  int64_t items = 0, queued = 0, duplicates = 0, zero = 0, errors = 0, rejected = 0;
  for (const auto& r : h.requests) {
    rejected += r.rejected ? 1 : 0;
    for (const auto& item : r.responses) {
      ++items;
      if (item.status == "queued") ++queued;
      else if (item.status == "duplicate") {
        ++duplicates;
        if (item.message_id == history::kZeroUuid) ++zero;
      } else ++errors;
    }
  }
  int64_t pushes = 0, failed = 0, probes_run = 0, probes_skipped = 0, rows_scanned = 0, fetches = 0;
  for (const auto& e : h.events) {
    if (const auto* p = std::get_if<history::PushEvent>(&e)) {
      ++pushes;
      if (p->failed) {
        ++failed;
        continue;
      }
      if (p->probe_ran) ++probes_run;
      else if (p->window_seconds > 0 && p->last_offset_before >= 0) ++probes_skipped;
      rows_scanned += static_cast<int64_t>(p->rows_scanned);
    } else if (std::holds_alternative<history::FetchEvent>(e)) {
      ++fetches;
    }
  }
  const RepeatCounts repeats = count_repeats(h);
  return {{"requests", h.requests.size()},
          {"rejected_requests", rejected},
          {"items", items},
          {"queued", queued},
          {"duplicates", duplicates},
          {"zero_id_duplicates", zero},
          {"frames_stored", repeats.frames_stored},
          {"repeats_stored", repeats.repeats_stored},
          {"double_writes", repeats.double_writes},
          // Per run: a sweep's mean of it weighs every seed alike.
          {"double_writes_per_million_items",
           items ? 1e6 * static_cast<double>(repeats.double_writes) / static_cast<double>(items) : 0.0},
          {"errors", errors},
          {"timeouts", timeouts},
          {"retries", retries},
          {"requests_lost", world.network_stats().requests_lost},
          {"responses_lost", world.network_stats().responses_lost},
          {"duplicated_deliveries", world.network_stats().duplicated},
          {"late_responses", world.network_stats().late_responses},
          {"deliveries_lost_in_crash", world.network_stats().crashed},
          {"fused_segments", fused_segments(world)},
          {"cache", cache_metrics(world)},
          {"storage_pushes", pushes},
          {"storage_push_failures", failed},
          {"probes_run", probes_run},
          {"probes_skipped", probes_skipped},
          {"sidecar_rows_scanned", rows_scanned},
          {"covering_fetches", fetches},
          {"storage_statements", world.storage_side().statements},
          {"storage_busy_waits", world.storage_side().busy_waits},
          {"storage_faults_injected", world.storage_side().faults_injected},
          {"sidecar_rows", world.storage().sidecar_rows()},
          {"segments", world.storage().segment_count()},
          {"virtual_duration_ms", world.clock().now_ms()},
          {"scheduler_picks", world.scheduler_picks()},
          {"trace_lines", world.trace().lines()}};
}

}  // namespace

namespace {

// {"point": picks before it was first reached}, for forking (qdt check --fork-rare).
json first_picks_json(const RunReach& reach) {
  json out = json::object();
  for (const auto& [name, picks] : reach.first_picks()) out[name] = picks;
  return out;
}

}  // namespace

RunOutcome run_scenario(const Scenario& scenario, const RunOptions& options) {
  WorldConfig config = scenario.world;
  config.seed = scenario.seed;
  if (options.cache_enabled) config.cache.enabled = *options.cache_enabled;
  // The command line's --variant wins over the scenario's world.variant.
  if (options.variant != impl::Variant::none) config.variant = options.variant;
  if (options.schedule) config.schedule = *options.schedule;
  config.checked_mode = options.checked_mode;
  const bool learn_steps = config.schedule.mode == ScheduleMode::pct && config.schedule.pct_steps == 0 &&
                           options.schedule_policy == nullptr;
  if (learn_steps) {
    // PCT's k, the run's step count, is learnt from a first run of the same
    // seed under PCT without change points (PctPolicy's bound needs k).
    WorldConfig first = config;
    first.schedule.pct_depth = 1;
    first.schedule.pct_steps = 1;
    World probe(first, false);
    Runner probe_runner(scenario, probe);
    probe.run([&] { probe_runner.script(); });
    config.schedule.pct_steps = std::max<uint64_t>(probe.scheduler_picks(), 1);
  }
  // Observes the reachability points of this run only (not the probe run
  // above); changes nothing in it.
  RunReach reach;
  World world(config, options.keep_trace_text);
  world.set_schedule_policy(options.schedule_policy);
  Runner runner(scenario, world);
  world.run([&] { runner.script(); });
  world.finish_history();
  world.history().recorded_outcomes = true;
  world.history().recorded_request_times = true;
  reach.run_ended();
  mark_history_points(world.history());

  json failures = json::array();
  check_expectations(scenario, runner.outcomes(), world.history(), world, failures);
  for (const properties::Failure& f : properties::check_history(world.history())) {
    failures.push_back({{"kind", "property"},
                        {"property", f.property},
                        {"step", f.step},
                        {"partition", f.partition},
                        {"detail", f.detail}});
  }
  RunOutcome outcome;
  outcome.passed = failures.empty();
  json steps = json::object();
  if (options.step_responses) {
    for (const auto& [id, response] : runner.outcomes().responses) {
      if (id[0] != '#') steps[id] = {{"response", response}};
    }
    for (const auto& [id, response] : runner.outcomes().pushes) {
      if (id[0] != '#') steps[id] = {{"response", response.to_json()}};
    }
  }
  outcome.result = {{"scenario", scenario.name},
                    {"file", scenario.file},
                    {"seed", scenario.seed},
                    {"variant", impl::variant_name(config.variant)},
                    {"passed", outcome.passed},
                    {"trace_hash", world.trace().hash_hex()},
                    {"steps", std::move(steps)},
                    {"failures", std::move(failures)},
                    {"metrics", metrics_of(world, runner.outcomes())},
                    {"reached", reach.names()},
                    {"reached_at_pick", first_picks_json(reach)}};
  // Only a run that was not random says how it was scheduled: random
  // results read as they always did.
  if (!world.schedule_report().is_null()) {
    outcome.result["schedule"] = world.schedule_report();
    if (learn_steps) outcome.result["schedule"]["steps_learnt"] = true;
  }
  outcome.trace_text = world.trace().text();
  outcome.step_times = runner.outcomes().times;
  outcome.history = std::move(world.history());
  return outcome;
}

}  // namespace qdt::sim
