#include "properties/event_pass.h"

#include <cassert>
#include <variant>

namespace qdt::properties {

void run_pass(const HistoryIndex& index, const std::vector<PassChecker*>& checkers) {
  PassChecker::Needs needs;
  for (const PassChecker* c : checkers) {
    assert(c != nullptr);
    needs.replay = needs.replay || c->needs().replay;
    needs.model = needs.model || c->needs().model;
  }
  StorageReplay replay(index);
  ModelFollower model;
  PassState state{replay, model};
  const history::History& h = index.history();
  for (size_t e = 0; e < h.events.size(); ++e) {
    const history::Event& event = h.events[e];
    const auto* push = std::get_if<history::PushEvent>(&event);
    if (needs.replay && push != nullptr) {
      state.push_partition = replay.find(push->queue, push->partition);
      state.push_window_seconds = replay.window_seconds(push->queue);
    }
    for (PassChecker* c : checkers) c->before(e, event, state);
    state.push_partition = nullptr;  // only before() of that push may use them
    state.push_window_seconds = 0;
    if (needs.replay) replay.apply(event, e);
    if (needs.model) model.apply(event);
    for (PassChecker* c : checkers) c->after(e, event, state);
  }
  for (PassChecker* c : checkers) c->finish(state);
}

std::vector<Failure> check_alone(PassCheckerFactory make, const history::History& history) {
  const HistoryIndex index(history);
  const std::unique_ptr<PassChecker> checker = make(index);
  run_pass(index, {checker.get()});
  return checker->take();
}

}  // namespace qdt::properties
