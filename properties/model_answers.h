#pragma once
// The model's answers beside the system's, for a person reading a run (the
// replay report) as much as for model-agreement, which judges with the same
// functions so the two can never disagree about what the model said:
// - per push event, the verdict model::Partition::probe gives the event's
//   frames at its storage time and window, the model following storage
//   (properties/model_follower.h) up to that event;
// - per answered item of a delivered request, what its frame's final verdict
//   implies (properties/verdicts.h) and what the producer actually received.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "model/model.h"
#include "properties/history.h"
#include "properties/model_follower.h"
#include "properties/verdicts.h"

namespace qdt::properties {

// What the model answers `push` (not failed, with frames) given everything
// `follower` has applied so far.
model::PushAnswer model_probe(const ModelFollower& follower, const history::PushEvent& push);

// "[frame 0 repeats offset 0, frame 1 repeats offset 1]", or "naming no
// original".
std::string describe_duplicates(const std::vector<std::pair<uint32_t, int64_t>>& duplicates);

// "queued from offset 2" or "duplicate [frame 0 repeats offset 0]".
std::string describe_push_answer(bool queued, int64_t base_offset,
                                 const std::vector<std::pair<uint32_t, int64_t>>& duplicates);

struct PushVerdict {
  size_t event = 0;  // index into History::events
  std::string model;    // describe_push_answer of the model's answer
  std::string storage;  // and of storage's
  bool agrees = false;
};

// One entry per push event that committed or decided something (failed
// events and empty pushes are not answers), in event order.
std::vector<PushVerdict> push_verdicts(const history::History& history);

struct ItemAnswer {
  uint64_t request = 0;
  std::string step;
  size_t item = 0;
  std::string queue, partition, transaction_id;
  history::ResponseItem got;  // what the producer received for this delivery
  Expected want;              // what the model's verdicts allow
  bool transaction_mismatch = false;  // the response names another key than the item sent
  // Filled by item_answers(History) only, when request times were recorded:
  // what the model answers this key alone when the request reached the
  // broker (every event committed before then applied), e.g. "queued: no
  // message of key a within the 60 s window" — the answer a person expects
  // even when no storage event exists to derive a verdict from.
  std::string model_on_arrival;
  bool agrees() const { return !transaction_mismatch && want.accepts(got); }
};

// Answers of one request, [] when it carries nothing to judge (rejected,
// lost, lost in a crash, or with a response count unlike its item count).
std::vector<ItemAnswer> item_answers(const Verdicts& verdicts, const history::RequestRecord& request);

// Every request's item answers, in request order, with model_on_arrival.
std::vector<ItemAnswer> item_answers(const history::History& history);

}  // namespace qdt::properties
