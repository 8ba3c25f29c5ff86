#pragma once
// Test-only: builds histories the way a correct broker and storage would
// record them (docs/semantics.md §2.4-§2.10), so that a test starts from a clean history and
// breaks exactly one thing in it. Ids are short ("m1", "m2", ...); the
// checkers never parse them.
#include <cstdint>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "model/model.h"
#include "properties/checkers.h"
#include "properties/history.h"

namespace qdt::properties::testing {

struct Item {
  std::string queue;
  std::string partition;
  std::string transaction_id;
};

// The storage transactions a test can make fail (docs/semantics.md §8): a failed one
// commits nothing and is recorded with `failed` and a FaultRecord.
enum class Txn { push, fetch, ack, read, purge, retention };

// One request of a fused flush (layer 2, docs/semantics.md §2.5).
struct FusedRequest {
  std::string step;
  std::vector<Item> items;
  bool redelivery = false;  // a second delivery of the previous request's attempt (same push)
};

// Besides events and requests the builder records what the sim's recorder
// records at the end of a run: one PushOutcomeRecord per logical push, a
// final read of every partition, and request times (all kept current after
// every call, so a test may break any of them).
class HistoryBuilder {
 public:
  HistoryBuilder();
  HistoryBuilder& advance_ms(int64_t ms);
  HistoryBuilder& advance_seconds(int64_t seconds) { return advance_ms(seconds * 1000); }
  HistoryBuilder& configure(const std::string& queue, int64_t window_seconds, int64_t completed_retention_seconds = 0,
                            int64_t retention_seconds = 0);

  // One request through a correct broker: layer-1 first-wins, one segment per
  // partition (in order of first appearance), duplicate rounds until every
  // frame has a verdict, a covering-segment fetch per duplicate. Request ids
  // count from 1 in push order.
  HistoryBuilder& push(const std::string& step, const std::vector<Item>& items, uint32_t broker = 0);
  // Producer retries (docs/semantics.md §2.12), each a new request of the push of `step`'s
  // latest record: retry() is the next attempt, redeliver() a second delivery
  // of the same attempt (the network duplicated it). Both go through the
  // correct broker with fresh message ids.
  HistoryBuilder& retry(const std::string& step, uint32_t broker = 0);
  HistoryBuilder& redeliver(const std::string& step, uint32_t broker = 0);
  // Attempt 0 of a new push, lost on the way: the broker never sees it.
  HistoryBuilder& push_lost(const std::string& step, const std::vector<Item>& items);
  // The latest record's response never reached the producer (lost, or late).
  HistoryBuilder& lose_response();
  // Several requests delivered to one broker at once, whose frames are fused
  // into one segment per partition: the first frame of each key leads, a
  // later request's item of that key follows it (a FollowerRecord on the
  // segment's first push) and answers what the leader finally answers.
  HistoryBuilder& fuse(const std::vector<FusedRequest>& requests, uint32_t broker = 0);
  // All items in one partition.
  HistoryBuilder& push(const std::string& step, const std::string& queue, const std::string& partition,
                const std::vector<std::string>& transaction_ids, uint32_t broker = 0);
  // A broken storage: queues the segment without looking for duplicates.
  HistoryBuilder& push_unprobed(const std::string& step, const std::string& queue, const std::string& partition,
                         const std::vector<std::string>& transaction_ids);
  // The next `count` storage pushes fail whole.
  HistoryBuilder& fail_pushes(int count) { return fail(Txn::push, count); }
  // The next `count` storage transactions of that kind fail.
  HistoryBuilder& fail(Txn kind, int count = 1);
  // Fault: removes the segment covering `offset`, leaving its sidecar row.
  HistoryBuilder& delete_segment(const std::string& queue, const std::string& partition, int64_t offset);
  // The run's first power loss, on storage with synchronous off: every commit
  // and queue setting is gone (properties/power_loss.h) and nothing recovered.
  HistoryBuilder& power_loss_off();
  // One purge step removing the first `batch` sidecar rows older than the floor.
  HistoryBuilder& purge(const std::string& queue, const std::string& partition, int64_t batch = 1000);
  // One retention pass over every partition of `queue` (a RetentionEvent each).
  HistoryBuilder& retention(const std::string& queue);
  HistoryBuilder& ack(const std::string& step, const std::string& queue, const std::string& partition,
                      const std::string& transaction_id, const std::string& group = "group");
  HistoryBuilder& read(const std::string& step, const std::string& queue, const std::string& partition,
                       int64_t from = 0, int64_t limit = 0);

  int64_t now_ms() const { return now_ms_; }
  const model::Model& model() const { return model_; }
  history::History& history() { return history_; }

 private:
  struct Attempt {
    std::string step;
    std::vector<Item> items;
    uint64_t push_id = 0;
    uint32_t attempt = 0;
  };
  struct Pending {
    history::FrameRecord frame;
    std::string status;
    std::string message_id;
  };
  using PartitionKey = std::pair<std::string, std::string>;
  void push_partition(const PartitionKey& key, std::vector<Pending*>& group, uint32_t broker,
                      std::vector<history::FollowerRecord> followers);
  HistoryBuilder& push_attempts(const std::vector<Attempt>& attempts, uint32_t broker);
  const history::RequestRecord& latest(const std::string& step) const;
  std::string next_id() { return "m" + std::to_string(++ids_); }
  history::PartitionFingerprint fingerprint(const PartitionKey& key);
  bool take_failure(Txn kind);
  void refresh_outcome(uint64_t push_id);
  void refresh_final_reads();

  history::History history_;
  model::Model model_;
  std::map<Txn, int> fail_pending_;
  std::map<uint64_t, size_t> outcome_index_;  // push id -> index in history_.outcomes
  int64_t now_ms_ = 1'000'000;
  uint64_t requests_ = 0;
  uint64_t pushes_ = 0;
  std::map<uint64_t, std::vector<Item>> push_items_;  // push id -> the items every attempt sends
  uint64_t ids_ = 0;
};

// The n-th (0-based) event of type E in the history.
template <class E>
E& nth(history::History& h, size_t n = 0) {
  for (history::Event& e : h.events) {
    if (auto* x = std::get_if<E>(&e)) {
      if (n-- == 0) return *x;
    }
  }
  throw std::out_of_range("no such event");
}

// The n-th (0-based) push event that answered duplicate.
history::PushEvent& nth_duplicate_push(history::History& h, size_t n = 0);
history::RequestRecord& request(history::History& h, const std::string& step);

// True when some failure has this property, step and partition.
bool has_failure(const std::vector<Failure>& failures, const std::string& property, const std::string& step,
                 const std::string& partition);
// Whether some failure broke `rule`. A rule found is recorded: the
// properties suite, run whole, fails unless every property's rule was found
// by some test (failure_rules_test.cpp).
bool has_rule(const std::vector<Failure>& failures, Rule rule);
// The rules has_rule found so far in this process.
const std::set<Rule>& rules_found();
// Printable, for assertion messages.
std::string show(const std::vector<Failure>& failures);
// Whether some failure's detail contains `text`.
bool detail_has(const std::vector<Failure>& failures, const std::string& text);

}  // namespace qdt::properties::testing
