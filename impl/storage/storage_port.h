#pragma once
// The broker's one way to storage, whatever the engine behind it: the world
// implements it over a connection of the engine the run chose.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "impl/storage/storage_types.h"

namespace qdt::impl {

// A round trip to storage. May suspend the calling fiber (virtual latency);
// throws StorageError when the transaction failed whole.
class StoragePort {
 public:
  virtual ~StoragePort() = default;
  virtual PushResult push(const SegmentPush& segment) = 0;
  // Several partitions' first segments in one transaction, answered in
  // order; throws StorageError when the transaction failed whole.
  virtual std::vector<PushResult> push_bundle(const std::vector<SegmentPush>& segments) {
    throw StorageError("this storage port does not push bundles");
  }
  virtual std::optional<CoveringSegment> covering_segment(const std::string& queue, const std::string& partition,
                                                          int64_t offset) = 0;
  // Cache hydration (docs/semantics.md §2.11). A port that cannot serve it throws, and the
  // cache answers -1: slower, never wrong.
  virtual SidecarRead sidecar_rows(const std::string& queue, const std::string& partition, int64_t after_offset,
                                   int64_t since_ms) {
    throw StorageError("this storage port does not serve cache hydration");
  }
};

}  // namespace qdt::impl
