// A broker's bundle (docs/semantics.md §9.5): several partitions' segments
// in one transaction, recorded as one push event per segment at the instant
// the transaction ended, so the checkers judge each partition as they judge
// a lone push, and a failed bundle as that many failed pushes.
#include <cassert>

#include "sim/world/storage_call.h"
#include "sim/world/storage_link.h"
#include "sim/world/storage_recorder.h"

namespace qdt::sim {

std::vector<impl::PushResult> StorageLink::push_bundle(const std::vector<impl::SegmentPush>& segments) {
  assert(segments.size() >= 2);
  // Only PostgreSQL's fingerprints are per partition (an inspector's
  // reading); SQLite's count a connection's writes, which a bundle spreads
  // over several partitions. The world refuses bundles there.
  assert(inspect_);
  if (refuses_call()) {
    for (const impl::SegmentPush& segment : segments) record_refused_push(side_, owner(), segment);
    throw refused();
  }
  const uint64_t entered = side_.power_epoch;
  Lease lease(*this, acquire());
  ConnectionGate& gate = lease.gate();
  impl::StorageEngine& storage = lease.storage();
  std::vector<history::PartitionFingerprint> before(segments.size());
  gate.begin_call([&] {
    for (size_t i = 0; i < segments.size(); ++i) {
      before[i] = lease.fingerprint(Lease::When::before, segments[i].queue, segments[i].partition);
    }
  });
  request_leg(gate, "before-commit");
  std::vector<impl::PushResult> results;
  const std::optional<impl::StorageError> failure = attempt([&] { results = storage.push_bundle(segments); });
  // A bundle that never held its rows' locks wrote nothing: the partitions
  // as they are now are as they were at this point of the commit order.
  if (!gate.locked_in_call() && !failure) {
    for (size_t i = 0; i < segments.size(); ++i) before[i] = inspect_(segments[i].queue, segments[i].partition);
  }
  // As a lone push's (StorageLink::push): no after-inspection once power was lost.
  std::vector<history::PartitionFingerprint> after = before;
  bool after_read = true;
  if (gate.locked_in_call()) {
    if (!lost_since(entered)) {
      for (size_t i = 0; i < segments.size(); ++i) {
        after[i] = lease.fingerprint(Lease::When::after, segments[i].queue, segments[i].partition);
      }
    }
    after_read = failure.has_value() || !lost_since(entered);
    if (!after_read) after = before;
  }
  for (size_t i = 0; i < segments.size(); ++i) {
    record_push(side_, gate, segments[i], failure ? nullptr : &results[i], before[i], after[i], after_read);
  }
  if (failure) {
    record_lock_failure(side_, gate, "push", "", segments.front().queue, segments.front().partition,
                        last_event(side_), *failure);
  }
  response_leg(gate, "after-commit");
  leave(entered);
  if (failure) throw *failure;
  return results;
}

}  // namespace qdt::sim
