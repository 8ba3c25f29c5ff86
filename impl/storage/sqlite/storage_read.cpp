// The read paths (docs/semantics.md §2.6, 2.9, 2.10, 2.11): the covering fetch that
// resolves a duplicate's id, the hydration read of the cache, ack by
// transactionId, and read. Each runs in its own transaction, so its rows come
// from one snapshot.
#include <cassert>
#include <cstring>

#include "impl/storage/sqlite/storage.h"

namespace qdt::impl {

std::optional<CoveringSegment> Storage::covering(int64_t partition_id, int64_t offset) {
  Statement& s = st_->covering.reset().bind(1, partition_id).bind(2, offset);
  std::optional<CoveringSegment> seg;
  if (conn_.step(s, StatementKind::read) && s.column_int(0) <= offset) {
    seg.emplace();
    seg->base_offset = s.column_int(0);
    seg->end_offset = s.column_int(1);
    seg->created_at_ms = s.column_int(2);
    seg->frames = std::string(s.column_blob(3));
  }
  s.reset();
  return seg;
}

std::optional<CoveringSegment> Storage::covering_segment(const std::string& queue, const std::string& partition,
                                                         int64_t offset) {
  Txn tx(conn_, TxnKind::fetch, false);
  std::optional<CoveringSegment> seg;
  if (const auto row = find_partition(queue, partition)) seg = covering(row->partition_id, offset);
  tx.commit();
  return seg;
}

SidecarRead Storage::read_sidecar(const std::string& queue, const std::string& partition, int64_t after_offset,
                                  int64_t since_ms) {
  SidecarRead out;
  Txn tx(conn_, TxnKind::hydrate, false);  // rows and last_offset from one snapshot
  if (const auto row = find_partition(queue, partition)) {
    out.last_offset = row->last_offset;
    Statement& s = st_->read_sidecar.reset().bind(1, row->partition_id).bind(2, after_offset).bind(3, since_ms);
    for (bool more = conn_.step(s, StatementKind::read); more; more = s.step()) {
      SidecarRow r{s.column_int(0), s.column_int(1), s.column_int(2), {}};
      const std::string_view blob = s.column_blob(3);
      assert(blob.size() % 16 == 0);
      for (size_t i = 0; i < blob.size(); i += 16) {
        Hash128 h;
        std::memcpy(h.bytes.data(), blob.data() + i, 16);
        r.hashes.push_back(h);
      }
      out.rows.push_back(std::move(r));
    }
    s.reset();
  }
  tx.commit();
  return out;
}

AckResult Storage::ack(const std::string& queue, const std::string& partition, const std::string& transaction_id,
                       const std::string& consumer_group) {
  Txn tx(conn_, TxnKind::ack, true);
  AckResult result;
  result.now_ms = clock_.now_ms();
  const auto row = find_partition(queue, partition);
  // The group's committed offset moves to the key's smallest offset above it
  // (acks commit cumulatively, docs/semantics.md §9.4); the answer is the
  // key's smallest offset (§2.9).
  int64_t committed = -1;
  bool has_committed = false;
  int64_t commit_to = -1;
  if (row) {
    Statement& c = st_->read_committed.reset().bind(1, row->partition_id).bind(2, consumer_group);
    if (conn_.step(c, StatementKind::read)) {
      committed = c.column_int(0);
      has_committed = true;
    }
    c.reset();
    const Hash128 hash = hash_transaction_id(transaction_id);
    Statement& s = st_->ack_probe.reset().bind(1, row->partition_id).bind_blob(2, hash.bytes.data(), 16);
    for (bool more = conn_.step(s, StatementKind::read); more; more = s.step()) {
      const std::string_view pairs = s.column_blob(1);
      assert(pairs.size() >= 8);
      const int64_t offset = s.column_int(0) + match_u32(pairs.data() + 4);
      if (!result.acked) {
        result.acked = true;
        result.offset = offset;
      }
      if (offset > committed) {
        commit_to = offset;
        break;
      }
    }
    s.reset();
  }
  if (result.acked) {
    if (commit_to >= 0 || !has_committed) {
      conn_.run(st_->write_committed.reset()
                    .bind(1, row->partition_id)
                    .bind(2, consumer_group)
                    .bind(3, commit_to >= 0 ? commit_to : committed));
    }
    if (auto seg = covering(row->partition_id, result.offset)) {
      if (auto frame = frame_at(seg->frames, static_cast<size_t>(result.offset - seg->base_offset))) {
        result.message_id = frame->message_id;
      }
    }
  }
  tx.commit();
  return result;
}

std::vector<StoredMessage> Storage::read_messages(const std::string& queue, const std::string& partition,
                                                  int64_t from, int64_t limit, bool gated) {
  std::vector<StoredMessage> out;
  const auto row = find_partition(queue, partition, gated);
  if (!row) return out;
  Statement& s = st_->read_segments.reset().bind(1, row->partition_id).bind(2, from);
  for (bool more = step(s, StatementKind::read, gated); more; more = s.step()) {
    const int64_t base = s.column_int(0);
    auto frames = unpack_frames(s.column_blob(1));
    for (size_t i = 0; i < frames.size(); ++i) {
      const int64_t offset = base + static_cast<int64_t>(i);
      if (offset < from) continue;
      if (limit > 0 && static_cast<int64_t>(out.size()) >= limit) break;
      out.push_back({offset, frames[i].message_id, std::move(frames[i].transaction_id), std::move(frames[i].payload)});
    }
    if (limit > 0 && static_cast<int64_t>(out.size()) >= limit) break;
  }
  s.reset();
  return out;
}

std::vector<StoredMessage> Storage::read(const std::string& queue, const std::string& partition, int64_t from,
                                         int64_t limit) {
  Txn tx(conn_, TxnKind::read, false);
  auto out = read_messages(queue, partition, from, limit, true);
  tx.commit();
  return out;
}

std::vector<StoredMessage> Storage::inspect_messages(const std::string& queue, const std::string& partition) {
  return read_messages(queue, partition, 0, 0, false);
}

}  // namespace qdt::impl
