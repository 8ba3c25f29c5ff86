#include "sim/scenario/runner.h"

#include <algorithm>
#include <cassert>
#include <optional>

#include "impl/storage/retention.h"
#include "properties/checkers.h"
#include "sim/scenario/coverage.h"
#include "sim/scenario/history_reach.h"
#include "sim/scenario/run_expectations.h"
#include "sim/scenario/run_metrics.h"
#include "sim/scenario/step_outcomes.h"
#include "sim/world/world.h"

namespace qdt::sim {
namespace {

using json = nlohmann::json;


// The outcome of a push none of whose attempts got a response: every item
// answers `timeout` (docs/semantics.md §2.12), with the zero id.
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
  // timeline (sim/scenario/timeline.h); reading the clock changes nothing.
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
        resent_after_lost_connection(step, [&] { world_.admin().configure(*step.queue, step.options); });
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
        resent_after_lost_connection(step, [&] { world_.admin().delete_segment(*step.queue, step.partition, step.offset); });
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

  // Runs an admin step whose fate a lost connection leaves unknown as a
  // broker's push does (docs/semantics.md §2.4): sent again on a new connection, bounded;
  // the history holds each attempt that committed. A step that still fails
  // answers {"status": "error"}.
  template <typename Call>
  void resent_after_lost_connection(const Step& step, Call&& call) {
    for (uint32_t resent = 0;; ++resent) {
      std::optional<impl::StorageError> failure;
      try {
        call();
      } catch (const impl::StorageError& e) {
        failure = e;  // the next attempt switches fibers: outside the handler
      }
      if (!failure) return;
      if (!failure->connection_lost() || resent >= impl::Broker::kLostConnectionRetriesMax) {
        out_.responses[step.id] = {{"status", "error"}, {"error", failure->what()}};
        return;
      }
      world_.trace().begin(world_.clock().now_ms(), "admin-resend").field("step", step.id).field("resent", resent + 1).end();
    }
  }

  const Scenario& scenario_;
  World& world_;
  StepOutcomes out_;
};

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
                    {"metrics", run_metrics(world, runner.outcomes().timeouts, runner.outcomes().retries)},
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
