#include "properties/message_ids.h"

#include <variant>

namespace qdt::properties {

MessageIds::MessageIds(const history::History& history) {
  size_t frames = 0;
  size_t responses = 0;
  size_t reads = 0;
  size_t characters = 0;  // of every id numbered, an upper bound of the distinct ones'
  for (const history::Event& event : history.events) {
    const auto* push = std::get_if<history::PushEvent>(&event);
    if (push == nullptr) continue;
    frames += push->frames.size();
    for (const history::FrameRecord& f : push->frames) characters += f.message_id.size();
  }
  for (const history::RequestRecord& r : history.requests) {
    responses += r.responses.size();
    for (const history::ResponseItem& got : r.responses) characters += got.message_id.size();
  }
  for (const history::FinalRead& read : history.final_reads) {
    reads += read.messages.size();
    for (const history::ReadMessage& m : read.messages) characters += m.message_id.size();
  }
  // Most responses and final reads repeat a frame's id: the frames bound the
  // distinct ids of a correct run; a broken one may grow the table.
  ids_.reserve(frames + 8, characters);

  frames_.reserve(frames);
  frames_start_.reserve(history.events.size() + 1);
  for (const history::Event& event : history.events) {
    frames_start_.push_back(frames_.size());
    const auto* push = std::get_if<history::PushEvent>(&event);
    if (push == nullptr) continue;
    for (const history::FrameRecord& f : push->frames) frames_.push_back(number(f.message_id));
  }
  frames_start_.push_back(frames_.size());
  responses_.reserve(responses);
  responses_start_.reserve(history.requests.size() + 1);
  for (const history::RequestRecord& r : history.requests) {
    responses_start_.push_back(responses_.size());
    for (const history::ResponseItem& got : r.responses) responses_.push_back(number(got.message_id));
  }
  responses_start_.push_back(responses_.size());
  final_reads_.reserve(reads);
  final_reads_start_.reserve(history.final_reads.size() + 1);
  for (const history::FinalRead& read : history.final_reads) {
    final_reads_start_.push_back(final_reads_.size());
    for (const history::ReadMessage& m : read.messages) final_reads_.push_back(number(m.message_id));
  }
  final_reads_start_.push_back(final_reads_.size());
}

std::span<const MessageIds::ReadCopy> MessageIds::final_copies(uint32_t id) const {
  assert(id < size());
  if (copies_start_.empty()) {  // counted, summed, then filled: each group keeps the read order
    copies_start_.assign(size() + 1, 0);
    for (uint32_t n : final_reads_) ++copies_start_[n + 1];
    for (size_t n = 0; n < size(); ++n) copies_start_[n + 1] += copies_start_[n];
    copies_.resize(final_reads_.size());
    std::vector<uint32_t> next(copies_start_.begin(), copies_start_.end() - 1);
    for (size_t f = 0; f + 1 < final_reads_start_.size(); ++f) {
      const size_t first = final_reads_start_[f];
      for (size_t j = first; j < final_reads_start_[f + 1]; ++j) {
        copies_[next[final_reads_[j]]++] = ReadCopy{static_cast<uint32_t>(f), static_cast<uint32_t>(j - first)};
      }
    }
  }
  return {copies_.data() + copies_start_[id], copies_start_[id + 1] - copies_start_[id]};
}

std::optional<uint32_t> MessageIds::find(std::string_view id) const { return ids_.find({id}); }

}  // namespace qdt::properties
