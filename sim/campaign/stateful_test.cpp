// RapidCheck stateful suite (STYLE "Learned from RapidCheck"): random command
// sequences run against a real Broker pair sharing one in-memory Storage, with
// latency-free ports and a fixed clock, and against the executable
// specification (model::Model). Every push item's verdict and id, every
// segment deletion, retention pass and ack is compared with the model.
//
// The model cannot know the ids the brokers mint (their random bits are the
// system's choice), so it predicts *which* id an item must carry: a fresh one
// landing at (queue, partition, offset), the id answered earlier for an
// original offset, or the zero id. The ids actually answered are recorded by
// run() in the System's id book, which later checks read.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>  // after gtest.h: it uses ::testing
#include <rapidcheck/state.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "impl/broker/broker.h"
#include "impl/broker/ports.h"
#include "impl/storage/sqlite/storage.h"
#include "impl/uuid.h"
#include "model/model.h"
#include "sim/base/rng.h"
#include "sim/campaign/workload_gen_test.h"

namespace qdt::sim {
namespace {

namespace wg = workload_gen;
using PartitionKey = std::pair<std::string, std::string>;  // (queue, partition)
using OffsetKey = std::tuple<std::string, std::string, int64_t>;

constexpr int64_t kStartMs = 1'767'225'600'000;  // 2026-01-01T00:00:00Z
constexpr int64_t kPurgeBatch = 2;               // small, so a purge takes several steps

// ---------------------------------------------------------------------------
// The model: model::Model plus what it needs around it.

struct SegmentSpan {
  int64_t base = 0;
  int64_t end = 0;
  int64_t created_at_ms = 0;
  bool present = true;
};

struct State {
  model::Model model;
  int64_t now_ms = kStartMs;
  bool dedup_off = false;  // the window-0 property: every queue stays at 0
  // Segment boundaries, which model::Partition does not keep: a queued push is
  // one segment, so deletions and retention can be predicted span by span.
  // The keys are exactly the partitions storage has created.
  std::map<PartitionKey, std::vector<SegmentSpan>> segments;

  model::QueueOptions options(const std::string& queue) const { return model.options(queue); }
};

// What one push item must answer.
struct Expected {
  std::string status;             // queued | duplicate
  size_t leader = 0;              // the item whose frame decides (itself when it leads)
  int64_t fresh_offset = -1;      // queued leader: where its frame lands
  int64_t original_offset = -1;   // duplicate leader: the original, when its segment is present
  bool zero = false;              // duplicate leader whose original's segment is gone
};

// The broker's push path as the model sees it: layer-1 leaders, one segment per
// partition in first-appearance order, and the duplicate loop (a duplicate
// answer writes nothing; the survivors are pushed again). Mutates `s`.
std::vector<Expected> emulate_push(State& s, const std::vector<wg::Item>& items) {
  std::vector<model::ItemKey> keys;
  for (const auto& it : items) keys.push_back({it.queue, it.partition, it.transaction_id});
  const std::vector<size_t> leaders = model::request_leaders(keys);
  std::vector<Expected> out(items.size());

  std::vector<PartitionKey> order;
  std::map<PartitionKey, std::vector<size_t>> by_partition;  // leader items
  for (size_t i = 0; i < items.size(); ++i) {
    if (leaders[i] != i) continue;
    const PartitionKey pk{items[i].queue, items[i].partition};
    auto [it, inserted] = by_partition.try_emplace(pk);
    if (inserted) order.push_back(pk);
    it->second.push_back(i);
  }
  for (const PartitionKey& pk : order) {
    auto& spans = s.segments[pk];  // storage creates the partition on the first push
    model::Partition& part = s.model.partition(pk.first, pk.second);
    const int64_t window = s.options(pk.first).window_seconds;
    std::vector<size_t> remaining = by_partition[pk];
    while (!remaining.empty()) {
      std::vector<model::Frame> frames;
      for (size_t i : remaining) frames.push_back({"", items[i].transaction_id});
      const model::PushAnswer answer = part.push(frames, s.now_ms, window);
      if (answer.queued) {
        for (size_t k = 0; k < remaining.size(); ++k) {
          Expected& e = out[remaining[k]];
          e.status = "queued";
          e.leader = remaining[k];
          e.fresh_offset = answer.base_offset + static_cast<int64_t>(k);
        }
        spans.push_back({answer.base_offset, answer.base_offset + static_cast<int64_t>(remaining.size()) - 1,
                         s.now_ms, true});
        break;
      }
      std::vector<bool> settled(remaining.size(), false);
      for (const auto& [frame_index, offset] : answer.duplicates) {
        settled[frame_index] = true;
        Expected& e = out[remaining[frame_index]];
        e.status = "duplicate";
        e.leader = remaining[frame_index];
        if (part.resolve_id(offset) == model::kZeroId) {
          e.zero = true;
        } else {
          e.original_offset = offset;
        }
      }
      std::vector<size_t> survivors;
      for (size_t k = 0; k < remaining.size(); ++k) {
        if (!settled[k]) survivors.push_back(remaining[k]);
      }
      remaining = std::move(survivors);
    }
  }
  for (size_t i = 0; i < items.size(); ++i) {
    if (leaders[i] == i) continue;
    out[i] = out[leaders[i]];
    out[i].status = "duplicate";  // a follower is never written itself
    out[i].leader = leaders[i];
  }
  return out;
}

// Segments older than retentionSeconds (when > 0) go; returns their spans in
// offset order. Mutates `s`.
std::vector<SegmentSpan> emulate_expiry(State& s, const PartitionKey& pk) {
  std::vector<SegmentSpan> deleted;
  const int64_t retention = s.options(pk.first).retention_seconds;
  if (retention <= 0) return deleted;
  for (SegmentSpan& span : s.segments[pk]) {
    if (span.present && span.created_at_ms < s.now_ms - retention * 1000) {
      span.present = false;
      deleted.push_back(span);
      s.model.partition(pk.first, pk.second).delete_segment(span.base, span.end);
    }
  }
  return deleted;
}

// Offsets whose sidecar rows the purge removes (created_at < now - floor). Mutates `s`.
std::vector<int64_t> emulate_purge(State& s, const PartitionKey& pk) {
  model::Partition& part = s.model.partition(pk.first, pk.second);
  const int64_t cutoff = s.now_ms - s.model.sidecar_floor_seconds(pk.first) * 1000;
  std::vector<int64_t> offsets;
  for (const model::Message& m : part.messages()) {
    if (m.sidecar_present && m.created_at_ms < cutoff) offsets.push_back(m.offset);
  }
  const size_t purged = part.purge(s.now_ms, s.model.sidecar_floor_seconds(pk.first));
  RC_ASSERT(purged == offsets.size());
  return offsets;
}

int64_t first_sidecar_offset(const model::Partition& part) {
  for (const model::Message& m : part.messages()) {
    if (m.sidecar_present) return m.offset;
  }
  return part.last_offset() + 1;
}

// ---------------------------------------------------------------------------
// The system: real brokers and storage, latency-free ports.

// One clock for the brokers and for storage (overrides both now_ms()); it
// follows the model's now.
struct FixedClock : impl::BrokerClock, impl::StorageClock {
  int64_t now = kStartMs;
  int64_t now_ms() override { return now; }
};

struct SeededRandom : impl::RandomSource {
  Rng rng;
  explicit SeededRandom(uint64_t seed) : rng(seed) {}
  uint64_t next_u64() override { return rng.next(); }
};

struct DirectStorage : impl::StoragePort {
  impl::Storage& storage;
  FixedClock& clock;
  DirectStorage(impl::Storage& s, FixedClock& c) : storage(s), clock(c) {}
  impl::PushResult push(const impl::SegmentPush& segment) override { return storage.push(segment); }
  std::optional<impl::CoveringSegment> covering_segment(const std::string& q, const std::string& p,
                                                        int64_t offset) override {
    return storage.covering_segment(q, p, offset);
  }
};

struct System {
  FixedClock clock;
  impl::Storage storage{clock, {.purge_batch = kPurgeBatch}};
  DirectStorage port{storage, clock};
  SeededRandom random0;
  SeededRandom random1;
  impl::Broker broker0{0, clock, random0, port};
  impl::Broker broker1{1, clock, random1, port};
  uint64_t next_request = 1;
  // The id book: what the system answered for each queued frame.
  std::map<OffsetKey, std::string> answered;
  std::set<std::string> all_ids;

  explicit System(uint64_t seed) : random0(seed), random1(seed ^ 0x5bd1e995u) {}
  impl::Broker& broker(int index) { return index == 0 ? broker0 : broker1; }
};

using Command = rc::state::Command<State, System>;

std::string show_items(const std::vector<wg::Item>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ", ";
    out += items[i].queue + "/" + items[i].partition + "/" + items[i].transaction_id;
  }
  return out + "]";
}

// ---------------------------------------------------------------------------
// Commands.

struct Push : Command {
  std::vector<wg::Item> items = *wg::request();
  int broker = *rc::gen::inRange(0, 2);

  void apply(State& s) const override { emulate_push(s, items); }

  void run(const State& s0, System& sys) const override {
    State next = s0;
    const std::vector<Expected> expected = emulate_push(next, items);

    nlohmann::json request = nlohmann::json::array();
    for (size_t i = 0; i < items.size(); ++i) {
      request.push_back({{"queue", items[i].queue},
                         {"partition", items[i].partition},
                         {"transactionId", items[i].transaction_id},
                         {"data", {{"n", i}}}});
    }
    const impl::PushResponse response = sys.broker(broker).push(request, sys.next_request++);
    RC_ASSERT(!response.rejected);
    RC_ASSERT(response.items.size() == items.size());

    // Leaders first: queued ones mint fresh ids that enter the book.
    for (size_t i = 0; i < items.size(); ++i) {
      const Expected& e = expected[i];
      const impl::ItemResponse& r = response.items[i];
      RC_ASSERT(r.transaction_id == items[i].transaction_id);
      RC_ASSERT(r.queue == items[i].queue);
      if (e.leader != i) continue;
      if (s0.options(items[i].queue).window_seconds == 0) {
        RC_ASSERT(r.status == impl::ItemStatus::queued);  // dedup off: every frame is queued
      }
      RC_ASSERT(impl::status_name(r.status) == e.status);
      if (e.status == "queued") {
        RC_ASSERT(r.message_id != std::string(model::kZeroId));
        RC_ASSERT(impl::parse_uuid(r.message_id).has_value());
        RC_ASSERT(sys.all_ids.insert(r.message_id).second);  // fresh: never answered before
        sys.answered[{items[i].queue, items[i].partition, e.fresh_offset}] = r.message_id;
      } else if (e.zero) {
        RC_ASSERT(r.message_id == std::string(model::kZeroId));
      } else {
        const auto original = sys.answered.find({items[i].queue, items[i].partition, e.original_offset});
        RC_ASSERT(original != sys.answered.end());
        RC_ASSERT(r.message_id == original->second);
      }
    }
    // Followers echo their leader's final id.
    for (size_t i = 0; i < items.size(); ++i) {
      if (expected[i].leader == i) continue;
      RC_ASSERT(response.items[i].status == impl::ItemStatus::duplicate);
      RC_ASSERT(response.items[i].message_id == response.items[expected[i].leader].message_id);
    }
    // Nothing else moved: offsets and stored counts agree per touched partition.
    for (const auto& item : items) {
      const impl::PartitionState state = sys.storage.partition_state(item.queue, item.partition);
      const model::Partition* part = next.model.find(item.queue, item.partition);
      RC_ASSERT(part != nullptr);
      RC_ASSERT(state.exists);
      RC_ASSERT(state.last_offset == part->last_offset());
      RC_ASSERT(sys.storage.stored_messages(item.queue, item.partition) == static_cast<int64_t>(part->stored()));
    }
  }

  void show(std::ostream& os) const override { os << "Push via broker " << broker << " " << show_items(items); }
};

struct Advance : Command {
  int64_t ms;
  explicit Advance(const State& s) : ms(*wg::advance_ms(ages(s))) {}

  static std::vector<int64_t> ages(const State& s) {
    std::vector<int64_t> out;
    for (const auto& q : wg::queues()) {
      out.push_back(s.options(q).window_seconds);
      out.push_back(s.options(q).retention_seconds);
    }
    return out;
  }

  void apply(State& s) const override { s.now_ms += ms; }
  void run(const State& s0, System& sys) const override {
    RC_ASSERT(sys.clock.now == s0.now_ms);
    sys.clock.now = s0.now_ms + ms;
  }
  void show(std::ostream& os) const override { os << "Advance " << ms << " ms"; }
};

struct Configure : Command {
  std::string queue = *wg::queue();
  int64_t window;
  int64_t retention = *wg::retention_seconds();
  explicit Configure(const State& s) : window(s.dedup_off ? 0 : *wg::window_seconds()) {}

  model::QueueOptions options() const { return {window, retention, 0}; }
  void checkPreconditions(const State& s0) const override { RC_PRE(!s0.dedup_off || window == 0); }
  void apply(State& s) const override { s.model.configure(queue, options()); }
  void run(const State&, System& sys) const override {
    const impl::QueueOptions o{window, retention, 0};
    sys.storage.set_options(queue, o);
    RC_ASSERT(sys.storage.options(queue) == o);
  }
  void show(std::ostream& os) const override {
    os << "Configure " << queue << " dedupWindowSeconds=" << window << " retentionSeconds=" << retention;
  }
};

struct DeleteSegment : Command {
  std::string queue;
  std::string partition;
  int64_t offset = -1;

  explicit DeleteSegment(const State& s) {
    std::vector<PartitionKey> written;
    for (const auto& [pk, spans] : s.segments) {
      if (!spans.empty()) written.push_back(pk);
    }
    if (written.empty()) return;  // nothing to delete yet: discarded by the precondition
    const PartitionKey pk = *rc::gen::elementOf(written);
    queue = pk.first;
    partition = pk.second;
    offset = *rc::gen::inRange<int64_t>(0, s.segments.at(pk).back().end + 1);
  }

  static const SegmentSpan* covering(const State& s, const PartitionKey& pk, int64_t offset) {
    auto it = s.segments.find(pk);
    if (it == s.segments.end()) return nullptr;
    for (const SegmentSpan& span : it->second) {
      if (span.base <= offset && offset <= span.end) return span.present ? &span : nullptr;
    }
    return nullptr;
  }

  void checkPreconditions(const State& s0) const override {
    RC_PRE(offset >= 0);
    const model::Partition* part = s0.model.find(queue, partition);
    // Two checks: RC_PRE's expression capture overloads &&, which would not short-circuit.
    RC_PRE(part != nullptr);
    RC_PRE(offset <= part->last_offset());
  }
  void apply(State& s) const override {
    const SegmentSpan* span = covering(s, {queue, partition}, offset);
    if (span == nullptr) return;
    for (SegmentSpan& sp : s.segments[{queue, partition}]) {
      if (sp.base == span->base) sp.present = false;
    }
    s.model.partition(queue, partition).delete_segment(span->base, span->end);
  }
  void run(const State& s0, System& sys) const override {
    const SegmentSpan* want = covering(s0, {queue, partition}, offset);
    const auto got = sys.storage.delete_segment(queue, partition, offset);
    RC_ASSERT(got.has_value() == (want != nullptr));
    if (got) {
      RC_ASSERT(got->base_offset == want->base);
      RC_ASSERT(got->end_offset == want->end);
      RC_ASSERT(got->created_at_ms == want->created_at_ms);
    }
  }
  void show(std::ostream& os) const override {
    os << "DeleteSegment " << queue << "/" << partition << " covering offset " << offset;
  }
};

struct Retention : Command {
  void apply(State& s) const override {
    std::vector<PartitionKey> keys;
    for (const auto& entry : s.segments) keys.push_back(entry.first);
    for (const PartitionKey& pk : keys) {
      emulate_expiry(s, pk);
      emulate_purge(s, pk);
    }
  }

  void run(const State& s0, System& sys) const override {
    State next = s0;
    std::vector<PartitionKey> keys;
    for (const auto& entry : s0.segments) keys.push_back(entry.first);
    RC_ASSERT(sys.storage.partitions(std::nullopt) == keys);
    for (const PartitionKey& pk : keys) {
      const std::vector<SegmentSpan> want_deleted = emulate_expiry(next, pk);
      const auto deleted = sys.storage.delete_expired_segments(pk.first, pk.second).deleted;
      RC_ASSERT(deleted.size() == want_deleted.size());
      for (size_t i = 0; i < deleted.size(); ++i) {
        RC_ASSERT(deleted[i].base_offset == want_deleted[i].base);
        RC_ASSERT(deleted[i].end_offset == want_deleted[i].end);
      }

      const std::vector<int64_t> want_purged = emulate_purge(next, pk);
      std::vector<int64_t> purged;
      impl::PurgeStep step;
      int steps = 0;
      do {
        RC_ASSERT(++steps < 10'000);
        step = sys.storage.purge_step(pk.first, pk.second);
        RC_ASSERT(static_cast<int64_t>(step.rows.size()) <= kPurgeBatch);
        RC_ASSERT(step.floor_seconds == next.model.sidecar_floor_seconds(pk.first));
        for (const impl::SegmentSpan& row : step.rows) {
          for (int64_t o = row.base_offset; o <= row.end_offset; ++o) purged.push_back(o);
        }
      } while (step.more);
      std::sort(purged.begin(), purged.end());
      RC_ASSERT(purged == want_purged);
      const model::Partition* part = next.model.find(pk.first, pk.second);
      RC_ASSERT(part != nullptr);
      RC_ASSERT(step.txns_start_after == first_sidecar_offset(*part));
      RC_ASSERT(sys.storage.stored_messages(pk.first, pk.second) == static_cast<int64_t>(part->stored()));
    }
  }

  void show(std::ostream& os) const override { os << "Retention"; }
};

struct Ack : Command {
  std::string queue = *wg::queue();
  std::string partition = *wg::partition();
  std::string key = *wg::key();

  void run(const State& s0, System& sys) const override {
    const model::Partition* part = s0.model.find(queue, partition);
    const model::AckAnswer want = part != nullptr ? part->ack(key) : model::AckAnswer{};
    const impl::AckResult got = sys.storage.ack(queue, partition, key, "g");
    RC_ASSERT(got.acked == want.acked);  // acked or unresolvable, never a silent success
    if (!got.acked) return;
    RC_ASSERT(got.offset == want.offset);
    if (want.message_id == model::kZeroId) {
      RC_ASSERT(!got.message_id.has_value());
    } else {
      RC_ASSERT(got.message_id.has_value());
      const auto original = sys.answered.find({queue, partition, want.offset});
      RC_ASSERT(original != sys.answered.end());
      RC_ASSERT(impl::to_string(*got.message_id) == original->second);
    }
  }
  void show(std::ostream& os) const override { os << "Ack " << queue << "/" << partition << "/" << key; }
};

// Pushes are listed twice so that they make up about a third of a sequence.
auto commands() {
  return rc::state::gen::execOneOfWithArgs<Push, Push, Advance, Configure, DeleteSegment, Retention, Ack>();
}

RC_GTEST_PROP(Stateful, BrokerAndStorageAgreeWithTheModel, ()) {
  const auto seed = *rc::gen::arbitrary<uint64_t>().as("random seed");
  State initial;
  System sys(seed);
  rc::state::check(initial, sys, commands());
}

RC_GTEST_PROP(Stateful, WindowZeroQueuesEveryFrame, ()) {
  const auto seed = *rc::gen::arbitrary<uint64_t>().as("random seed");
  State initial;
  initial.dedup_off = true;
  System sys(seed);
  for (const auto& q : wg::queues()) {
    initial.model.configure(q, {0, 0, 0});
    sys.storage.set_options(q, impl::QueueOptions{0, 0, 0});
  }
  // Push::run asserts that every frame is queued while its queue's window is 0.
  rc::state::check(initial, sys, commands());
}

}  // namespace
}  // namespace qdt::sim
