#include "sim/world/storage_pool.h"

#include <gtest/gtest.h>

#include "sim/world/test_segment.h"

#include "sim/scenario/runner.h"

namespace qdt::sim {
namespace {


// A gate that counts what crossed it, to see which world's gate a pooled
// connection reaches.
// A slot's connections are SQLite's; the handle is engine-neutral.
impl::Storage& sqlite(const StorageHandle& handle) { return static_cast<impl::Storage&>(*handle); }

struct CountingGate : impl::StatementGate {
  int statements = 0;
  int before_statement(impl::TxnKind, int64_t, impl::StatementKind) override {
    ++statements;
    return SQLITE_OK;
  }
};

TEST(StoragePool, AReleasedSlotComesBackEmptyWithItsConnections) {
  StoragePool pool;  // its own, not the one earlier tests' worlds used
  impl::ManualClock clock(1000);
  Slot& slot = pool.acquire();
  const std::string uri = slot.uri();
  {
    StorageHandle a = slot.open({}, clock, nullptr);
    a->set_options("q", {});
    ASSERT_TRUE(a->push(one_frame_segment("t1")).queued);
    EXPECT_EQ(a->partition_state("q", "p").last_offset, 0);
  }
  EXPECT_EQ(slot.idle(), 1u);
  pool.release(slot);

  Slot& again = pool.acquire();
  EXPECT_EQ(again.uri(), uri);  // the same database, emptied
  EXPECT_EQ(again.idle(), 1u);  // and its connection kept open
  StorageHandle b = again.open({}, clock, nullptr);
  EXPECT_EQ(again.idle(), 0u);
  EXPECT_FALSE(b->partition_state("q", "p").exists);
  EXPECT_EQ(b->sidecar_rows(), 0);
  // Keys restart as in a fresh database: the same push gets offset 0 again.
  b->set_options("q", {});
  const impl::PushResult r = b->push(one_frame_segment("t1"));
  EXPECT_TRUE(r.queued);
  EXPECT_EQ(r.base_offset, 0);
  b.reset();
  pool.release(again);
}

TEST(StoragePool, SlotsHeldAtOnceNeverShareRows) {
  StoragePool pool;  // its own, not the one earlier tests' worlds used
  impl::ManualClock clock(1000);
  Slot& one = pool.acquire();
  Slot& two = pool.acquire();
  EXPECT_NE(one.uri(), two.uri());
  {
    StorageHandle a = one.open({}, clock, nullptr);
    StorageHandle b = two.open({}, clock, nullptr);
    a->set_options("q", {});
    ASSERT_TRUE(a->push(one_frame_segment("t1")).queued);
    EXPECT_EQ(b->sidecar_rows(), 0);
  }
  pool.release(two);
  pool.release(one);
}

TEST(StoragePool, PooledConnectionReachesTheNewOwnersGateAndOptions) {
  StoragePool pool;  // its own, not the one earlier tests' worlds used
  impl::ManualClock clock(1000);
  Slot& slot = pool.acquire();
  CountingGate first, second;
  impl::Storage* raw = nullptr;
  {
    StorageHandle a = slot.open({.purge_batch = 5}, clock, &first);
    raw = &sqlite(a);
    a->set_options("q", {});
    a->push(one_frame_segment("t1"));
  }
  const int first_seen = first.statements;
  EXPECT_GT(first_seen, 0);
  {
    // Same policies, another purge bound: the same connection, rebound.
    StorageHandle b = slot.open({.purge_batch = 7}, clock, &second);
    EXPECT_EQ(b.get(), raw);
    b->push(one_frame_segment("t2"));
    EXPECT_EQ(first.statements, first_seen);
    EXPECT_GT(second.statements, 0);
    // Another policy (checked mode) cannot share it while it is leased.
    StorageHandle c = slot.open({.checked_mode = true}, clock, nullptr);
    EXPECT_NE(c.get(), raw);
  }
  {
    // Both idle now: a checked-mode request takes the checked connection.
    StorageHandle d = slot.open({.checked_mode = true}, clock, nullptr);
    EXPECT_NE(d.get(), raw);
  }
  pool.release(slot);
}

// The slot empties its database through a connection of its own, which has
// none of the write counter's hooks: rows written through instrumented
// connections are gone, and so are those of a connection that was closed
// (the cleaner keeps the in-memory database alive without it).
TEST(StoragePool, TheCleanerEmptiesRowsOfInstrumentedAndClosedConnections) {
  StoragePool pool;
  impl::ManualClock clock(1000);
  Slot& slot = pool.acquire();
  {
    StorageHandle kept = slot.open({}, clock, nullptr);
    ASSERT_NE(pooled_counter(kept), nullptr);  // instrumented: its hooks count
    kept->set_options("q", {});
    ASSERT_TRUE(kept->push(one_frame_segment("t1")).queued);
  }
  pool.release(slot);
  Slot& second = pool.acquire();
  {
    StorageHandle closed = second.open({}, clock, nullptr);
    EXPECT_EQ(closed->sidecar_rows(), 0);
    closed->set_options("q", {});
    ASSERT_TRUE(closed->push(one_frame_segment("t2")).queued);
    sqlite(closed).database().exec("BEGIN IMMEDIATE");  // left inside: closed, not pooled
  }
  EXPECT_EQ(second.idle(), 0u);
  pool.release(second);
  Slot& third = pool.acquire();
  EXPECT_EQ(third.uri(), slot.uri());
  StorageHandle fresh = third.open({}, clock, nullptr);
  EXPECT_EQ(fresh->sidecar_rows(), 0);
  EXPECT_EQ(fresh->segment_count(), 0);
  EXPECT_FALSE(fresh->partition_state("q", "p").exists);
  fresh.reset();
  pool.release(third);
}

// A world that stops while one of its calls is suspended mid-transaction
// leaves that connection inside it: it is closed, never handed to the next
// world (which could not write while it held the lock).
TEST(StoragePool, ConnectionLeftInATransactionIsClosedNotPooled) {
  StoragePool pool;
  impl::ManualClock clock(1000);
  Slot& slot = pool.acquire();
  {
    StorageHandle a = slot.open({}, clock, nullptr);
    a->set_options("q", {});
    sqlite(a).database().exec("BEGIN IMMEDIATE");
    ASSERT_TRUE(a->in_transaction());
  }
  EXPECT_EQ(slot.idle(), 0u);
  pool.release(slot);
  // The next world gets an emptied database and a connection that can write.
  Slot& again = pool.acquire();
  StorageHandle b = again.open({}, clock, nullptr);
  EXPECT_FALSE(b->in_transaction());
  b->set_options("q", {});
  EXPECT_TRUE(b->push(one_frame_segment("t1")).queued);
  b.reset();
  pool.release(again);
}

// A world's in-memory database is made with the memory page size (a world
// that only asked SQLite for its default would make 4096-byte pages).
TEST(StoragePool, AWorldMakesItsInMemoryDatabaseWithTheMemoryPageSize) {
  const char* text = R"({"name": "one", "seed": 1, "queues": {"q": {}},
    "steps": [{"id": "p", "op": "push", "items": [{"queue": "q", "transactionId": "k", "data": {}}]}]})";
  LoadResult loaded = load_scenario_text(text, "t.json");
  ASSERT_TRUE(loaded.scenario);
  StoragePool& pool = StoragePool::process();
  std::vector<Slot*> held;
  Slot* fresh_slot = &pool.acquire();
  while (fresh_slot->idle() != 0) {  // one with no connection: its database is made by the next world
    held.push_back(fresh_slot);
    fresh_slot = &pool.acquire();
  }
  const std::string uri = fresh_slot->uri();
  pool.release(*fresh_slot);
  const RunOutcome run = run_scenario(*loaded.scenario, {});
  EXPECT_TRUE(run.result.failures.empty());
  Slot& after = pool.acquire();
  ASSERT_EQ(after.uri(), uri);
  impl::ManualClock clock(1000);
  {
    StorageHandle look = after.open({}, clock, nullptr);
    EXPECT_EQ(sqlite(look).page_size_bytes(), kMemoryPageBytes);
  }
  pool.release(after);
  for (Slot* s : held) pool.release(*s);
}

// The same seed gives the same trace whether its world gets a fresh database
// or one emptied after another scenario ran in it.
TEST(StoragePool, ReusedDatabaseGivesTheSameTraceAsAFreshOne) {
  const char* other = R"({"name": "other", "seed": 3,
    "queues": {"a": {"dedupWindowSeconds": 60}, "q": {}},
    "steps": [{"id": "p1", "op": "push", "items": [{"queue": "a", "partition": "x", "transactionId": "u", "data": {}}]},
              {"id": "p2", "op": "push", "items": [{"queue": "q", "transactionId": "k", "data": {}}]}]})";
  const char* race = R"({"name": "race", "seed": 5, "world": {"network": {"latency_ms": [0, 3]}},
    "queues": {"q": {}},
    "steps": [{"op": "parallel", "steps": [
      {"id": "c0", "op": "push", "items": [{"queue": "q", "transactionId": "k", "data": {}}]},
      {"id": "c1", "op": "push", "items": [{"queue": "q", "transactionId": "k", "data": {}}]},
      {"id": "c2", "op": "push", "items": [{"queue": "q", "transactionId": "j", "data": {}}]}]}]})";
  auto load = [](const char* text) {
    LoadResult r = load_scenario_text(text, "t.json");
    EXPECT_TRUE(r.scenario) << (r.errors.empty() ? "" : r.errors[0].to_string());
    return *r.scenario;
  };
  const Scenario first = load(other);
  const Scenario second = load(race);
  // A fresh database: hold every free slot of the pool until it opens a new
  // one (no open connection: nothing survived in it), then free only that.
  StoragePool& pool = StoragePool::process();
  std::vector<Slot*> held;
  Slot* fresh_slot = &pool.acquire();
  while (fresh_slot->idle() != 0) {
    held.push_back(fresh_slot);
    fresh_slot = &pool.acquire();
  }
  pool.release(*fresh_slot);
  const RunOutcome fresh = run_scenario(second, {.cache_enabled = std::nullopt, .keep_trace_text = true});
  // A reused one: `other` runs first in the same slot.
  const RunOutcome before = run_scenario(first, {});
  const RunOutcome reused = run_scenario(second, {.cache_enabled = std::nullopt, .keep_trace_text = true});
  EXPECT_TRUE(before.result.failures.empty()) << before.result.to_json()["failures"].dump(2);
  EXPECT_EQ(fresh.result.trace_hash, reused.result.trace_hash);
  EXPECT_EQ(fresh.trace_text, reused.trace_text);
  EXPECT_EQ(fresh.result.step_responses, reused.result.step_responses);
  EXPECT_EQ(fresh.result.metrics, reused.result.metrics);
  for (Slot* slot : held) pool.release(*slot);
}

}  // namespace
}  // namespace qdt::sim
