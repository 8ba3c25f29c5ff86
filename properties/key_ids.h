#pragma once
// Every (queue, partition, transactionId) key of one history numbered once:
// the keys of the push frames and of the request items, equal keys sharing
// one dense id. Checkers index their per-key state by id instead of hashing
// and comparing the three strings again in each of their own tables (the
// verdicts, first-wins, window-expiry, retry-convergence and client-visible
// each did, per frame or per item). Only how state is found changes: equal
// ids mean equal keys, and every text still quotes the history's strings.
//
// The history must outlive the ids.
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "model/dense_table.h"
#include "properties/history.h"
#include "properties/key_view.h"

namespace qdt::properties {

class KeyIds {
 public:
  explicit KeyIds(const history::History& history);
  KeyIds(const KeyIds&) = delete;
  KeyIds& operator=(const KeyIds&) = delete;
  // Ids are [0, size()).
  size_t size() const { return keys_.size(); }
  // The keys of the frames of events[e], in frame order (empty for an event
  // that is no push).
  std::span<const uint32_t> frames(size_t e) const {
    assert(e + 1 < frames_start_.size());
    return {frames_.data() + frames_start_[e], frames_start_[e + 1] - frames_start_[e]};
  }
  // Whether `request` is a record of this history's requests.
  bool holds(const history::RequestRecord& request) const {
    const std::vector<history::RequestRecord>& requests = history_.requests;
    return !requests.empty() && &request >= requests.data() && &request < requests.data() + requests.size();
  }
  // The keys of the items of `request`, a record of this history's requests.
  std::span<const uint32_t> items(const history::RequestRecord& request) const;
  // The key of an id (views into the ids' own copy of the characters).
  KeyView key(uint32_t id) const { return KeyView{keys_.text(id, 0), keys_.text(id, 1), keys_.text(id, 2)}; }
  // The id of any key; nullopt when no frame or item of the history has it.
  std::optional<uint32_t> find(const KeyView& key) const;

 private:
  const history::History& history_;
  // Sized once from the history: a node table keyed by three views chased a
  // node and the history's strings per frame and item. Every distinct key's
  // characters are copied once, in numbering order: a hit compares against
  // memory read roughly in order.
  model::DenseTexts<3> keys_;
  std::vector<uint32_t> frames_;       // every push's frame keys, in event order
  std::vector<size_t> frames_start_;   // per event, where its frames begin (one more at the end)
  std::vector<uint32_t> items_;        // every request's item keys, in request order
  std::vector<size_t> items_start_;    // per request, where its items begin (one more at the end)
};

// A key within one request (frames and items of it), by id.
struct RequestKeyId {
  uint64_t request = 0;
  uint32_t key = 0;
  bool operator==(const RequestKeyId&) const = default;
};

struct RequestKeyIdHash {
  size_t operator()(const RequestKeyId& k) const {
    return (k.request * 0x9e3779b97f4a7c15ULL) ^ (static_cast<uint64_t>(k.key) * 0xc2b2ae3d27d4eb4fULL);
  }
};

}  // namespace qdt::properties
