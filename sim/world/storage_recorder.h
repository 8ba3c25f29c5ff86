#pragma once
// Turns what one storage transaction saw and answered into history events
// (properties/history.h) and trace lines. Called by the link at the instant
// the transaction committed or rolled back, so events land in commit order.
#include <optional>
#include <string>
#include <vector>

#include "impl/storage/storage_types.h"
#include "properties/history.h"
#include "sim/world/storage_gate.h"
#include "sim/world/write_counter.h"

namespace qdt::sim {

// `result` is null when the transaction failed (`gate.fault()` says where);
// `after_read` false when power was lost before `after` could be read.
void record_push(StorageSide& side, const ConnectionGate& gate, const impl::SegmentPush& segment,
                 const impl::PushResult* result, const history::PartitionFingerprint& before,
                 const history::PartitionFingerprint& after, bool after_read);
// A push the link refused before it reached storage (the broker had a storage
// restart to notice): a failed transaction at no statement (SQLITE_IOERR).
void record_refused_push(StorageSide& side, uint32_t owner, const impl::SegmentPush& segment);
// `segment` is null when the read failed; returns the event's index.
size_t record_fetch(StorageSide& side, uint32_t owner, const std::string& queue, const std::string& partition,
                    int64_t offset, const std::optional<impl::CoveringSegment>* segment);
// The fetch recorded at `event` read storage, but its answer was lost with
// the connection (storage lost power): the broker got nothing, as from a
// failed read, so the event says failed.
void fail_fetch(StorageSide& side, size_t event);
void record_retention(StorageSide& side, const ConnectionGate& gate, const std::string& queue,
                      const std::string& partition, const impl::RetentionDelete* result);
void record_purge(StorageSide& side, const ConnectionGate& gate, const std::string& queue,
                  const std::string& partition, int64_t batch, const impl::PurgeStep* step);
void record_ack(StorageSide& side, const ConnectionGate& gate, const std::string& step, const std::string& queue,
                const std::string& partition, const std::string& transaction_id, const std::string& consumer_group,
                const impl::AckResult* result);
// When `failure` (what the call raised) is a deadlock victim's, or the call
// gave up a lock wait, records a history::LockFailure and a trace line;
// `event` is the failed transaction's event, -1 when the call records none.
void record_lock_failure(StorageSide& side, const ConnectionGate& gate, const char* call, const std::string& step,
                         const std::string& queue, const std::string& partition, int64_t event,
                         const impl::StorageError& failure);
void record_read(StorageSide& side, const std::string& step, const std::string& queue, const std::string& partition,
                 int64_t from, int64_t limit, const std::vector<impl::StoredMessage>* messages);

}  // namespace qdt::sim
