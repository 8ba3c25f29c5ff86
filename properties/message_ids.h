#pragma once
// Every message id of one history numbered once: the ids of the push frames,
// of the producers' responses and of the final reads, equal ids sharing one
// dense number. Checkers index per-id state by number instead of hashing and
// comparing the 36-character strings again in their own node tables (the
// replay's locations, partition-scope, retry-convergence and client-visible
// each did, per frame or per response): those tables were memory-bound.
// Equal numbers mean equal ids; every text still quotes the history's strings.
//
// The table is a model::DenseTexts: a lookup touches one slot and compares
// characters only when the stored tags agree.
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "model/dense_table.h"
#include "properties/history.h"

namespace qdt::properties {

class MessageIds {
 public:
  explicit MessageIds(const history::History& history);
  MessageIds(const MessageIds&) = delete;
  MessageIds& operator=(const MessageIds&) = delete;
  // Numbers are [0, size()).
  size_t size() const { return ids_.size(); }
  std::string_view text(uint32_t id) const { return ids_.text(id); }
  // The ids of the frames of events[e], in frame order (empty for an event that is no push).
  std::span<const uint32_t> frames(size_t e) const { return part(frames_, frames_start_, e); }
  // The ids of the responses of requests[r], in response order.
  std::span<const uint32_t> responses(size_t r) const { return part(responses_, responses_start_, r); }
  // The ids of the messages of final_reads[f], in message order.
  std::span<const uint32_t> final_read(size_t f) const { return part(final_reads_, final_reads_start_, f); }
  // Where the id numbered `id` is in the final reads: final_reads[read].messages[message], in read order.
  struct ReadCopy {
    uint32_t read = 0;
    uint32_t message = 0;
  };
  std::span<const ReadCopy> final_copies(uint32_t id) const;
  // The number of any id; nullopt when no frame, response or final read has it.
  std::optional<uint32_t> find(std::string_view id) const;

 private:
  static std::span<const uint32_t> part(const std::vector<uint32_t>& all, const std::vector<size_t>& start, size_t i) {
    assert(i + 1 < start.size());
    return {all.data() + start[i], start[i + 1] - start[i]};
  }
  uint32_t number(std::string_view id) { return ids_.insert({id}).first; }

  // Every distinct id's characters, in numbering order, copied once: a
  // lookup that hits compares against this copy, read roughly in order,
  // instead of a string somewhere in the history's heap.
  model::DenseTexts<1> ids_;
  std::vector<uint32_t> frames_;
  std::vector<size_t> frames_start_;  // per event, where its frames begin (one more at the end)
  std::vector<uint32_t> responses_;
  std::vector<size_t> responses_start_;  // per request
  std::vector<uint32_t> final_reads_;
  std::vector<size_t> final_reads_start_;  // per final read
  // final_copies(), grouped by number on first use: [copies_start_[n], copies_start_[n + 1]).
  mutable std::vector<uint32_t> copies_start_;
  mutable std::vector<ReadCopy> copies_;
};

}  // namespace qdt::properties
