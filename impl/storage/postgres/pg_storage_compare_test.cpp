// The same calls, the same answers, two engines: every StorageEngine method
// on PostgreSQL (qdt's own queen-log-v1 SQL) answers what the SQLite engine
// answers for the same sequence of calls at the same virtual times.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>

#include "impl/storage/postgres/pg_storage_test_env.h"
#include "impl/storage/sqlite/storage.h"

namespace qdt::impl::postgres::testing {
namespace {

using nlohmann::json;

json pairs(const std::vector<std::pair<uint32_t, int64_t>>& v) {
  json out = json::array();
  for (const auto& [i, off] : v) out.push_back({i, off});
  return out;
}

json spans(const std::vector<SegmentSpan>& v) {
  json out = json::array();
  for (const auto& s : v) out.push_back({s.base_offset, s.end_offset, s.created_at_ms});
  return out;
}

json describe(const PushResult& r) {
  return {{"queued", r.queued},
          {"base", r.base_offset},
          {"created", r.created_at_ms},
          {"dups", pairs(r.duplicates)},
          {"now", r.now_ms},
          {"window", r.window_seconds},
          {"probe_ran", r.probe_ran},
          {"rows_scanned", r.rows_scanned},
          {"last_before", r.last_offset_before},
          {"checked", r.checked},
          {"checked_dups", pairs(r.checked_duplicates)},
          {"checked_below", r.checked_frames_at_or_below_watermark}};
}

json describe(const std::vector<StoredMessage>& v) {
  json out = json::array();
  for (const auto& m : v) out.push_back({m.offset, to_string(m.message_id), m.transaction_id, m.payload});
  return out;
}

json describe(const std::optional<CoveringSegment>& s) {
  if (!s) return nullptr;
  return {s->base_offset, s->end_offset, s->created_at_ms, unpack_frames(s->frames).size()};
}

json describe(const std::vector<std::pair<std::string, std::string>>& v) { return v; }

json inspection(StorageEngine& e) {
  json out;
  for (const auto& [q, p] : e.inspect_partitions()) {
    const PartitionState state = e.partition_state(q, p);
    const PartitionRows rows = e.partition_rows(q, p);
    const QueueOptions o = e.options(q);
    out[q + "/" + p] = {{"state", {state.exists, state.last_offset, state.txns_start}},
                        {"rows", {rows.last_offset, rows.txns_start, rows.segments, rows.sidecar_rows}},
                        {"stored", e.stored_messages(q, p)},
                        {"options", {o.dedup_window_seconds, o.retention_seconds, o.completed_retention_seconds}},
                        {"messages", describe(e.inspect_messages(q, p))}};
  }
  out["sidecar_rows"] = e.sidecar_rows();
  out["segments"] = e.segment_count();
  out["missing"] = {e.partition_state("q", "nope").exists, e.stored_messages("q", "nope")};
  return out;
}

struct Step {
  std::string what;
  int64_t at_s;  // virtual seconds after kT0Ms
  std::function<json(StorageEngine&)> call;
};

std::vector<Step> script() {
  std::vector<Step> s;
  auto push = [&s](std::string what, int64_t at, SegmentPush seg) {
    s.push_back({what, at, [seg](StorageEngine& e) { return describe(e.push(seg)); }});
  };
  s.push_back({"configure q", 0, [](StorageEngine& e) {
                 const QueueOptions o = e.configure("q", json{{"dedupWindowSeconds", 60}});
                 return json{o.dedup_window_seconds, o.retention_seconds, o.completed_retention_seconds};
               }});
  push("first push", 1, segment({"a", "b"}, "q", "p", -1, 60));
  push("second push", 2, segment({"c"}, "q", "p", -1, 60));
  push("duplicate within the window", 3, segment({"a"}, "q", "p", -1, 60));
  push("partial duplicate", 4, segment({"x", "b", "c"}, "q", "p", -1, 60));
  push("watermark skips rows it vouched for", 5, segment({"a"}, "q", "p", 1, 60));
  push("watermark refused by the window guard", 5, segment({"a"}, "q", "p", 1, 30));
  push("window edge is inclusive", 62, segment({"c"}, "q", "p", -1, 60));
  push("after the window", 63, segment({"c"}, "q", "p", -1, 60));
  push("other partition", 63, segment({"a"}, "q", "p2", -1, 60));
  s.push_back({"configure q0 window 0", 64, [](StorageEngine& e) {
                 e.set_options("q0", QueueOptions{0, 0, 0});
                 return json(e.options("q0").dedup_window_seconds);
               }});
  push("window 0", 65, segment({"k"}, "q0", "p", -1, 0));
  push("window 0 repeat", 66, segment({"k"}, "q0", "p", -1, 0));
  s.push_back({"ack", 70, [](StorageEngine& e) {
                 const AckResult r = e.ack("q", "p", "b", "g1");
                 return json{r.acked, r.offset, r.message_id ? to_string(*r.message_id) : "", r.now_ms};
               }});
  s.push_back({"ack unknown", 71, [](StorageEngine& e) {
                 const AckResult r = e.ack("q", "p", "zzz", "g2");
                 return json{r.acked, r.offset, r.message_id.has_value(), r.now_ms};
               }});
  s.push_back({"ack missing partition", 71, [](StorageEngine& e) { return json(e.ack("q", "none", "a", "g1").acked); }});
  s.push_back({"read all", 72, [](StorageEngine& e) { return describe(e.read("q", "p", 0, 0)); }});
  s.push_back({"read from 1, 2", 72, [](StorageEngine& e) { return describe(e.read("q", "p", 1, 2)); }});
  s.push_back({"covering", 73, [](StorageEngine& e) {
                 return json{describe(e.covering_segment("q", "p", 1)), describe(e.covering_segment("q", "p", 100)),
                             describe(e.covering_segment("q", "none", 0))};
               }});
  s.push_back({"read_sidecar", 74, [](StorageEngine& e) {
                 const SidecarRead r = e.read_sidecar("q", "p", 0, kT0Ms + 2000);
                 json rows = json::array();
                 for (const auto& row : r.rows) rows.push_back({row.base_offset, row.end_offset, row.created_at_ms,
                                                                row.hashes.size()});
                 return json{r.last_offset, rows, e.read_sidecar("q", "none", -1, 0).last_offset};
               }});
  s.push_back({"partitions", 75, [](StorageEngine& e) {
                 return json{describe(e.partitions(std::nullopt)), describe(e.partitions(std::string("q")))};
               }});
  s.push_back({"inspection before retention", 75, [](StorageEngine& e) { return inspection(e); }});
  s.push_back({"retention 100 s", 76, [](StorageEngine& e) {
                 e.configure("q", json{{"retentionSeconds", 100}});
                 return json{spans(e.delete_expired_segments("q", "p").deleted)};
               }});
  s.push_back({"retention later", 170, [](StorageEngine& e) {
                 const RetentionDelete r = e.delete_expired_segments("q", "p");
                 return json{r.now_ms, spans(r.deleted)};
               }});
  push("duplicate of a deleted segment", 171, segment({"x"}, "q", "p", -1, 60));
  s.push_back({"purge nothing yet", 172, [](StorageEngine& e) {
                 const PurgeStep p = e.purge_step("q", "p");
                 return json{p.now_ms, spans(p.rows), p.floor_seconds, p.batch, p.txns_start_after, p.more};
               }});
  s.push_back({"purge batch 2", 1000, [](StorageEngine& e) {
                 e.set_purge_batch(2);
                 const PurgeStep p = e.purge_step("q", "p");
                 return json{p.now_ms, spans(p.rows), p.floor_seconds, p.batch, p.txns_start_after, p.more};
               }});
  s.push_back({"purge the rest", 1001, [](StorageEngine& e) {
                 const PurgeStep p = e.purge_step("q", "p");
                 const PurgeStep none = e.purge_step("q", "none");
                 return json{spans(p.rows), p.txns_start_after, p.more, none.floor_seconds, none.rows.size()};
               }});
  push("after the purge", 1002, segment({"a", "x"}, "q", "p", -1, 60));
  s.push_back({"delete_segment", 1003, [](StorageEngine& e) {
                 const auto gone = e.delete_segment("q", "p2", 0);
                 const auto none = e.delete_segment("q", "p2", 0);
                 return json{gone ? json{gone->base_offset, gone->end_offset, gone->created_at_ms} : json(nullptr),
                             none.has_value()};
               }});
  s.push_back({"inspection at the end", 1004, [](StorageEngine& e) { return inspection(e); }});
  return s;
}

void compare(const PgStorageOptions& pg_options, const StorageOptions& sqlite_options,
             const std::function<void(std::vector<Step>&)>& adjust = {}) {
  ManualClock sqlite_clock(kT0Ms);
  ManualClock pg_clock(kT0Ms);
  Storage sqlite(sqlite_clock, sqlite_options);
  auto run = backend().begin_run();
  auto pg = backend().connect(*run, "admin", pg_clock, nullptr, pg_options);
  std::vector<Step> steps = script();
  if (adjust) adjust(steps);
  for (const Step& step : steps) {
    sqlite_clock.set(kT0Ms + step.at_s * 1000);
    pg_clock.set(kT0Ms + step.at_s * 1000);
    const json expected = step.call(sqlite);
    const json actual = step.call(*pg);
    EXPECT_EQ(actual, expected) << step.what << "\n  sqlite:   " << expected.dump() << "\n  postgres: " << actual.dump();
    EXPECT_FALSE(pg->in_transaction()) << step.what;
  }
}

TEST(PgStorageCompare, EveryMethodAnswersAsTheSqliteEngine) { compare({}, {}); }

TEST(PgStorageCompare, CheckedModeAnswersAsTheSqliteEngine) {
  PgStorageOptions pg;
  pg.checked_mode = true;
  StorageOptions sqlite;
  sqlite.checked_mode = true;
  compare(pg, sqlite);
}

TEST(PgStorageCompare, AdapterVariantsAnswerAsTheSqliteEngine) {
  for (const Variant v : {Variant::skip_probe, Variant::no_window_guard, Variant::purge_below_floor,
                          Variant::sidecar_with_segment}) {
    SCOPED_TRACE(variant_name(v));
    ASSERT_TRUE(PgBackend::supports(v));
    PgStorageOptions pg;
    pg.variant = v;
    StorageOptions sqlite;
    sqlite.variant = v;
    compare(pg, sqlite);
  }
}

}  // namespace
}  // namespace qdt::impl::postgres::testing
