#include "properties/event_pass.h"

#include <cassert>
#include <memory>
#include <variant>

#include "properties/power_loss.h"

namespace qdt::properties {

namespace {

// Storage as the history shows it and the model, from the start or from a
// power loss that emptied storage to the next.
struct Stretch {
  explicit Stretch(const HistoryIndex& index) : replay(index), state{replay, model} {}
  Stretch(const Stretch&) = delete;
  Stretch& operator=(const Stretch&) = delete;
  StorageReplay replay;
  ModelFollower model;
  PassState state;
};

}  // namespace

void run_pass(const HistoryIndex& index, const std::vector<PassChecker*>& checkers) {
  PassChecker::Needs needs;
  for (const PassChecker* c : checkers) {
    assert(c != nullptr);
    needs.replay = needs.replay || c->needs().replay;
    needs.model = needs.model || c->needs().model;
  }
  // A power loss that empties storage starts a new stretch; the old ones live
  // on until the pass ends, as checkers may still hold views into them.
  std::vector<std::unique_ptr<Stretch>> stretches;
  stretches.push_back(std::make_unique<Stretch>(index));
  const history::History& h = index.history();
  const std::vector<size_t> emptied = storage_emptied_at(h);
  auto next_emptied = emptied.begin();
  auto empty_before = [&](size_t e) {
    if (next_emptied == emptied.end() || *next_emptied != e) return;
    ++next_emptied;
    for (PassChecker* c : checkers) c->storage_emptied(e, stretches.back()->state);
    stretches.push_back(std::make_unique<Stretch>(index));
  };
  for (size_t e = 0; e < h.events.size(); ++e) {
    empty_before(e);
    Stretch& now = *stretches.back();
    PassState& state = now.state;
    const history::Event& event = h.events[e];
    const auto* push = std::get_if<history::PushEvent>(&event);
    if (needs.replay && push != nullptr) {
      state.push_partition = now.replay.find(push->queue, push->partition);
      state.push_window_seconds = now.replay.window_seconds(push->queue);
    }
    for (PassChecker* c : checkers) c->before(e, event, state);
    state.push_partition = nullptr;  // only before() of that push may use them
    state.push_window_seconds = 0;
    if (needs.replay) now.replay.apply(event, e);
    if (needs.model) now.model.apply(event);
    for (PassChecker* c : checkers) c->after(e, event, state);
  }
  empty_before(h.events.size());
  for (PassChecker* c : checkers) c->finish(stretches.back()->state);
}

std::vector<Failure> check_alone(PassCheckerFactory make, const history::History& history) {
  const HistoryIndex index(history);
  const std::unique_ptr<PassChecker> checker = make(index);
  run_pass(index, {checker.get()});
  return checker->take();
}

}  // namespace qdt::properties
