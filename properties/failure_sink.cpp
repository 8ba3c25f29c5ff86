#include "properties/failure_sink.h"

#include <cassert>
#include <utility>
#include <variant>

namespace qdt::properties {

std::string partition_label(std::string_view queue, std::string_view partition) {
  std::string out;
  out.reserve(queue.size() + 1 + partition.size());
  return out.append(queue).append("/").append(partition);
}

std::string event_label(const history::History& history, const StepIndex& steps, size_t e, std::string_view own_step) {
  assert(e < history.events.size());
  const history::Event& event = history.events[e];
  std::string step;
  int64_t at_ms = -1;
  if (const auto* push = std::get_if<history::PushEvent>(&event)) {
    step = steps.step_of(*push, 0);
    if (!push->failed) at_ms = push->now_ms;
  } else if (const auto* ack = std::get_if<history::AckEvent>(&event)) {
    step = ack->step;
    at_ms = ack->now_ms;
  } else if (const auto* read = std::get_if<history::ReadEvent>(&event)) {
    step = read->step;
  } else if (!std::holds_alternative<history::FetchEvent>(event)) {
    at_ms = std::visit(
        [](const auto& x) -> int64_t {
          if constexpr (requires { x.now_ms; }) return x.now_ms;
          return -1;
        },
        event);
  }
  if (step == own_step) step.clear();
  return event_label(e, step, at_ms);
}

std::string event_label(size_t e, std::string_view step, int64_t at_ms) {
  std::string out = "event " + std::to_string(e);
  if (step.empty() && at_ms < 0) return out;
  out += " (";
  if (!step.empty()) out.append("step ").append(step).append(at_ms >= 0 ? ", " : "");
  if (at_ms >= 0) out += "at " + std::to_string(at_ms) + " ms";
  return out + ")";
}

FailureSink::FailureSink(std::string property, size_t cap) : property_(std::move(property)), cap_(cap) {
  assert(!property_.empty());
  assert(cap_ > 0);
}

void FailureSink::add(Rule rule, Failure failure) {
  assert(!failure.detail.empty());
  assert(failure.property.empty() && !failure.rule);
  assert(rule_owner(rule) == property_);
  ++count_;
  if (failures_.size() < cap_) {
    failure.property = property_;
    failure.rule = rule;
    failures_.push_back(std::move(failure));
  }
}

std::vector<Failure> FailureSink::take() {
  assert(failures_.size() <= count_);
  if (count_ > failures_.size()) {
    failures_.push_back(Failure{.property = property_,
                                .detail = std::to_string(count_ - failures_.size()) + " more failures of " +
                                          property_ + " not shown (first " + std::to_string(cap_) + " kept)"});
  }
  count_ = 0;
  return std::move(failures_);
}

}  // namespace qdt::properties
