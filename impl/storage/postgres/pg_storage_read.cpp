// The read paths (docs/semantics.md §2.6, 2.9, 2.10, 2.11): the covering fetch, the
// cache's hydration read, ack by transactionId, and read; each its own
// transaction, and each answer that must come from one snapshot from one
// statement (READ COMMITTED takes a snapshot per statement). Each holds its
// partition row in share mode until it ends, so nothing that writes the
// partition commits between its answer and its end, where the history
// places it; one that finds no row ends at once.
#include <cassert>
#include <climits>
#include <cstring>

#include "impl/storage/postgres/ack_answer.h"
#include "impl/storage/postgres/pg_sql.h"
#include "impl/storage/postgres/pg_storage.h"
#include "impl/storage/postgres/timestamp_text.h"

namespace qdt::impl::postgres {

std::optional<CoveringSegment> PgStorage::covering(PgTransaction& tx, const std::string& pid, int64_t offset) {
  const StatementOutcome out =
      tx.run(sql::kSegmentAt, {Param::text(pid), Param::text(std::to_string(offset))}, StatementKind::read);
  if (out.rows.empty()) return std::nullopt;
  CoveringSegment seg;
  seg.base_offset = std::stoll(out.value(0, 0));
  seg.end_offset = std::stoll(out.value(0, 1));
  seg.created_at_ms = std::stoll(out.value(0, 2)) / 1000;
  seg.frames = decode_bytea(out.value(0, 3));
  return seg;
}

std::optional<CoveringSegment> PgStorage::covering_segment(const std::string& queue, const std::string& partition,
                                                           int64_t offset) {
  PgTransaction tx = begin(TxnKind::fetch);
  const auto row = find_partition(&tx, queue, partition, RowLock::share);
  if (!row) {
    tx.commit_ungated();
    return std::nullopt;
  }
  std::optional<CoveringSegment> seg = covering(tx, row->pid, offset);
  tx.commit();
  return seg;
}

SidecarRead PgStorage::read_sidecar(const std::string& queue, const std::string& partition, int64_t after_offset,
                                    int64_t since_ms) {
  SidecarRead read;
  PgTransaction tx = begin(TxnKind::hydrate);
  const auto row = find_partition(&tx, queue, partition, RowLock::share);
  if (!row) {
    tx.commit_ungated();
    return read;
  }
  read.last_offset = row->last_offset;
  const StatementOutcome out =
      tx.run(run_.interface().qdt_reads ? sql::kReadTxns : sql::kReadTxnsTables,
             {Param::text(row->pid), Param::text(std::to_string(after_offset)),
              Param::text(std::to_string(timestamp_us_from_ms(since_ms)))},
             StatementKind::read);
  for (const auto& r : out.rows) {
    // The partition's last_offset rides on every row, so rows and it share one snapshot.
    if (r[4]) read.last_offset = std::stoll(*r[4]);
    if (!r[0]) continue;  // the partition has no row in range
    SidecarRow sidecar{std::stoll(*r[0]), std::stoll(*r[1]), std::stoll(*r[2]) / 1000, {}};
    const std::string bytes = decode_bytea(*r[3]);
    assert(bytes.size() % 16 == 0);
    for (size_t i = 0; i < bytes.size(); i += 16) {
      Hash128 h;
      std::memcpy(h.bytes.data(), bytes.data() + i, 16);
      sidecar.hashes.push_back(h);
    }
    read.rows.push_back(std::move(sidecar));
  }
  tx.commit();
  return read;
}

AckResult PgStorage::ack(const std::string& queue, const std::string& partition, const std::string& transaction_id,
                         const std::string& consumer_group) {
  PgTransaction tx = begin(TxnKind::ack);
  AckResult result;
  result.now_ms = clock_.now_ms();
  // Holding the row, no push to it commits before the ack does, and acks of
  // one partition take turns (their consumer-row inserts never wait on one
  // another's); without a row, the ack ends at once (nothing resolved).
  const auto row = find_partition(&tx, queue, partition, RowLock::update);
  if (!row) {
    tx.commit_ungated();
    return result;
  }
  // The interface acks only for a consumer row that exists; one made here
  // for an ack that resolves nothing is removed again, so it never holds
  // back completed retention.
  const bool made = !tx.run(sql::kEnsureConsumer, {Param::text(row->pid), Param::text(consumer_group)},
                            StatementKind::write)
                         .rows.empty();
  const Hash128 hash = hash_transaction_id(transaction_id);
  const Param hash_param = Param::bytes(std::string(reinterpret_cast<const char*>(hash.bytes.data()), 16));
  const StatementOutcome out =
      tx.run(sql::kAck, {Param::text(row->pid), Param::text(consumer_group), hash_param}, StatementKind::write);
  const std::string answer = out.rows.at(0).at(0).value_or("NULL");
  const AckAnswerRead read = read_ack_answer(answer, hash);
  if (!read.problem.empty()) result.answer_problem = read.problem + ": " + answer;
  if (read.resolved) {
    result.acked = true;
    // Resolved with no row holding the key stays offset -1: ack-resolution reports it.
    const StatementOutcome held =
        tx.run(sql::kSmallestHeldOffset, {Param::text(row->pid), hash_param}, StatementKind::read);
    if (const auto smallest = held.rows.at(0).at(0)) result.offset = std::stoll(*smallest);
  }
  if (result.offset >= 0) {
    if (auto seg = covering(tx, row->pid, result.offset)) {
      if (auto frame = frame_at(seg->frames, static_cast<size_t>(result.offset - seg->base_offset))) {
        result.message_id = frame->message_id;
      }
    }
  }
  if (!result.acked && made) {
    tx.run(sql::kDropConsumer, {Param::text(row->pid), Param::text(consumer_group)}, StatementKind::write);
  }
  tx.commit();
  return result;
}

std::vector<StoredMessage> PgStorage::read_messages(PgTransaction* tx, const std::string& queue,
                                                    const std::string& partition, int64_t from, int64_t limit,
                                                    bool* found) {
  std::vector<StoredMessage> messages;
  // A read in a transaction holds the row: it answers as of its commit.
  const auto row = find_partition(tx, queue, partition, tx ? RowLock::share : RowLock::none);
  if (found) *found = row.has_value();
  if (!row) return messages;
  // Every segment holds at least one message: `limit` segments are enough.
  const std::vector<Param> params{Param::text(row->pid), Param::text(std::to_string(from)),
                                  Param::text(std::to_string(limit > 0 ? std::min<int64_t>(limit, INT_MAX) : INT_MAX))};
  const char* statement = run_.interface().qdt_reads ? sql::kReadSegments : sql::kReadSegmentsTables;
  const StatementOutcome out = tx ? tx->run(statement, params, StatementKind::read) : inspect(statement, params);
  for (const auto& r : out.rows) {
    const int64_t base = std::stoll(*r[0]);
    auto frames = unpack_frames(decode_bytea(*r[1]));
    for (size_t i = 0; i < frames.size(); ++i) {
      const int64_t offset = base + static_cast<int64_t>(i);
      if (offset < from) continue;
      if (limit > 0 && static_cast<int64_t>(messages.size()) >= limit) break;
      messages.push_back(
          {offset, frames[i].message_id, std::move(frames[i].transaction_id), std::move(frames[i].payload)});
    }
    if (limit > 0 && static_cast<int64_t>(messages.size()) >= limit) break;
  }
  return messages;
}

std::vector<StoredMessage> PgStorage::read(const std::string& queue, const std::string& partition, int64_t from,
                                           int64_t limit) {
  PgTransaction tx = begin(TxnKind::read);
  bool found = false;
  auto messages = read_messages(&tx, queue, partition, from, limit, &found);
  // Without a row the answer came from the last statement: end at once.
  if (found) {
    tx.commit();
  } else {
    tx.commit_ungated();
  }
  return messages;
}

std::vector<StoredMessage> PgStorage::inspect_messages(const std::string& queue, const std::string& partition) {
  return read_messages(nullptr, queue, partition, 0, 0);
}

}  // namespace qdt::impl::postgres
