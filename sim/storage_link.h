#pragma once
// The world's side of the storage seam: every storage call from a broker or
// from a script step is a round trip that takes seeded virtual latency each
// way, runs the SQL transaction atomically at the storage clock in between,
// and records what storage saw and answered into the history and the trace.
// Injected failures (storage_fail) are a wrapper here, never a branch inside
// impl/.
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "impl/ports.h"
#include "impl/retention.h"
#include "impl/storage.h"
#include "properties/history.h"
#include "sim/rng.h"
#include "sim/trace.h"
#include "sim/virtual_clock.h"
#include "sim/world_config.h"

namespace qdt::sim {

// Shared by every link of one world.
struct StorageSide {
  impl::Storage& storage;
  VirtualClock& clock;
  history::History& history;
  Trace& trace;
  Rng& rng;  // latencies
  const StorageConfig& config;
  int64_t failures_pending = 0;  // storage_fail: next N push transactions fail whole
  int64_t now_ms() const { return kEpochUnixMs + clock.now_ms(); }
};

// Thrown into a broker's in-flight work when the broker crashed while its
// storage round trip was out: the work is lost, before or after the commit.
// It is not a StorageError: the broker does not answer `error`, it answers
// nothing at all.
class BrokerCrashed : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class StorageLink : public impl::StoragePort, public impl::RetentionPort {
 public:
  // `broker` names the caller in the history (a broker index, or kAdmin for script steps).
  static constexpr uint32_t kAdmin = 0xffffffffu;
  // `epoch` counts the broker's crashes (null for the admin link).
  StorageLink(StorageSide& side, uint32_t broker, const uint64_t* epoch = nullptr)
      : side_(side), broker_(broker), epoch_(epoch) {}

  // impl::StoragePort
  impl::PushResult push(const impl::SegmentPush& segment) override;
  std::optional<impl::CoveringSegment> covering_segment(const std::string& queue, const std::string& partition,
                                                        int64_t offset) override;
  impl::SidecarRead sidecar_rows(const std::string& queue, const std::string& partition, int64_t after_offset,
                                 int64_t since_ms) override;
  // impl::RetentionPort
  std::vector<std::pair<std::string, std::string>> partitions(const std::optional<std::string>& queue) override;
  std::vector<impl::SegmentSpan> delete_expired_segments(const std::string& queue,
                                                         const std::string& partition) override;
  impl::PurgeStep purge_step(const std::string& queue, const std::string& partition) override;

  // Script steps.
  impl::QueueOptions configure(const std::string& queue, const nlohmann::json& options);
  impl::AckResult ack(const std::string& step, const std::string& queue, const std::string& partition,
                      const std::string& transaction_id, const std::string& consumer_group);
  std::vector<impl::StoredMessage> read(const std::string& step, const std::string& queue,
                                        const std::string& partition, int64_t from, int64_t limit);
  std::optional<impl::SegmentSpan> delete_segment(const std::string& queue, const std::string& partition,
                                                  int64_t offset);

 private:
  void one_way();
  uint64_t epoch() const { return epoch_ ? *epoch_ : 0; }
  // Throws BrokerCrashed when the broker crashed since `start`.
  void survive(uint64_t start, const char* when);
  StorageSide& side_;
  uint32_t broker_;
  const uint64_t* epoch_;
};

}  // namespace qdt::sim
