#pragma once
// One walk over a history's events for every checker that judges an event
// against what the events before it left: storage as recorded (StorageReplay)
// and the model following storage (ModelFollower). Each used to rebuild both
// for itself; the pass builds each once, and only when some checker needs it.
//
// Sharing the state shares no judgement: every checker keeps its own sink and
// derives its own expectations, exactly as when it runs alone (check_alone).
// Order per checker is the event order, so failures come out as before.
#include <cstddef>
#include <memory>
#include <memory_resource>
#include <string>
#include <utility>
#include <vector>

#include "properties/checkers.h"
#include "properties/failure_sink.h"
#include "properties/history.h"
#include "properties/history_index.h"
#include "properties/model_follower.h"
#include "properties/storage_replay.h"

namespace qdt::properties {

// The state after events [0, e) (in before()) or [0, e] (in after()).
// A member the checker did not ask for (PassChecker::needs) stays empty.
struct PassState {
  const StorageReplay& replay;
  const ModelFollower& model;
  // In before() of a PushEvent, when some checker asked for the replay:
  // replay.find() of the push's partition and replay.window_seconds() of its
  // queue, looked up once for every checker instead of once by each.
  const PartitionReplay* push_partition = nullptr;
  int64_t push_window_seconds = 0;
};

// One property, judged event by event; its failures go to its own sink.
class PassChecker {
 public:
  struct Needs {
    bool replay = false;
    bool model = false;
  };
  PassChecker(std::string property, Needs needs) : sink_(std::move(property)), needs_(needs) {}
  virtual ~PassChecker() = default;
  PassChecker(const PassChecker&) = delete;
  PassChecker& operator=(const PassChecker&) = delete;
  Needs needs() const { return needs_; }
  // Judges event `e` before it is applied.
  virtual void before(size_t /*e*/, const history::Event& /*event*/, const PassState& /*state*/) {}
  // After it is applied.
  virtual void after(size_t /*e*/, const history::Event& /*event*/, const PassState& /*state*/) {}
  // Before event `e` (or, e == events.size(), before finish()): a power
  // loss emptied storage (properties/power_loss.h). `before` is the state it
  // emptied, valid until the pass ends; the state is empty from here on, and
  // a checker drops what it derived from the events before.
  virtual void storage_emptied(size_t /*e*/, const PassState& /*before*/) {}
  // After the last event: response-level checks against the final state.
  virtual void finish(const PassState& /*state*/) {}
  std::vector<Failure> take() { return sink_.take(); }

 protected:
  FailureSink sink_;
  // For the checker's own indexes: they only grow during a pass and are
  // freed at once with the checker, not node by node.
  std::pmr::monotonic_buffer_resource arena_;

 private:
  Needs needs_;
};

using PassCheckerFactory = std::unique_ptr<PassChecker> (*)(const HistoryIndex&);

// Walks the history once, calling every checker's hooks in the given order per event.
void run_pass(const HistoryIndex& index, const std::vector<PassChecker*>& checkers);

// One checker over `history`, as check_<name>(history) runs it.
std::vector<Failure> check_alone(PassCheckerFactory make, const history::History& history);

}  // namespace qdt::properties
