#include "sim/storage_link.h"

#include <cassert>
#include <nlohmann/json.hpp>

namespace qdt::sim {

void StorageLink::one_way() {
  side_.clock.sleep_for(side_.rng.between(side_.config.latency_ms_min, side_.config.latency_ms_max));
}

void StorageLink::survive(uint64_t start, const char* when) {
  if (epoch() == start) return;
  side_.trace.begin(side_.clock.now_ms(), "crash-lost").field("b", broker_).field("when", when).end();
  throw BrokerCrashed(std::string("broker crashed ") + when);
}

impl::PushResult StorageLink::push(const impl::SegmentPush& segment) {
  const uint64_t start = epoch();
  one_way();
  survive(start, "before-commit");
  history::PushEvent ev;
  ev.broker = broker_;
  ev.queue = segment.queue;
  ev.partition = segment.partition;
  ev.p_verified = segment.p_verified;
  ev.frames.reserve(segment.frames.size());
  for (const impl::Frame& f : segment.frames) {
    ev.frames.push_back({impl::to_string(f.message_id), f.transaction_id, f.origin_request});
  }
  // Read-only inspection around the transaction, for nothing-written-on-duplicate.
  ev.last_offset_before = side_.storage.partition_state(segment.queue, segment.partition).last_offset;
  ev.rows_before = {};  // TEMP: compiles against the new history.h; replaced by the storage rewrite
  ev.now_ms = side_.now_ms();

  Trace& t = side_.trace;
  t.begin(side_.clock.now_ms(), "push").field("b", broker_).field("q", segment.queue).field("p", segment.partition);
  t.field("pv", segment.p_verified);
  for (const auto& f : ev.frames) t.field("f", f.message_id + "/" + f.transaction_id);

  impl::PushResult result;
  std::optional<impl::StorageError> failure;
  if (side_.failures_pending > 0) {
    side_.failures_pending--;
    ev.failed = true;
    failure.emplace("injected storage failure: the transaction failed whole");
    t.raw("-> failed");
  } else {
    if (segment.p_verified >= 0) {
      // Checked mode: the authority's answer without the watermark, same instant.
      impl::Storage::ProbeCheck check = side_.storage.check_probe(segment, ev.now_ms);
      ev.checked = true;
      ev.checked_duplicates = std::move(check.duplicates);
      ev.checked_frames_at_or_below_watermark = check.frames_at_or_below_watermark;
    }
    result = side_.storage.push(segment, ev.now_ms);
    ev.window_seconds = result.window_seconds;
    ev.probe_ran = result.probe_ran;
    ev.rows_scanned = result.rows_scanned;
    ev.queued = result.queued;
    ev.base_offset = result.base_offset;
    ev.duplicates = result.duplicates;
    if (result.queued) {
      t.raw("-> queued").field("base", result.base_offset);
    } else {
      t.raw("-> duplicate");
      for (const auto& [index, offset] : result.duplicates) {
        t.field("d", std::to_string(index) + "@" + std::to_string(offset));
      }
    }
  }
  t.end();
  ev.last_offset_after = side_.storage.partition_state(segment.queue, segment.partition).last_offset;
  ev.rows_after = {};  // TEMP: compiles against the new history.h; replaced by the storage rewrite
  side_.history.events.emplace_back(std::move(ev));
  one_way();
  survive(start, "after-commit");
  if (failure) throw *failure;
  return result;
}

std::optional<impl::CoveringSegment> StorageLink::covering_segment(const std::string& queue,
                                                                   const std::string& partition, int64_t offset) {
  const uint64_t start = epoch();
  one_way();
  survive(start, "before-fetch");
  auto segment = side_.storage.covering_segment(queue, partition, offset);
  history::FetchEvent ev;
  ev.broker = broker_;
  ev.queue = queue;
  ev.partition = partition;
  ev.offset = offset;
  ev.message_id = history::kZeroUuid;
  if (segment) {
    if (auto frame = impl::frame_at(segment->frames, static_cast<size_t>(offset - segment->base_offset))) {
      ev.found = true;
      ev.message_id = impl::to_string(frame->message_id);
      ev.transaction_id = frame->transaction_id;
    }
  }
  side_.trace.begin(side_.clock.now_ms(), "fetch")
      .field("b", broker_)
      .field("q", queue)
      .field("p", partition)
      .field("o", offset)
      .field("id", ev.message_id)
      .end();
  side_.history.events.emplace_back(std::move(ev));
  one_way();
  survive(start, "after-fetch");
  return segment;
}

impl::SidecarRead StorageLink::sidecar_rows(const std::string& queue, const std::string& partition,
                                           int64_t after_offset, int64_t since_ms) {
  // Hydration is a storage round trip like any other: other fibers run meanwhile.
  const uint64_t start = epoch();
  one_way();
  survive(start, "before-hydrate");
  impl::SidecarRead read = side_.storage.read_sidecar(queue, partition, after_offset, since_ms);
  side_.trace.begin(side_.clock.now_ms(), "hydrate")
      .field("b", broker_)
      .field("q", queue)
      .field("p", partition)
      .field("after", after_offset)
      .field("rows", static_cast<int64_t>(read.rows.size()))
      .field("last", read.last_offset)
      .end();
  one_way();
  survive(start, "after-hydrate");
  return read;
}

std::vector<std::pair<std::string, std::string>> StorageLink::partitions(const std::optional<std::string>& queue) {
  one_way();
  auto out = side_.storage.partitions(queue);
  one_way();
  return out;
}

std::vector<impl::SegmentSpan> StorageLink::delete_expired_segments(const std::string& queue,
                                                                    const std::string& partition) {
  one_way();
  const int64_t now = side_.now_ms();
  auto deleted = side_.storage.delete_expired_segments(queue, partition, now);
  for (const auto& span : deleted) {
    side_.history.events.emplace_back(
        history::DeleteSegmentEvent{queue, partition, now, span.base_offset, span.end_offset, false});
    side_.trace.begin(side_.clock.now_ms(), "retention-delete")
        .field("q", queue)
        .field("p", partition)
        .field("span", std::to_string(span.base_offset) + ".." + std::to_string(span.end_offset))
        .end();
  }
  one_way();
  return deleted;
}

impl::PurgeStep StorageLink::purge_step(const std::string& queue, const std::string& partition) {
  one_way();
  const int64_t now = side_.now_ms();
  impl::PurgeStep step = side_.storage.purge_step(queue, partition, now);
  history::PurgeEvent ev;
  ev.queue = queue;
  ev.partition = partition;
  ev.now_ms = now;
  ev.floor_seconds = step.floor_seconds;
  ev.txns_start_after = step.txns_start_after;
  for (const auto& r : step.rows) ev.rows.push_back({r.base_offset, r.end_offset, r.created_at_ms});
  side_.trace.begin(side_.clock.now_ms(), "purge")
      .field("q", queue)
      .field("p", partition)
      .field("floor", step.floor_seconds)
      .field("rows", static_cast<int64_t>(step.rows.size()))
      .field("txns_start", step.txns_start_after)
      .end();
  side_.history.events.emplace_back(std::move(ev));
  one_way();
  return step;
}

impl::QueueOptions StorageLink::configure(const std::string& queue, const nlohmann::json& options) {
  one_way();
  impl::QueueOptions next = side_.storage.options(queue);
  const auto error = impl::apply_options(options, "", next);
  assert(!error && "options are validated when the scenario loads");
  (void)error;
  side_.storage.configure(queue, next);
  side_.history.events.emplace_back(history::ConfigureEvent{queue, side_.now_ms(), next.dedup_window_seconds,
                                                            next.retention_seconds,
                                                            next.completed_retention_seconds});
  side_.trace.begin(side_.clock.now_ms(), "configure")
      .field("q", queue)
      .field("window", next.dedup_window_seconds)
      .field("retention", next.retention_seconds)
      .field("completed", next.completed_retention_seconds)
      .end();
  one_way();
  return next;
}

impl::AckResult StorageLink::ack(const std::string& step, const std::string& queue, const std::string& partition,
                                 const std::string& transaction_id, const std::string& consumer_group) {
  one_way();
  const int64_t now = side_.now_ms();
  impl::AckResult result = side_.storage.ack(queue, partition, transaction_id, consumer_group, now);
  history::AckEvent ev{step, queue, partition, transaction_id, consumer_group, now, result.acked, result.offset,
                       result.acked ? (result.message_id ? impl::to_string(*result.message_id) : history::kZeroUuid)
                                    : ""};
  side_.trace.begin(side_.clock.now_ms(), "ack")
      .field("q", queue)
      .field("p", partition)
      .field("txn", transaction_id)
      .field("acked", result.acked ? 1 : 0)
      .field("o", result.offset)
      .end();
  side_.history.events.emplace_back(std::move(ev));
  one_way();
  return result;
}

std::vector<impl::StoredMessage> StorageLink::read(const std::string& step, const std::string& queue,
                                                   const std::string& partition, int64_t from, int64_t limit) {
  one_way();
  auto messages = side_.storage.read(queue, partition, from, limit);
  history::ReadEvent ev{step, queue, partition, from, limit, {}};
  Trace& t = side_.trace;
  t.begin(side_.clock.now_ms(), "read").field("q", queue).field("p", partition).field("from", from);
  for (const auto& m : messages) {
    ev.messages.push_back({m.offset, impl::to_string(m.message_id), m.transaction_id});
    t.field("m", std::to_string(m.offset));
  }
  t.end();
  side_.history.events.emplace_back(std::move(ev));
  one_way();
  return messages;
}

std::optional<impl::SegmentSpan> StorageLink::delete_segment(const std::string& queue, const std::string& partition,
                                                             int64_t offset) {
  one_way();
  auto span = side_.storage.delete_segment(queue, partition, offset);
  if (span) {
    side_.history.events.emplace_back(
        history::DeleteSegmentEvent{queue, partition, side_.now_ms(), span->base_offset, span->end_offset, true});
  }
  side_.trace.begin(side_.clock.now_ms(), "delete-segment")
      .field("q", queue)
      .field("p", partition)
      .field("o", offset)
      .field("deleted", span ? 1 : 0)
      .end();
  one_way();
  return span;
}

}  // namespace qdt::sim
