#pragma once
// Runs one step of a scenario in its world through the step's kind
// (sim/scenario/step_kinds.h), timing it on the virtual clock and collecting
// what it answered; the helpers every admin step shares live here.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "impl/broker/broker.h"
#include "sim/scenario/scenario.h"
#include "sim/scenario/step_outcomes.h"
#include "sim/world/world.h"

namespace qdt::sim {

class StepRunner {
 public:
  explicit StepRunner(World& world) : world_(world) {}

  World& world() { return world_; }
  StepOutcomes& outcomes() { return out_; }
  const StepOutcomes& outcomes() const { return out_; }

  // Times every step (children included) on the virtual clock, for the
  // timeline (sim/scenario/timeline.h); reading the clock changes nothing.
  // `send_region`: a push child of a parallel step, whose first step is its
  // first send and whose fiber ends after the push (World::push).
  void run(const Step& step, uint64_t send_region = 0);

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

 private:
  World& world_;
  StepOutcomes out_;
};

}  // namespace qdt::sim
