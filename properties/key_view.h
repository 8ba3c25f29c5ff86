#pragma once
// (queue, partition, transactionId) as views into a history, hashed: the key
// checkers index stored messages by. Hashing three views costs no allocation
// and no ordered string comparisons, which std::map over string tuples did
// per event. The history must outlive every KeyView made from it.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>

namespace qdt::properties {

struct KeyView {
  std::string_view queue;
  std::string_view partition;
  std::string_view txn;
  bool operator==(const KeyView&) const = default;
};

struct KeyViewHash {
  size_t operator()(const KeyView& k) const {
    const std::hash<std::string_view> h;
    size_t out = h(k.queue);
    out = out * 0x9e3779b97f4a7c15ULL + h(k.partition);
    return out * 0x9e3779b97f4a7c15ULL + h(k.txn);
  }
};

// (queue, partition) as views into a history: what per-partition state is
// kept by, hashed instead of ordered (a std::map over string pairs copied
// both strings per lookup).
struct PartitionView {
  std::string_view queue;
  std::string_view partition;
  bool operator==(const PartitionView&) const = default;
};

struct PartitionViewHash {
  size_t operator()(const PartitionView& p) const {
    const std::hash<std::string_view> h;
    return h(p.queue) * 0x9e3779b97f4a7c15ULL + h(p.partition);
  }
};

// A key within one request (frames and items of it).
struct RequestKey {
  uint64_t request = 0;
  KeyView key;
  bool operator==(const RequestKey&) const = default;
};

struct RequestKeyHash {
  size_t operator()(const RequestKey& k) const { return KeyViewHash{}(k.key) * 0x9e3779b97f4a7c15ULL + k.request; }
};

// A read message's identity: its id, partition and key (views into the history).
struct ReadKey {
  std::string_view id;
  KeyView key;
  bool operator==(const ReadKey&) const = default;
};

// Ids are unique in a correct run: hashing the id alone spreads the keys, and
// equality still compares partition and key.
struct ReadKeyHash {
  size_t operator()(const ReadKey& k) const { return std::hash<std::string_view>{}(k.id); }
};

}  // namespace qdt::properties
