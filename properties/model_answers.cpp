#include "properties/model_answers.h"

#include <algorithm>
#include <cassert>
#include <climits>
#include <map>
#include <optional>
#include <variant>

#include "properties/power_loss.h"

namespace qdt::properties {

model::PushAnswer model_probe(const ModelFollower& follower, const history::PushEvent& push) {
  assert(!push.failed && !push.frames.empty());
  const int64_t window = follower.options(push.queue).window_seconds;
  const std::vector<model::Frame>& frames = follower.frames(push);
  const model::Partition* partition = follower.find(push.queue, push.partition);
  return partition ? partition->probe(frames, push.now_ms, window)
                   : model::Partition{}.probe(frames, push.now_ms, window);
}

std::string describe_duplicates(const std::vector<std::pair<uint32_t, int64_t>>& duplicates) {
  if (duplicates.empty()) return "naming no original";
  std::string out = "[";
  for (size_t i = 0; i < duplicates.size(); ++i) {
    out += (i ? ", " : "") + ("frame " + std::to_string(duplicates[i].first) + " repeats offset " +
                              std::to_string(duplicates[i].second));
  }
  return out + "]";
}

std::string describe_push_answer(bool queued, int64_t base_offset,
                                 const std::vector<std::pair<uint32_t, int64_t>>& duplicates) {
  return queued ? "queued from offset " + std::to_string(base_offset) : "duplicate " + describe_duplicates(duplicates);
}

std::vector<PushVerdict> push_verdicts(const history::History& history) {
  std::vector<PushVerdict> out;
  std::optional<ModelFollower> following(std::in_place);
  const std::vector<size_t> emptied = storage_emptied_at(history);
  for (size_t e = 0; e < history.events.size(); ++e) {
    // A power loss that emptied storage starts the model over, as the pass does.
    if (std::binary_search(emptied.begin(), emptied.end(), e)) following.emplace();
    ModelFollower& follower = *following;
    const history::Event& event = history.events[e];
    const auto* push = std::get_if<history::PushEvent>(&event);
    if (push && !push->failed && !push->frames.empty()) {
      const model::PushAnswer want = model_probe(follower, *push);
      std::vector<std::pair<uint32_t, int64_t>> got = push->duplicates;
      std::sort(got.begin(), got.end());
      const bool agrees = want.queued == push->queued &&
                          (want.queued ? want.base_offset == push->base_offset : want.duplicates == got);
      out.push_back({e, describe_push_answer(want.queued, want.base_offset, want.duplicates),
                     describe_push_answer(push->queued, push->base_offset, got), agrees});
    }
    follower.apply(event);  // after asking: the model follows storage, as model-agreement's does
  }
  return out;
}

std::vector<ItemAnswer> item_answers(const Verdicts& verdicts, const history::RequestRecord& r) {
  std::vector<ItemAnswer> out;
  if (r.rejected || !r.delivered || r.lost_in_crash || r.responses.size() != r.items.size()) return out;
  const std::vector<size_t> leaders = request_leaders(r);
  for (size_t i = 0; i < r.items.size(); ++i) {
    const history::ItemRecord& item = r.items[i];
    ItemAnswer a{r.request, r.step, i, item.queue, item.partition, item.transaction_id, r.responses[i], {}, false, ""};
    a.transaction_mismatch = a.got.transaction_id != item.transaction_id;
    if (!a.transaction_mismatch) a.want = verdicts.expected(r, i, leaders[i]);
    out.push_back(std::move(a));
  }
  return out;
}

namespace {

// Events carry storage times; a fetch or read has none and goes with the
// events before it.
std::optional<int64_t> event_time_ms(const history::Event& event) {
  return std::visit(
      [](const auto& e) -> std::optional<int64_t> {
        if constexpr (requires { e.now_ms; }) return e.now_ms;
        return std::nullopt;
      },
      event);
}

std::string model_alone(const ModelFollower& follower, const ItemAnswer& a, int64_t at_ms) {
  const int64_t window = follower.model().options(a.queue).window_seconds;
  const model::Partition* partition = follower.find(a.queue, a.partition);
  const std::vector<model::Frame> frame = {{"", a.transaction_id}};
  const model::PushAnswer answer =
      partition ? partition->probe(frame, at_ms, window) : model::Partition{}.probe(frame, at_ms, window);
  if (answer.queued) {
    return "queued: no message of key " + a.transaction_id + " within the " + std::to_string(window) + " s window";
  }
  const int64_t original = answer.duplicates.front().second;
  return "duplicate of offset " + std::to_string(original) + " (id " + partition->resolve_id(original) + ")";
}

}  // namespace

std::vector<ItemAnswer> item_answers(const history::History& history) {
  const Verdicts verdicts(history);
  std::vector<ItemAnswer> out;
  // Requests in the order they reached a broker, to walk the model forward once.
  std::vector<const history::RequestRecord*> by_answer;
  for (const history::RequestRecord& r : history.requests) by_answer.push_back(&r);
  std::stable_sort(by_answer.begin(), by_answer.end(),
                   [](const auto* x, const auto* y) { return x->received_at_ms < y->received_at_ms; });
  std::map<std::pair<uint64_t, size_t>, std::string> alone;  // (request, item) -> model_on_arrival
  std::optional<ModelFollower> follower(std::in_place);
  const std::vector<size_t> emptied = storage_emptied_at(history);
  size_t next_event = 0;
  for (const history::RequestRecord* r : by_answer) {
    if (!history.recorded_request_times) break;
    while (next_event < history.events.size() &&
           event_time_ms(history.events[next_event]).value_or(INT64_MIN) < r->received_at_ms) {
      if (std::binary_search(emptied.begin(), emptied.end(), next_event)) follower.emplace();
      follower->apply(history.events[next_event++]);
    }
    for (const ItemAnswer& a : item_answers(verdicts, *r)) {
      alone[{a.request, a.item}] = model_alone(*follower, a, r->received_at_ms);
    }
  }
  for (const history::RequestRecord& r : history.requests) {
    for (ItemAnswer& a : item_answers(verdicts, r)) {
      if (auto it = alone.find({a.request, a.item}); it != alone.end()) a.model_on_arrival = it->second;
      out.push_back(std::move(a));
    }
  }
  return out;
}

}  // namespace qdt::properties
