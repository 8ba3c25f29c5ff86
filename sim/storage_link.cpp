#include "sim/storage_link.h"

#include <cassert>
#include <nlohmann/json.hpp>

#include "sim/storage_recorder.h"

namespace qdt::sim {
namespace {

// Runs one storage call; a StorageError is returned, not thrown, so the
// caller leaves the handler before any fiber switch (an exception being
// handled must not cross one) and records the failure first.
template <typename Call>
std::optional<impl::StorageError> attempt(Call&& call) {
  try {
    call();
  } catch (const impl::StorageError& e) {
    return e;
  }
  return std::nullopt;
}

}  // namespace

void StorageLink::request_leg(const char* when) {
  // With statement-level interleaving every statement is its own round trip.
  if (!side_.config.interleave) side_.one_way();
  gate_.survive(when);
}

void StorageLink::response_leg(const char* when) {
  side_.one_way();
  gate_.survive(when);
}

impl::PushResult StorageLink::push(const impl::SegmentPush& segment) {
  // The fingerprints are read on this connection while it holds the write
  // lock (before) and right after the transaction ended (after): nothing else
  // can commit in between, so they show what this transaction wrote.
  history::PartitionFingerprint before;
  gate_.begin_call([&] { before = fingerprint(storage_.partition_rows(segment.queue, segment.partition)); });
  request_leg("before-commit");
  impl::PushResult result;
  const std::optional<impl::StorageError> failure = attempt([&] { result = storage_.push(segment); });
  const history::PartitionFingerprint after =
      failure && !gate_.locked_in_call() ? before
                                         : fingerprint(storage_.partition_rows(segment.queue, segment.partition));
  record_push(side_, gate_, segment, failure ? nullptr : &result, before, after);
  response_leg("after-commit");
  if (failure) throw *failure;
  return result;
}

std::optional<impl::CoveringSegment> StorageLink::covering_segment(const std::string& queue,
                                                                   const std::string& partition, int64_t offset) {
  gate_.begin_call();
  request_leg("before-fetch");
  std::optional<impl::CoveringSegment> segment;
  const std::optional<impl::StorageError> failure = attempt([&] { segment = storage_.covering_segment(queue, partition, offset); });
  record_fetch(side_, gate_, queue, partition, offset, failure ? nullptr : &segment);
  response_leg("after-fetch");
  if (failure) throw *failure;
  return segment;
}

impl::SidecarRead StorageLink::sidecar_rows(const std::string& queue, const std::string& partition,
                                           int64_t after_offset, int64_t since_ms) {
  // Hydration is a storage round trip like any other: other fibers run meanwhile.
  gate_.begin_call();
  request_leg("before-hydrate");
  impl::SidecarRead read;
  const std::optional<impl::StorageError> failure = attempt([&] { read = storage_.read_sidecar(queue, partition, after_offset, since_ms); });
  Trace& t = side_.trace.begin(side_.clock.now_ms(), "hydrate")
                 .field("b", gate_.owner())
                 .field("q", queue)
                 .field("p", partition)
                 .field("after", after_offset);
  if (failure) {
    t.raw("-> failed");
  } else {
    t.field("rows", static_cast<int64_t>(read.rows.size())).field("last", read.last_offset);
  }
  t.end();
  response_leg("after-hydrate");
  if (failure) throw *failure;
  return read;
}

std::vector<std::pair<std::string, std::string>> StorageLink::partitions(const std::optional<std::string>& queue) {
  gate_.begin_call();
  request_leg("before-list");
  auto out = storage_.partitions(queue);
  response_leg("after-list");
  return out;
}

impl::RetentionDelete StorageLink::delete_expired_segments(const std::string& queue, const std::string& partition) {
  gate_.begin_call();
  request_leg("before-retention");
  impl::RetentionDelete result;
  const std::optional<impl::StorageError> failure = attempt([&] { result = storage_.delete_expired_segments(queue, partition); });
  record_retention(side_, gate_, queue, partition, failure ? nullptr : &result);
  response_leg("after-retention");
  if (failure) throw *failure;
  return result;
}

impl::PurgeStep StorageLink::purge_step(const std::string& queue, const std::string& partition) {
  gate_.begin_call();
  request_leg("before-purge");
  impl::PurgeStep step;
  const std::optional<impl::StorageError> failure = attempt([&] { step = storage_.purge_step(queue, partition); });
  record_purge(side_, gate_, queue, partition, side_.config.purge_batch, failure ? nullptr : &step);
  response_leg("after-purge");
  if (failure) throw *failure;
  return step;
}

impl::QueueOptions StorageLink::configure(const std::string& queue, const nlohmann::json& options) {
  gate_.begin_call();
  request_leg("before-configure");
  const impl::QueueOptions next = storage_.configure(queue, options);
  side_.history.events.emplace_back(history::ConfigureEvent{queue, side_.now_ms(), next.dedup_window_seconds,
                                                            next.retention_seconds,
                                                            next.completed_retention_seconds});
  side_.trace.begin(side_.clock.now_ms(), "configure")
      .field("q", queue)
      .field("window", next.dedup_window_seconds)
      .field("retention", next.retention_seconds)
      .field("completed", next.completed_retention_seconds)
      .end();
  response_leg("after-configure");
  return next;
}

impl::AckResult StorageLink::ack(const std::string& step, const std::string& queue, const std::string& partition,
                                 const std::string& transaction_id, const std::string& consumer_group) {
  gate_.begin_call();
  request_leg("before-ack");
  impl::AckResult result;
  const std::optional<impl::StorageError> failure = attempt([&] { result = storage_.ack(queue, partition, transaction_id, consumer_group); });
  record_ack(side_, gate_, step, queue, partition, transaction_id, consumer_group, failure ? nullptr : &result);
  response_leg("after-ack");
  if (failure) throw *failure;
  return result;
}

std::vector<impl::StoredMessage> StorageLink::read(const std::string& step, const std::string& queue,
                                                   const std::string& partition, int64_t from, int64_t limit) {
  gate_.begin_call();
  request_leg("before-read");
  std::vector<impl::StoredMessage> messages;
  const std::optional<impl::StorageError> failure = attempt([&] { messages = storage_.read(queue, partition, from, limit); });
  record_read(side_, step, queue, partition, from, limit, failure ? nullptr : &messages);
  response_leg("after-read");
  if (failure) throw *failure;
  return messages;
}

std::optional<impl::SegmentSpan> StorageLink::delete_segment(const std::string& queue, const std::string& partition,
                                                             int64_t offset) {
  gate_.begin_call();
  request_leg("before-delete");
  auto span = storage_.delete_segment(queue, partition, offset);
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
  response_leg("after-delete");
  return span;
}

}  // namespace qdt::sim
