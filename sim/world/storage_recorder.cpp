#include "sim/world/storage_recorder.h"

#include <cassert>
#include <sqlite3.h>
#include <variant>

namespace qdt::sim {

namespace {

// `fault` and `busy_waits` as the gate of the call saw them.
void record_push_of(StorageSide& side, uint32_t owner, const history::FaultRecord& fault, uint64_t busy_waits,
                    const impl::SegmentPush& segment, const impl::PushResult* result,
                    const history::PartitionFingerprint& before, const history::PartitionFingerprint& after,
                    bool after_read) {
  history::PushEvent ev;
  ev.broker = owner;
  ev.queue = segment.queue;
  ev.partition = segment.partition;
  ev.p_verified = segment.p_verified;
  ev.window_seconds_assumed = segment.window_seconds_assumed;
  ev.frames.reserve(segment.frames.size());
  for (const impl::Frame& f : segment.frames) {
    ev.frames.push_back({impl::to_string(f.message_id), f.transaction_id, f.origin_request});
  }
  for (const auto& [frame, request] : segment.followers) {
    assert(frame < segment.frames.size());
    ev.followers.push_back({request, segment.frames[frame].transaction_id, frame});
  }
  ev.rows_before = before;
  ev.rows_after = after;
  ev.last_offset_before = before.last_offset;
  ev.last_offset_after = after.last_offset;
  ev.rows_after_read = after_read;
  ev.busy_waits = busy_waits;

  Trace& t = side.trace;
  t.begin(side.clock.now_ms(), "push").field("b", owner).field("q", segment.queue).field("p", segment.partition);
  t.field("pv", segment.p_verified);
  for (const auto& f : ev.frames) t.field("f", f.message_id, '/', f.transaction_id);
  for (const auto& f : ev.followers) t.field("follow", std::to_string(f.request) + "@" + std::to_string(f.frame));
  if (result == nullptr) {
    ev.failed = true;
    ev.fault = fault;
    t.raw("-> failed").field("stmt", ev.fault.statement).field("code", ev.fault.code);
  } else {
    ev.now_ms = result->now_ms;
    ev.window_seconds = result->window_seconds;
    ev.probe_ran = result->probe_ran;
    ev.rows_scanned = result->rows_scanned;
    ev.queued = result->queued;
    ev.base_offset = result->base_offset;
    ev.duplicates = result->duplicates;
    ev.checked = result->checked;
    ev.checked_duplicates = result->checked_duplicates;
    ev.checked_frames_at_or_below_watermark = result->checked_frames_at_or_below_watermark;
    if (result->queued) {
      t.raw("-> queued").field("base", result->base_offset).field("at", result->now_ms);
    } else {
      t.raw("-> duplicate");
      for (const auto& [index, offset] : result->duplicates) {
        t.field("d", std::to_string(index) + "@" + std::to_string(offset));
      }
    }
  }
  t.end();
  side.history.events.emplace_back(std::move(ev));
}

}  // namespace

void record_push(StorageSide& side, const ConnectionGate& gate, const impl::SegmentPush& segment,
                 const impl::PushResult* result, const history::PartitionFingerprint& before,
                 const history::PartitionFingerprint& after, bool after_read) {
  record_push_of(side, gate.owner(), gate.fault(), gate.busy_waits(), segment, result, before, after, after_read);
}

void record_refused_push(StorageSide& side, uint32_t owner, const impl::SegmentPush& segment) {
  // No statement ran, so none is named; nothing was written (before == after).
  record_push_of(side, owner, {-1, SQLITE_IOERR}, 0, segment, nullptr, {}, {}, true);
}

size_t record_fetch(StorageSide& side, uint32_t owner, const std::string& queue, const std::string& partition,
                    int64_t offset, const std::optional<impl::CoveringSegment>* segment) {
  history::FetchEvent ev;
  ev.broker = owner;
  ev.queue = queue;
  ev.partition = partition;
  ev.offset = offset;
  ev.message_id = history::kZeroUuid;
  ev.failed = segment == nullptr;
  if (segment != nullptr && segment->has_value()) {
    const impl::CoveringSegment& s = **segment;
    if (auto frame = impl::frame_at(s.frames, static_cast<size_t>(offset - s.base_offset))) {
      ev.found = true;
      ev.message_id = impl::to_string(frame->message_id);
      ev.transaction_id = frame->transaction_id;
    }
  }
  side.trace.begin(side.clock.now_ms(), "fetch")
      .field("b", owner)
      .field("q", queue)
      .field("p", partition)
      .field("o", offset)
      .field("id", ev.failed ? std::string("failed") : ev.message_id)
      .end();
  side.history.events.emplace_back(std::move(ev));
  return side.history.events.size() - 1;
}

void fail_fetch(StorageSide& side, size_t event) {
  assert(event < side.history.events.size());
  auto* fetch = std::get_if<history::FetchEvent>(&side.history.events[event]);
  assert(fetch != nullptr);
  fetch->failed = true;
  fetch->found = false;
  fetch->message_id = history::kZeroUuid;
  fetch->transaction_id.clear();
}

void record_retention(StorageSide& side, const ConnectionGate& gate, const std::string& queue,
                      const std::string& partition, const impl::RetentionDelete* result) {
  history::RetentionEvent ev;
  ev.queue = queue;
  ev.partition = partition;
  Trace& t = side.trace.begin(side.clock.now_ms(), "retention").field("q", queue).field("p", partition);
  if (result == nullptr) {
    ev.failed = true;
    ev.fault = gate.fault();
    ev.now_ms = side.now_ms();
    t.raw("-> failed");
  } else {
    ev.now_ms = result->now_ms;
    for (const auto& span : result->deleted) {
      ev.deleted.push_back({span.base_offset, span.end_offset, span.created_at_ms});
      t.field("span", std::to_string(span.base_offset) + ".." + std::to_string(span.end_offset));
    }
  }
  t.end();
  side.history.events.emplace_back(std::move(ev));
}

void record_purge(StorageSide& side, const ConnectionGate& gate, const std::string& queue,
                  const std::string& partition, int64_t batch, const impl::PurgeStep* step) {
  history::PurgeEvent ev;
  ev.queue = queue;
  ev.partition = partition;
  ev.batch = batch;
  Trace& t = side.trace.begin(side.clock.now_ms(), "purge").field("q", queue).field("p", partition);
  if (step == nullptr) {
    ev.failed = true;
    ev.fault = gate.fault();
    ev.now_ms = side.now_ms();
    t.raw("-> failed");
  } else {
    ev.now_ms = step->now_ms;
    ev.floor_seconds = step->floor_seconds;
    ev.batch = step->batch;
    ev.more = step->more;
    ev.txns_start_after = step->txns_start_after;
    for (const auto& r : step->rows) ev.rows.push_back({r.base_offset, r.end_offset, r.created_at_ms});
    t.field("floor", step->floor_seconds)
        .field("rows", static_cast<int64_t>(step->rows.size()))
        .field("txns_start", step->txns_start_after);
  }
  t.end();
  side.history.events.emplace_back(std::move(ev));
}

void record_ack(StorageSide& side, const ConnectionGate& gate, const std::string& step, const std::string& queue,
                const std::string& partition, const std::string& transaction_id, const std::string& consumer_group,
                const impl::AckResult* result) {
  history::AckEvent ev{step, queue, partition, transaction_id, consumer_group, side.now_ms(), false, -1, "", false, {}};
  if (result == nullptr) {
    ev.failed = true;
    ev.fault = gate.fault();
  } else {
    ev.now_ms = result->now_ms;
    ev.acked = result->acked;
    ev.offset = result->offset;
    ev.answer_problem = result->answer_problem;
    if (result->acked) ev.message_id = result->message_id ? impl::to_string(*result->message_id) : history::kZeroUuid;
  }
  side.trace.begin(side.clock.now_ms(), "ack")
      .field("q", queue)
      .field("p", partition)
      .field("txn", transaction_id)
      .field("g", consumer_group)
      .field("acked", ev.failed ? -1 : (ev.acked ? 1 : 0))
      .field("o", ev.offset);
  if (!ev.answer_problem.empty()) side.trace.field("problem", ev.answer_problem);
  side.trace.end();
  side.history.events.emplace_back(std::move(ev));
}

void record_lock_failure(StorageSide& side, const ConnectionGate& gate, const char* call, const std::string& step,
                         const std::string& queue, const std::string& partition, int64_t event,
                         const impl::StorageError& failure) {
  if (!failure.deadlock() && !gate.wait_abandoned()) return;
  assert(event < static_cast<int64_t>(side.history.events.size()));
  history::LockFailure f{gate.name(), call, step, queue, partition, side.now_ms(), event, failure.deadlock()};
  side.trace.begin(side.clock.now_ms(), "lock-failure")
      .field("c", f.connection)
      .field("call", f.call)
      .field("q", queue)
      .field("p", partition)
      .field("why", f.deadlock ? "deadlock" : "wait-abandoned")
      .end();
  side.history.lock_failures.push_back(std::move(f));
}

void record_read(StorageSide& side, const std::string& step, const std::string& queue, const std::string& partition,
                 int64_t from, int64_t limit, const std::vector<impl::StoredMessage>* messages) {
  history::ReadEvent ev{step, queue, partition, from, limit, {}};
  Trace& t = side.trace;
  t.begin(side.clock.now_ms(), "read").field("q", queue).field("p", partition).field("from", from);
  if (messages == nullptr) {
    ev.failed = true;
    t.raw("-> failed");
  } else {
    for (const auto& m : *messages) {
      ev.messages.push_back({m.offset, impl::to_string(m.message_id), m.transaction_id});
      t.field("m", std::to_string(m.offset));
    }
  }
  t.end();
  side.history.events.emplace_back(std::move(ev));
}

}  // namespace qdt::sim
