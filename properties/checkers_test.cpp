#include "properties/checkers.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <regex>
#include <set>
#include <stdexcept>
#include <tuple>

#include "properties/failure_sink.h"
#include "properties/history_builder_test.h"

namespace qdt::properties {
namespace {

using testing::HistoryBuilder;
using testing::Item;
using testing::show;

TEST(Checkers, NamesEveryPropertyInOrder) {
  const std::vector<std::string> want = {"model-agreement", "no-double-write", "no-false-duplicate",
                                         "duplicate-id",    "partition-scope", "first-wins",
                                         "nothing-written-on-duplicate",       "offsets",
                                         "dedup-off",       "ack-resolution",  "retry-convergence",
                                         "window-expiry", "cache-transparency", "retention-model",
                                         "sidecar-floor", "client-visible", "liveness", "durability",
                                         "deadlock-free"};
  EXPECT_EQ(property_names(), want);
}

TEST(Checkers, UnknownPropertyThrows) {
  EXPECT_THROW(check_property("window-expiry-typo", history::History{}), std::invalid_argument);
}

TEST(Checkers, EmptyHistoryPasses) { EXPECT_TRUE(check_history(history::History{}).empty()); }

// Every kind of event, every verdict, through a correct broker and storage.
history::History clean_history() {
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a", "b"});
  b.advance_seconds(10).push("p2", {{"q", "p", "a"}, {"q", "p", "c"}, {"q", "p", "a"}, {"q", "p2", "a"}});
  b.delete_segment("q", "p", 0).push("p3", "q", "p", {"b"});
  b.fail_pushes(1).push("p4", "q", "p", {"d", "d"});
  b.ack("a1", "q", "p", "a").ack("a2", "q", "p", "zzz").read("r1", "q", "p");
  b.configure("r", 0).push("p5", "r", "p", {"a"}).push("p6", "r", "p", {"a"});
  b.advance_seconds(3601).purge("q", "p").ack("a3", "q", "p", "a").push("p7", "q", "p", {"a", "c"});
  b.read("r2", "q", "p", 1, 2);
  return b.history();
}

TEST(Checkers, CleanHistoryHasNoFailures) {
  const history::History h = clean_history();
  const std::vector<Failure> failures = check_history(h);
  EXPECT_TRUE(failures.empty()) << show(failures);
  for (const std::string& name : property_names()) EXPECT_TRUE(check_property(name, h).empty()) << name;
}

TEST(Checkers, FailuresAreCappedWithASummary) {
  HistoryBuilder b;
  for (int i = 0; i < 80; ++i) b.push("s" + std::to_string(i), "q", "p", {"k" + std::to_string(i)});
  history::History h = b.history();
  for (history::Event& e : h.events) std::get<history::PushEvent>(e).rows_after.segments += 1;
  for (history::Event& e : h.events) std::get<history::PushEvent>(e).queued = false;
  const std::vector<Failure> failures = check_property("nothing-written-on-duplicate", h);
  ASSERT_EQ(failures.size(), 51u);
  EXPECT_EQ(failures.back().step, "");
  EXPECT_NE(failures.back().detail.find("more failures"), std::string::npos);
}

// A small random workload biased towards collisions (few keys, partitions and
// window edges) through the correct builder: no checker may cry wolf.
using RandomItem = std::tuple<int, int, int>;
struct RandomOp {
  int kind = 0;
  int a = 0;
  int b = 0;
  std::vector<RandomItem> items;
};

}  // namespace
}  // namespace qdt::properties

namespace rc {
template <>
struct Arbitrary<qdt::properties::RandomOp> {
  static Gen<qdt::properties::RandomOp> arbitrary() {
    return gen::build<qdt::properties::RandomOp>(
        gen::set(&qdt::properties::RandomOp::kind, gen::inRange(0, 17)),
        gen::set(&qdt::properties::RandomOp::a, gen::inRange(0, 5)),
        gen::set(&qdt::properties::RandomOp::b, gen::inRange(0, 5)),
        gen::set(&qdt::properties::RandomOp::items,
                 gen::resize(5, gen::container<std::vector<qdt::properties::RandomItem>>(
                                    gen::tuple(gen::inRange(0, 2), gen::inRange(0, 2), gen::inRange(0, 3))))));
  }
};
}  // namespace rc

namespace qdt::properties {
namespace {

history::History run_random(const std::vector<RandomOp>& ops) {
  static const int64_t kAdvanceSeconds[] = {1, 59, 61, 899, 3601};
  static const int64_t kWindows[] = {0, 1, 60, 3600, 7200};
  HistoryBuilder b;
  int step = 0;
  std::string last_push;  // the step a retry or a redelivery repeats
  auto q = [](int i) { return "q" + std::to_string(i % 2); };
  auto p = [](int i) { return "p" + std::to_string(i % 2); };
  for (const RandomOp& op : ops) {
    const std::string id = "s" + std::to_string(step++);
    switch (op.kind) {
      case 5:
        b.advance_seconds(kAdvanceSeconds[op.a]);
        break;
      case 15:  // past the purge floor and every retention the generator configures
        b.advance_seconds(kAdvanceSeconds[4]);
        break;
      case 6:
        b.configure(q(op.a), kWindows[op.b], op.a == 4 ? 5000 : op.a == 3 ? 30 : 0, op.b % 2 == 1 ? 60 : 0);
        break;
      case 7:
        b.purge(q(op.a), p(op.b), op.a + 1);
        break;
      case 14:
        b.retention(q(op.a));
        break;
      case 16: {  // two requests fused by one broker (layer 2), split at op.a
        std::vector<Item> first, second;
        for (size_t i = 0; i < op.items.size(); ++i) {
          const auto& [qi, pi, ti] = op.items[i];
          (static_cast<int>(i) < op.a ? first : second).push_back({q(qi), p(pi), "t" + std::to_string(ti)});
        }
        b.fuse({{id, first}, {id + "f", second}}, static_cast<uint32_t>(op.b % 2));
        last_push = id;
        break;
      }
      case 8:
        b.delete_segment(q(op.a), p(op.b), op.a);
        break;
      case 9:
        b.ack(id, q(op.a), p(op.b), "t" + std::to_string(op.a % 3), op.b % 2 ? "g1" : "g2");
        break;
      case 10:
        b.read(id, q(op.a), p(op.b), op.a, op.b);
        break;
      case 11:
        b.fail(op.a < 2 ? testing::Txn::push : static_cast<testing::Txn>(op.b % 6));
        break;
      case 12:
      case 13:
        if (last_push.empty()) break;
        if (op.a % 2 == 1) b.lose_response();
        if (op.kind == 12) b.retry(last_push, static_cast<uint32_t>(op.b % 2));
        if (op.kind == 13) b.redeliver(last_push, static_cast<uint32_t>(op.b % 2));
        break;
      default: {
        std::vector<Item> items;
        for (const auto& [qi, pi, ti] : op.items) items.push_back({q(qi), p(pi), "t" + std::to_string(ti)});
        if (!items.empty()) {
          b.push(id, items, static_cast<uint32_t>(op.a % 2));
          last_push = id;
        }
        b.advance_ms(op.b);
      }
    }
  }
  return b.history();
}

RC_GTEST_PROP(CheckersProperty, CorrectHistoriesPassEveryChecker, (const std::vector<RandomOp>& ops)) {
  const history::History h = run_random(ops);
  bool duplicate = false, zero_id = false, purged = false, window_off = false, retained = false;
  for (const history::Event& e : h.events) {
    if (const auto* p = std::get_if<history::PushEvent>(&e)) {
      duplicate |= !p->failed && !p->queued;
      window_off |= !p->failed && p->window_seconds == 0;
    }
    if (const auto* f = std::get_if<history::FetchEvent>(&e)) zero_id |= !f->found;
    if (const auto* p = std::get_if<history::PurgeEvent>(&e)) purged |= !p->rows.empty();
    if (const auto* r = std::get_if<history::RetentionEvent>(&e)) retained |= !r->deleted.empty();
  }
  RC_CLASSIFY(retained, "retention deleted");
  RC_CLASSIFY(duplicate, "duplicate");
  RC_CLASSIFY(zero_id, "zero id");
  RC_CLASSIFY(purged, "purged rows");
  RC_CLASSIFY(window_off, "window 0");
  RC_CLASSIFY(std::any_of(h.requests.begin(), h.requests.end(), [](const auto& r) { return r.attempt > 0; }), "retry");
  const std::vector<Failure> failures = check_history(h);
  RC_ASSERT(failures.empty());
}

}  // namespace
}  // namespace qdt::properties

namespace qdt::properties {
namespace {

bool has_property(const std::vector<Failure>& failures, const std::string& property) {
  return std::any_of(failures.begin(), failures.end(), [&](const Failure& f) { return f.property == property; });
}

// The other side of the boundary: one targeted break in a random correct
// history is always caught, and named after the right property.
RC_GTEST_PROP(CheckersProperty, AnyDuplicateAnsweringAFreshIdIsCaught, (const std::vector<RandomOp>& ops)) {
  history::History h = run_random(ops);
  std::vector<std::pair<size_t, size_t>> duplicates;  // (request, item)
  for (size_t r = 0; r < h.requests.size(); ++r) {
    for (size_t i = 0; i < h.requests[r].responses.size(); ++i) {
      if (h.requests[r].responses[i].status == "duplicate") duplicates.emplace_back(r, i);
    }
  }
  RC_PRE(!duplicates.empty());
  const auto [r, i] = duplicates[*rc::gen::inRange<size_t>(0, duplicates.size())];
  h.requests[r].responses[i].message_id = "m-fresh";
  const std::vector<Failure> failures = check_history(h);
  RC_ASSERT(has_property(failures, "model-agreement"));
  RC_ASSERT(has_property(failures, "duplicate-id"));
  RC_ASSERT(testing::has_failure(failures, "model-agreement", h.requests[r].step,
                                 partition_label(h.requests[r].items[i].queue, h.requests[r].items[i].partition)));
}

// A layer-2 follower that answers anything but its leader's final answer.
RC_GTEST_PROP(CheckersProperty, AnyCorruptedLayerTwoFollowerIsCaught, (const std::vector<RandomOp>& ops)) {
  // Random fusions rarely share a key: end with one that surely does.
  std::vector<RandomOp> all = ops;
  all.push_back(RandomOp{16, 1, 0, {{0, 0, 0}, {0, 0, 0}}});
  history::History h = run_random(all);
  std::vector<std::pair<uint64_t, std::string>> followers;  // (request, txn)
  for (const history::Event& e : h.events) {
    if (const auto* p = std::get_if<history::PushEvent>(&e)) {
      for (const history::FollowerRecord& f : p->followers) followers.emplace_back(f.request, f.transaction_id);
    }
  }
  RC_PRE(!followers.empty());
  const auto [request, txn] = followers[*rc::gen::inRange<size_t>(0, followers.size())];
  auto r = std::find_if(h.requests.begin(), h.requests.end(), [&](const auto& x) { return x.request == request; });
  RC_ASSERT(r != h.requests.end());
  size_t i = 0;
  while (i < r->items.size() && r->items[i].transaction_id != txn) ++i;
  RC_ASSERT(i < r->items.size());
  history::ResponseItem& answer = r->responses[i];
  if (answer.status == "error" || *rc::gen::arbitrary<bool>()) {
    answer.status = answer.status == "error" ? "duplicate" : "error";
  } else {
    answer.message_id = "m-fresh";
  }
  const std::vector<Failure> failures = check_history(h);
  const std::string label = partition_label(r->items[i].queue, r->items[i].partition);
  RC_ASSERT(testing::has_failure(failures, "model-agreement", r->step, label));
  RC_ASSERT(testing::has_failure(failures, "first-wins", r->step, label));
}

// The black box sees a queued message vanish from its partition's final read
// (where neither retention nor a delete fault touched the partition).
RC_GTEST_PROP(CheckersProperty, AnyQueuedMessageMissingFromTheFinalReadIsCaught, (const std::vector<RandomOp>& ops)) {
  history::History h = run_random(ops);
  std::set<std::pair<std::string, std::string>> touched;
  for (const history::Event& e : h.events) {
    if (const auto* d = std::get_if<history::DeleteSegmentEvent>(&e)) touched.insert({d->queue, d->partition});
    if (const auto* r = std::get_if<history::RetentionEvent>(&e)) touched.insert({r->queue, r->partition});
  }
  std::vector<std::pair<size_t, size_t>> candidates;  // (final read, message)
  for (size_t f = 0; f < h.final_reads.size(); ++f) {
    if (touched.contains({h.final_reads[f].queue, h.final_reads[f].partition})) continue;
    for (size_t m = 0; m < h.final_reads[f].messages.size(); ++m) candidates.emplace_back(f, m);
  }
  RC_PRE(!candidates.empty());
  const auto [f, m] = candidates[*rc::gen::inRange<size_t>(0, candidates.size())];
  const std::string id = h.final_reads[f].messages[m].message_id;
  const std::string label = partition_label(h.final_reads[f].queue, h.final_reads[f].partition);
  h.final_reads[f].messages.erase(h.final_reads[f].messages.begin() + static_cast<std::ptrdiff_t>(m));
  std::string step;  // the step that was answered queued with it
  for (const history::RequestRecord& r : h.requests) {
    for (const history::ResponseItem& x : r.responses) {
      if (x.status == "queued" && x.message_id == id) step = r.step;
    }
  }
  RC_ASSERT(testing::has_failure(check_property("client-visible", h), "client-visible", step, label));
}

RC_GTEST_PROP(CheckersProperty, AnyShiftedQueuedBaseIsCaught, (const std::vector<RandomOp>& ops)) {
  history::History h = run_random(ops);
  std::vector<history::PushEvent*> queued;
  for (history::Event& e : h.events) {
    if (auto* p = std::get_if<history::PushEvent>(&e); p && !p->failed && p->queued) queued.push_back(p);
  }
  RC_PRE(!queued.empty());
  history::PushEvent& ev = *queued[*rc::gen::inRange<size_t>(0, queued.size())];
  const int64_t shift = *rc::gen::element<int64_t>(-1, 1, 2);
  ev.base_offset += shift;
  ev.last_offset_after += shift;
  RC_ASSERT(testing::has_failure(check_property("offsets", h), "offsets",
                                 ev.frames.empty() ? "" : h.requests[ev.frames[0].origin_request - 1].step,
                                 partition_label(ev.queue, ev.partition)));
}

RC_GTEST_PROP(CheckersProperty, AnySkippedProbeIsCaught, (const std::vector<RandomOp>& ops)) {
  history::History h = run_random(ops);
  std::vector<history::PushEvent*> probed;
  for (history::Event& e : h.events) {
    if (auto* p = std::get_if<history::PushEvent>(&e); p && !p->failed && p->probe_ran) probed.push_back(p);
  }
  RC_PRE(!probed.empty());
  probed[*rc::gen::inRange<size_t>(0, probed.size())]->probe_ran = false;
  RC_ASSERT(has_property(check_history(h), "dedup-off"));
}

// check_history runs the properties together in one pass sharing one
// StorageReplay, ModelFollower and HistoryIndex; each must still say exactly
// what it says alone, on broken histories as on correct ones.
RC_GTEST_PROP(CheckersProperty, OnePassSaysWhatEachPropertySaysAlone, (const std::vector<RandomOp>& ops)) {
  history::History h = run_random(ops);
  for (history::RequestRecord& r : h.requests) {  // a few corrupted answers
    if (r.responses.empty() || !*rc::gen::weightedElement<bool>({{1, true}, {4, false}})) continue;
    history::ResponseItem& x = r.responses[*rc::gen::inRange<size_t>(0, r.responses.size())];
    x.status = *rc::gen::element<std::string>("queued", "duplicate", "error");
    x.message_id = *rc::gen::element<std::string>("m-fresh", history::kZeroUuid, x.message_id);
  }
  for (history::Event& e : h.events) {  // and a few corrupted storage answers
    auto* p = std::get_if<history::PushEvent>(&e);
    if (p == nullptr || !*rc::gen::weightedElement<bool>({{1, true}, {6, false}})) continue;
    p->base_offset += *rc::gen::element<int64_t>(-1, 0, 1);
    p->probe_ran = !p->probe_ran;
    if (!p->frames.empty()) p->duplicates.emplace_back(0, *rc::gen::inRange<int64_t>(0, 4));
  }
  std::vector<Failure> alone;
  for (const std::string& name : property_names()) {
    std::vector<Failure> f = check_property(name, h);
    alone.insert(alone.end(), f.begin(), f.end());
  }
  const std::vector<Failure> together = check_history(h);
  RC_CLASSIFY(!alone.empty(), "some property failed");
  RC_ASSERT(together.size() == alone.size());
  for (size_t k = 0; k < alone.size(); ++k) {
    RC_ASSERT(std::tie(together[k].property, together[k].step, together[k].partition, together[k].detail) ==
              std::tie(alone[k].property, alone[k].step, alone[k].partition, alone[k].detail));
  }
}

}  // namespace
}  // namespace qdt::properties

namespace qdt::properties {
namespace {

using testing::nth;
using testing::request;

// Storage's answer to `push` turned into duplicates of the given offsets.
void answer_duplicate(history::PushEvent& push, std::vector<std::pair<uint32_t, int64_t>> duplicates) {
  push.queued = false;
  push.base_offset = -1;
  push.duplicates = std::move(duplicates);
}

// One broken history per property, each breaking what that property's own
// tests break first.
std::vector<std::pair<std::string, history::History>> broken_histories() {
  std::vector<std::pair<std::string, history::History>> out;
  auto add = [&](std::string what, HistoryBuilder& b) { out.emplace_back(std::move(what), b.history()); };
  {
    HistoryBuilder b;  // model-agreement, no-double-write, retry and client-visible knock-ons
    b.push("p1", "q", "p", {"x", "a"}).advance_seconds(30).push_unprobed("p2", "q", "p", {"b", "a"});
    add("a repeat stored inside the window", b);
  }
  {
    HistoryBuilder b;  // the review's case: an item no frame and no follower record explains
    b.push("p0", "q", "p", {"x"});
    history::RequestRecord lost = b.history().requests[0];
    lost.request = 99;
    lost.step = "p1";
    lost.push_id = 99;
    lost.items = {{"q", "p", "a"}};
    lost.responses = {{"duplicate", history::kZeroUuid, "a", "q"}};
    b.history().requests.push_back(lost);
    add("a duplicate nothing explains", b);
  }
  {
    HistoryBuilder b;
    b.push("p1", "q", "p", {"a", "b"}).push("p2", "q", "p", {"b"});
    testing::nth_duplicate_push(b.history()).duplicates[0].second = 0;
    add("a duplicate of another key", b);
  }
  {
    HistoryBuilder b;
    b.push("p1", "q", "p", {"a"}).push("p2", "q", "p", {"a"});
    request(b.history(), "p2").responses[0].message_id = "m-fresh";
    add("a duplicate answering a fresh id", b);
  }
  {
    HistoryBuilder b;
    b.push("s1", "q", "p1", {"a"}).push("s2", "q", "p2", {"x"}).push("s3", "q", "p2", {"a"});
    answer_duplicate(nth<history::PushEvent>(b.history(), 2), {{0, 0}});
    add("a probe across partitions", b);
  }
  {
    HistoryBuilder b;
    b.fuse({{"p1", {{"q", "p", "a"}}}, {"p2", {{"q", "p", "a"}}}});
    nth<history::PushEvent>(b.history()).followers[0].frame = 7;
    add("a follower record out of range", b);
  }
  {
    HistoryBuilder b;
    b.push("p1", "q", "p", {"a"}).fail_pushes(1).push("p2", "q", "p", {"b"});
    nth<history::PushEvent>(b.history(), 1).rows_after.segments += 1;
    add("a failed push that wrote", b);
  }
  {
    HistoryBuilder b;
    b.push("p1", "q", "p", {"a"}).push("p2", "q", "p", {"b"});
    nth<history::PushEvent>(b.history(), 1).base_offset += 1;
    nth<history::PushEvent>(b.history(), 1).last_offset_after += 1;
    add("a skipped offset", b);
  }
  {
    HistoryBuilder b;
    b.configure("q", 0).push("p1", "q", "p", {"a"}).push("p2", "q", "p", {"b"});
    nth<history::PushEvent>(b.history(), 1).probe_ran = true;
    nth<history::PushEvent>(b.history(), 1).rows_scanned = 1;
    add("a probe with the window off", b);
  }
  {
    HistoryBuilder b;
    b.push("p1", "q", "p", {"a"}).ack("a1", "q", "p", "a");
    nth<history::AckEvent>(b.history()).acked = false;
    nth<history::AckEvent>(b.history()).offset = -1;
    add("an ack unresolvable while a row holds the key", b);
  }
  {
    HistoryBuilder b;
    b.push("p1", "q", "p", {"x", "a"}).advance_seconds(1).retry("p1");
    b.history().requests[1].responses[1].message_id = "m-fresh";
    add("a retry answering another id", b);
  }
  {
    HistoryBuilder b;
    b.push("p1", "q", "p", {"a"}).advance_ms(3600 * 1000 + 1).push("p2", "q", "p", {"b", "a"});
    answer_duplicate(nth<history::PushEvent>(b.history(), 1), {{1, 0}});
    add("a repeat after the window listed as a duplicate", b);
  }
  {
    HistoryBuilder b;
    b.push("p1", "q", "p", {"a"}).push("p2", "q", "p", {"b"});
    history::PushEvent& ev = nth<history::PushEvent>(b.history(), 1);
    ev.checked = true;
    ev.p_verified = 0;
    ev.checked_duplicates = {{0, 0}};
    ev.checked_frames_at_or_below_watermark = 1;  // the re-probe's duplicate lies at the watermark
    add("a watermark that hid a duplicate", b);
  }
  {
    HistoryBuilder b;
    b.push("p1", "q", "p", {"a"}).advance_ms(1).retention("q");
    nth<history::RetentionEvent>(b.history()).deleted.push_back({0, 0, 1'000'000});
    add("a segment deleted early", b);
  }
  {
    HistoryBuilder b;
    b.configure("q", 0).push("p1", "q", "p", {"a"}).advance_seconds(899).purge("q", "p");
    nth<history::PurgeEvent>(b.history()).rows.push_back({0, 0, 1'000'000});
    nth<history::PurgeEvent>(b.history()).floor_seconds = 0;
    add("a sidecar row purged below the floor", b);
  }
  {
    HistoryBuilder b;
    b.push("p1", "q", "p", {"a", "b"});
    b.history().final_reads[0].messages.pop_back();
    add("a queued message missing from the final read", b);
  }
  {
    HistoryBuilder b;
    b.push("p1", "q", "p", {"a"});
    b.history().stalls.push_back({b.now_ms(), 0, 2});
    b.history().open_transactions_at_end.push_back("broker 0");
    add("a stalled run", b);
  }
  {
    HistoryBuilder b;
    b.push("p1", "q", "p", {"a", "b"});
    history::StorageCrash crash;  // recovered nothing
    crash.event_index = b.history().events.size();
    crash.at_ms = b.now_ms();
    crash.synchronous = "off";
    crash.integrity = "*** page 3 is never used";
    b.history().storage_crashes.push_back(crash);
    add("a power loss that lost commits", b);
  }
  {
    HistoryBuilder b;
    b.push("p1", "q", "p", {"a"});
    b.history().lock_failures.push_back({"broker 0", "push", "", "q", "p", b.now_ms(), 0, true});
    add("a deadlock victim", b);
  }
  return out;
}

// Whether events[e] carries a storage-clock time (failure_sink.h's event_label says it).
bool has_time(const history::Event& event) {
  if (const auto* push = std::get_if<history::PushEvent>(&event)) return !push->failed;
  return !std::holds_alternative<history::FetchEvent>(event) && !std::holds_alternative<history::ReadEvent>(event);
}

// A failure explains itself in sentences: no set braces or empty brackets
// ("expected {} with id in {}"), no arrows, every event it cites with its
// time, and it names the step it failed at or, for background work, the time.
TEST(Checkers, EveryPropertyExplainsItsFailureInPlainWords) {
  static const std::regex kCited(R"(\bevent (\d+)( \(([^()]*)\))?)");
  std::set<std::string> failed;
  for (const auto& [what, h] : broken_histories()) {
    const std::vector<Failure> failures = check_history(h);
    EXPECT_FALSE(failures.empty()) << what;
    for (const Failure& f : failures) {
      SCOPED_TRACE(what + ": " + f.property + " at step " + f.step + ": " + f.detail);
      failed.insert(f.property);
      EXPECT_EQ(f.detail.find('{'), std::string::npos);
      EXPECT_EQ(f.detail.find('}'), std::string::npos);
      EXPECT_EQ(f.detail.find("[]"), std::string::npos);
      EXPECT_EQ(f.detail.find("->"), std::string::npos);
      EXPECT_TRUE(!f.step.empty() || f.detail.find(" ms") != std::string::npos ||
                  f.detail.find("when the run ended") != std::string::npos);
      // The rule broken is one of the property's own.
      ASSERT_TRUE(f.rule.has_value());
      EXPECT_EQ(rule_owner(*f.rule), f.property);
      for (auto it = std::sregex_iterator(f.detail.begin(), f.detail.end(), kCited); it != std::sregex_iterator();
           ++it) {
        const size_t e = std::stoul((*it)[1].str());
        ASSERT_LT(e, h.events.size());
        if (has_time(h.events[e])) {
          EXPECT_NE((*it)[3].str().find(" ms"), std::string::npos) << (*it)[0].str();
        }
      }
    }
  }
  for (const std::string& name : property_names()) EXPECT_TRUE(failed.contains(name)) << name << " never failed";
}

TEST(Checkers, TheOffendingEventIsOneTheDetailCites) {
  static const std::regex kCited(R"(\bevent (\d+)\b)");
  size_t with_event = 0;
  for (const auto& [what, h] : broken_histories()) {
    for (const Failure& f : check_history(h)) {
      if (!f.event) continue;
      ++with_event;
      std::set<size_t> cited;
      for (auto it = std::sregex_iterator(f.detail.begin(), f.detail.end(), kCited); it != std::sregex_iterator();
           ++it) {
        cited.insert(std::stoul((*it)[1].str()));
      }
      EXPECT_LT(*f.event, h.events.size()) << what << ": " << f.detail;
      EXPECT_TRUE(cited.contains(*f.event)) << what << ": event " << *f.event << ", " << f.detail;
    }
  }
  EXPECT_GT(with_event, 0u);
}

// The review's case, word for word: an answer nothing can explain says so,
// and which answers the model allows, without set notation.
TEST(Checkers, AnAnswerNothingExplainsSaysSoInWords) {
  const auto all = broken_histories();
  const auto it =
      std::find_if(all.begin(), all.end(), [](const auto& x) { return x.first == "a duplicate nothing explains"; });
  ASSERT_NE(it, all.end());
  const std::vector<Failure> failures = check_property("model-agreement", it->second);
  ASSERT_EQ(failures.size(), 1u) << show(failures);
  EXPECT_EQ(failures[0].detail,
            "item 0 (txn a) was answered duplicate 00000000-0000-0000-0000-000000000000, but the model allows no "
            "answer: request 99 sent storage no frame of this key, and no push event records it as a layer-2 follower "
            "(a request fused behind another request's frame of the key), so no answer can be right");
}

}  // namespace
}  // namespace qdt::properties
