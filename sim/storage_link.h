#pragma once
// The round trips of one storage connection, as the broker (StoragePort), the
// retention loop (RetentionPort) and the script's admin steps see them. Each
// call runs one storage transaction through the connection's gate
// (sim/storage_gate.h: statement latency, locks, faults, crashes) and hands
// what storage saw and answered to the recorder (sim/storage_recorder.h) at
// the instant it committed, with no fiber switch in between.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "impl/ports.h"
#include "impl/retention.h"
#include "impl/storage.h"
#include "sim/storage_gate.h"

namespace qdt::sim {

class StorageLink : public impl::StoragePort, public impl::RetentionPort {
 public:
  StorageLink(StorageSide& side, impl::Storage& storage, ConnectionGate& gate)
      : side_(side), storage_(storage), gate_(gate) {}

  // impl::StoragePort
  impl::PushResult push(const impl::SegmentPush& segment) override;
  std::optional<impl::CoveringSegment> covering_segment(const std::string& queue, const std::string& partition,
                                                        int64_t offset) override;
  impl::SidecarRead sidecar_rows(const std::string& queue, const std::string& partition, int64_t after_offset,
                                 int64_t since_ms) override;
  // impl::RetentionPort
  std::vector<std::pair<std::string, std::string>> partitions(const std::optional<std::string>& queue) override;
  impl::RetentionDelete delete_expired_segments(const std::string& queue, const std::string& partition) override;
  impl::PurgeStep purge_step(const std::string& queue, const std::string& partition) override;

  // Script steps. ack and read throw StorageError when a fault failed them.
  impl::QueueOptions configure(const std::string& queue, const nlohmann::json& options);
  impl::AckResult ack(const std::string& step, const std::string& queue, const std::string& partition,
                      const std::string& transaction_id, const std::string& consumer_group);
  std::vector<impl::StoredMessage> read(const std::string& step, const std::string& queue,
                                        const std::string& partition, int64_t from, int64_t limit);
  std::optional<impl::SegmentSpan> delete_segment(const std::string& queue, const std::string& partition,
                                                  int64_t offset);

  impl::Storage& storage() { return storage_; }
  ConnectionGate& gate() { return gate_; }

 private:
  // The request leg of a call (only when statements are not round trips of
  // their own) and the response leg, with the owner's crash noticed after each.
  void request_leg(const char* when);
  void response_leg(const char* when);
  StorageSide& side_;
  impl::Storage& storage_;
  ConnectionGate& gate_;
};

}  // namespace qdt::sim
