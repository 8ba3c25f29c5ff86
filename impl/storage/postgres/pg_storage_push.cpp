// The push transaction (docs/semantics.md §2.4) through log_push_one_v1: the
// function takes the partition row's lock, reads `now` after it, probes and
// writes; the adapter only maps the watermark and the design variants onto
// its parameters and reads the answer.
#include <algorithm>
#include <cassert>
#include <climits>

#include "impl/storage/postgres/pg_sql.h"
#include "impl/storage/postgres/pg_storage.h"
#include "impl/storage/postgres/timestamp_text.h"
#include "impl/storage/push_reach.h"

namespace qdt::impl::postgres {
namespace {

std::string pack_hashes(const std::vector<Frame>& frames) {
  std::string out;
  out.reserve(16 * frames.size());
  for (const Frame& f : frames) out.append(reinterpret_cast<const char*>(f.hash.bytes.data()), 16);
  return out;
}

std::vector<std::pair<uint32_t, int64_t>> duplicates_of(const nlohmann::json& dups) {
  std::vector<std::pair<uint32_t, int64_t>> out;
  if (!dups.is_array()) return out;
  for (const auto& d : dups) out.emplace_back(d.at("i").get<uint32_t>(), d.at("off").get<int64_t>());
  std::sort(out.begin(), out.end());
  return out;
}

// Past any offset a partition can reach: the probe then has nothing above the watermark.
constexpr int64_t kBeyondEveryOffset = int64_t{1} << 62;

}  // namespace

PgStorage::AdapterWatermark PgStorage::adapter_watermark(const SegmentPush& segment) const {
  // The variants that live in the adapter (docs/semantics.md §7): skip-probe trusts a
  // watermark past everything, the unguarded ones claim the widest window.
  AdapterWatermark w{segment.p_verified, std::nullopt};
  const bool unguarded = options_.variant == Variant::no_window_guard || options_.variant == Variant::shipped_meta_ttl;
  if (options_.variant == Variant::skip_probe) {
    w.verified = kBeyondEveryOffset;
    w.assumed = INT_MAX;
  } else if (unguarded) {
    if (w.verified >= 0) w.assumed = INT_MAX;
  } else if (segment.window_seconds_assumed >= 0) {
    w.assumed = std::min<int64_t>(segment.window_seconds_assumed, INT_MAX);
  }
  return w;
}

PushResult PgStorage::push(const SegmentPush& segment) {
  assert(!segment.frames.empty());
  assert(segment.p_verified >= -1);
  const std::string hashes = pack_hashes(segment.frames);
  const AdapterWatermark w = adapter_watermark(segment);
  if (options_.variant == Variant::probe_outside_lock) return push_probe_outside_lock(segment, hashes, w.verified, w.assumed);
  return push_transaction(segment, hashes, w.verified, w.assumed);
}

// Variant probe-outside-lock, as on SQLite: the probe runs in a transaction
// of its own, and a later one allocates under the row lock with a watermark
// past every offset (it probes nothing), so a colliding push can commit in
// between. The stamp is still read under the lock.
PushResult PgStorage::push_probe_outside_lock(const SegmentPush& segment, const std::string& hashes, int64_t verified,
                                              std::optional<int64_t> assumed) {
  nlohmann::json probed;
  {
    PgTransaction tx = begin(TxnKind::push);
    const StatementOutcome out =
        tx.run(sql::kProbeOutsideLock,
               {Param::text(segment.queue), Param::text(segment.partition), Param::bytes(hashes),
                Param::text(std::to_string(verified)), assumed ? Param::text(std::to_string(*assumed)) : Param::null()},
               StatementKind::read, false);
    probed = nlohmann::json::parse(out.value(0, 0));
    tx.commit();
  }
  PushResult result;
  result.duplicates = duplicates_of(probed.at("dups"));
  const bool probe_ran = probed.at("qdtProbeRan").get<bool>();
  const auto rows_scanned = probed.at("qdtRowsScanned").get<uint64_t>();
  if (!result.duplicates.empty()) {
    assert(probe_ran);
    result.now_ms = probed.at("qdtNowUs").get<int64_t>() / 1000;
    result.window_seconds = probed.at("qdtWindow").get<int64_t>();
    result.last_offset_before = probed.at("qdtLastOffsetBefore").get<int64_t>();
    result.probe_ran = true;
    result.rows_scanned = rows_scanned;
    return result;
  }
  result = push_transaction(segment, hashes, kBeyondEveryOffset, INT_MAX);
  assert(result.queued && !result.probe_ran);
  result.probe_ran = probe_ran;
  result.rows_scanned = rows_scanned;
  return result;
}

PushResult PgStorage::push_transaction(const SegmentPush& segment, const std::string& hashes, int64_t verified,
                                       std::optional<int64_t> assumed) {
  const std::string blob = pack_frames(segment.frames);
  std::vector<Param> params{Param::text(segment.queue), Param::text(segment.partition),
                            Param::text(std::to_string(segment.frames.size())), Param::bytes(hashes),
                            Param::text(std::to_string(verified)), Param::bytes(blob)};
  const bool guard = run_.interface().window_guard_one;
  if (guard) params.push_back(assumed ? Param::text(std::to_string(*assumed)) : Param::null());

  PgTransaction tx = begin(TxnKind::push);
  const StatementOutcome out = tx.run(guard ? sql::kPushGuarded : sql::kPushPlain, params, StatementKind::write, true);
  PushResult result = result_of(tx, segment, nlohmann::json::parse(out.value(0, 0)), hashes);
  tx.commit();
  return result;
}

// One segment's answer (log_push_one_v1's, or an element of
// log_push_multi_v1's), with what qdt's keys add or, for foreign SQL, what
// the adapter reads inside the same transaction.
PushResult PgStorage::result_of(PgTransaction& tx, const SegmentPush& segment, const nlohmann::json& answer,
                                const std::string& hashes) {
  PushResult result;
  const std::string status = answer.value("status", "");
  if (status == "queued") {
    result.queued = true;
    result.base_offset = answer.at("baseOffset").get<int64_t>();
    const auto created_us = parse_timestamp_us(answer.at("createdAt").get<std::string>());
    if (!created_us) throw StorageError("postgres: a push answered an unreadable createdAt: " + answer.dump());
    result.created_at_ms = *created_us / 1000;
  } else if (status == "duplicate") {
    result.duplicates = duplicates_of(answer.at("dups"));
  } else {
    throw StorageError("postgres: a push answered neither queued nor duplicate: " + answer.dump());
  }
  if (answer.contains("qdtNowUs")) {
    result.now_ms = answer.at("qdtNowUs").get<int64_t>() / 1000;
    result.window_seconds = answer.at("qdtWindow").get<int64_t>();
    result.last_offset_before = answer.at("qdtLastOffsetBefore").get<int64_t>();
    result.probe_ran = answer.at("qdtProbeRan").get<bool>();
    result.rows_scanned = answer.at("qdtRowsScanned").get<uint64_t>();
    run_checked_probe(tx, segment, answer, hashes, result);
    mark_reached(segment, result, answer.value("qdtTxnsStart", int64_t{0}));
  } else if (const std::optional<int64_t> txns_start = fill_push_fallbacks(tx, segment, result)) {
    mark_reached(segment, result, *txns_start);
  }
  return result;
}

bool PgStorage::trusts_watermark(const SegmentPush& segment, int64_t window_seconds) const {
  if (segment.p_verified < 0) return false;
  // Foreign SQL without the window guard trusts every watermark it is sent.
  const bool guarded = run_.own_sql() ? !(options_.variant == Variant::no_window_guard ||
                                          options_.variant == Variant::shipped_meta_ttl)
                                      : run_.interface().window_guard_one;
  return !guarded || (segment.window_seconds_assumed >= 0 && window_seconds <= segment.window_seconds_assumed);
}

// The storage.* points as the SQLite engine marks them (impl/storage/push_reach.h),
// from the answer and what the adapter read under the lock.
void PgStorage::mark_reached(const SegmentPush& segment, const PushResult& result, int64_t txns_start) const {
  if (options_.variant == Variant::skip_probe || options_.variant == Variant::probe_outside_lock) return;
  if (result.window_seconds <= 0) return;
  mark_watermark_reached({segment.p_verified, trusts_watermark(segment, result.window_seconds),
                          result.last_offset_before, txns_start, result.window_seconds});
  mark_duplicates_reached(segment.frames.size(), result.duplicates.size());
}

namespace {
// log_push_multi_v1's call for `count` segments: one array per argument,
// each element a parameter of its own (7 per segment with the guard, else 6),
// so no name or byte of a segment is ever part of the statement's text.
std::string multi_call(size_t count, bool guard) {
  const size_t per_segment = guard ? 7 : 6;
  const char* casts[] = {"text", "text", "int", "bytea", "bigint", "bytea", "int"};
  std::string out = "SELECT queen.log_push_multi_v1(";
  for (size_t arg = 0; arg < per_segment; ++arg) {
    if (arg == 6) out += ", p_windows_assumed => ";
    else if (arg > 0) out += ", ";
    out += "ARRAY[";
    for (size_t i = 0; i < count; ++i) {
      out += (i > 0 ? ", $" : "$") + std::to_string(i * per_segment + arg + 1) + "::" + casts[arg];
    }
    out += "]";
  }
  return out + ")";
}
}  // namespace

std::vector<PushResult> PgStorage::push_bundle(const std::vector<SegmentPush>& segments) {
  assert(!segments.empty());
  assert(options_.variant != Variant::probe_outside_lock);  // the world refuses it: its probe needs a transaction
  const bool guard = run_.interface().window_guard_multi;
  std::vector<std::string> hashes;
  std::vector<Param> params;
  for (const SegmentPush& segment : segments) {
    assert(!segment.frames.empty() && segment.p_verified >= -1);
    hashes.push_back(pack_hashes(segment.frames));
    const AdapterWatermark w = adapter_watermark(segment);
    params.push_back(Param::text(segment.queue));
    params.push_back(Param::text(segment.partition));
    params.push_back(Param::text(std::to_string(segment.frames.size())));
    params.push_back(Param::bytes(hashes.back()));
    params.push_back(Param::text(std::to_string(w.verified)));
    params.push_back(Param::bytes(pack_frames(segment.frames)));
    if (guard) params.push_back(w.assumed ? Param::text(std::to_string(*w.assumed)) : Param::null());
  }
  PgTransaction tx = begin(TxnKind::push);
  // qdt's own bundle takes its turns in the line (sql/procedures/001_log_schema.sql).
  const StatementOutcome out =
      tx.run(multi_call(segments.size(), guard), params, StatementKind::write, true, run_.own_sql());
  const nlohmann::json answers = nlohmann::json::parse(out.value(0, 0));
  if (!answers.is_array() || answers.size() != segments.size()) {
    throw StorageError("postgres: log_push_multi_v1 answered " + answers.dump() + " for " +
                       std::to_string(segments.size()) + " segments");
  }
  std::vector<PushResult> results;
  for (size_t i = 0; i < segments.size(); ++i) results.push_back(result_of(tx, segments[i], answers[i], hashes[i]));
  tx.commit();
  return results;
}

// Checked mode (docs/semantics.md §5 cache-transparency): the same probe from txns_start,
// at the same `now`, over the rows that were there before this push.
void PgStorage::run_checked_probe(PgTransaction& tx, const SegmentPush& segment, const nlohmann::json& answer,
                                  const std::string& hashes, PushResult& result) {
  if (!options_.checked_mode || options_.variant == Variant::skip_probe || result.window_seconds <= 0) return;
  const bool watermark_used = trusts_watermark(segment, result.window_seconds);
  const int64_t txns_start = answer.at("qdtTxnsStart").get<int64_t>();
  if (!watermark_used || result.last_offset_before <= txns_start - 1) return;
  const StatementOutcome out = tx.run_ungated(
      sql::kCheckedProbe,
      {Param::text(answer.at("qdtPid").get<std::string>()), Param::text(std::to_string(txns_start - 1)),
       Param::bytes(hashes), Param::text(std::to_string(result.window_seconds)),
       Param::text(std::to_string(answer.at("qdtNowUs").get<int64_t>())),
       Param::text(std::to_string(result.last_offset_before))});
  result.checked = true;
  result.checked_duplicates = duplicates_of(nlohmann::json::parse(out.value(0, 0)).at("dups"));
  for (const auto& [frame, offset] : result.checked_duplicates) {
    if (offset <= segment.p_verified) result.checked_frames_at_or_below_watermark++;
  }
}

// A foreign implementation's answer carries none of qdt's keys: the clock is
// the one the run wrote, the rest is read under the lock the push still holds.
std::optional<int64_t> PgStorage::fill_push_fallbacks(PgTransaction& tx, const SegmentPush& segment,
                                                     PushResult& result) {
  result.now_ms = run_.clock_ms();
  const StatementOutcome out =
      tx.run_ungated(sql::kFindPartition, {Param::text(segment.queue), Param::text(segment.partition)});
  if (out.rows.empty()) return std::nullopt;
  const int64_t last_offset = std::stoll(out.value(0, 1));
  const int64_t txns_start = std::stoll(out.value(0, 2));
  result.window_seconds = std::stoll(out.value(0, 3));
  result.last_offset_before = result.queued ? result.base_offset - 1 : last_offset;
  const int64_t from = std::max(segment.p_verified, txns_start - 1);
  result.probe_ran = result.window_seconds > 0 && result.last_offset_before > from;
  return txns_start;
}

}  // namespace qdt::impl::postgres
