#pragma once
// The round trips of one storage client (a broker, the retention loop, the
// script's admin), as the broker (StoragePort), the retention loop
// (RetentionPort) and the script's admin steps see them. A client owns a
// small pool of connections, as a Queen broker owns a pool of PostgreSQL
// connections: each call leases one (waiting in virtual time while all are
// busy) and runs one storage transaction through that connection's gate
// (sim/world/storage_gate.h: statement latency, locks, faults, crashes) and hands
// what storage saw and answered to the recorder (sim/world/storage_recorder.h) at
// the instant it committed, with no fiber switch in between.
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "impl/broker/ports.h"
#include "impl/storage/engine.h"
#include "impl/storage/retention.h"
#include "impl/storage/sqlite/storage.h"
#include "sim/world/storage_gate.h"
#include "sim/world/storage_pool.h"
#include "sim/world/write_counter.h"

namespace qdt::sim {

class StorageLink : public impl::StoragePort, public impl::RetentionPort {
 public:
  // Opens one connection whose statements cross `gate`.
  using Open = std::function<StorageHandle(impl::StatementGate* gate)>;
  // The recorder's fingerprint of a partition read through an inspector of
  // the engine's own; empty: SQLite's, from the connection's write counter
  // (sim/world/write_counter.h).
  using Inspect = std::function<history::PartitionFingerprint(const std::string& queue, const std::string& partition)>;
  // `owner` and `epoch` as ConnectionGate's; `connections` >= 1, all opened now
  // (opening one later could meet a writer's lock while reading the schema).
  // `notices_restart`: the client learns of a storage restart through a
  // failed call (a broker must, to forget what its cache learnt); others
  // (admin, retention) reconnect silently.
  StorageLink(StorageSide& side, uint32_t owner, const uint64_t* epoch, const Open& open, size_t connections,
              bool notices_restart = false, Inspect inspect = {});

  // Storage lost power and came back (crash_storage): every connection is
  // replaced by a fresh one — an idle one at once, a busy one when its call
  // (which fails) ends. Calls entered before the restart fail with
  // StorageError::connection_lost, and so does the first call of a client
  // that notices restarts.
  void restart();

  // impl::StoragePort
  impl::PushResult push(const impl::SegmentPush& segment) override;
  // PostgreSQL only (storage_link_bundle.cpp).
  std::vector<impl::PushResult> push_bundle(const std::vector<impl::SegmentPush>& segments) override;
  std::optional<impl::CoveringSegment> covering_segment(const std::string& queue, const std::string& partition,
                                                        int64_t offset) override;
  impl::SidecarRead sidecar_rows(const std::string& queue, const std::string& partition, int64_t after_offset,
                                 int64_t since_ms) override;
  // impl::RetentionPort
  std::vector<std::pair<std::string, std::string>> partitions(const std::optional<std::string>& queue) override;
  impl::RetentionDelete delete_expired_segments(const std::string& queue, const std::string& partition) override;
  impl::PurgeStep purge_step(const std::string& queue, const std::string& partition) override;

  // Script steps. ack and read throw StorageError when a fault failed them;
  // every step throws StorageError::connection_lost when storage lost power
  // during its call, having recorded only what committed (the caller may
  // send it again: impl::Broker::kLostConnectionRetriesMax).
  impl::QueueOptions configure(const std::string& queue, const nlohmann::json& options);
  impl::AckResult ack(const std::string& step, const std::string& queue, const std::string& partition,
                      const std::string& transaction_id, const std::string& consumer_group);
  std::vector<impl::StoredMessage> read(const std::string& step, const std::string& queue,
                                        const std::string& partition, int64_t from, int64_t limit);
  std::optional<impl::SegmentSpan> delete_segment(const std::string& queue, const std::string& partition,
                                                  int64_t offset);

  // Read-only inspection between transactions (the first connection).
  impl::StorageEngine& storage() { return *conns_.front()->storage; }
  // The names of this client's connections still inside a transaction.
  void open_transactions(std::vector<std::string>& out) const;

 private:
  struct Conn {
    ConnectionGate gate;
    StorageHandle storage;
    bool busy = false;
    StorageHandle replacement = nullptr;  // opened at a restart, swapped in when the call ends
    // Reads an unpooled `storage`'s write counter (a pooled one's lives in
    // its slot: sim/world/storage_pool.h); reset whenever `storage` is (its
    // statement must be finalized before the connection closes).
    std::unique_ptr<WriteCounter> written = nullptr;
  };
  // A connection held for one call; released (and the next waiter woken) at scope exit.
  class Lease {
   public:
    Lease(StorageLink& link, Conn& conn) : link_(link), conn_(conn) {}
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease();
    ConnectionGate& gate() { return conn_.gate; }
    impl::StorageEngine& storage() { return *conn_.storage; }
    // The recorder's fingerprint of `queue`/`partition` on this connection:
    // before a transaction, or after it ended (WriteCounter::fingerprint_after).
    enum class When { before, after };
    history::PartitionFingerprint fingerprint(When when, const std::string& queue, const std::string& partition);

   private:
    StorageLink& link_;
    Conn& conn_;
  };
  static constexpr int64_t kLeaseWaitMs = 60'000;
  static constexpr uint32_t kLeaseWaitsMax = 10'000;
  Conn& acquire();
  // True once per storage restart for a client that notices restarts: its
  // next call is refused (StorageError::connection_lost, nothing reaches
  // storage).
  bool refuses_call();
  // The power epoch a call entered with; throws connection_lost when the
  // call is refused.
  uint64_t enter();
  uint32_t owner() const { return conns_.front()->gate.owner(); }
  // Throws connection_lost when storage restarted during the call.
  void leave(uint64_t entered);
  bool lost_since(uint64_t entered) const { return entered != side_.power_epoch; }
  // The request leg of a call (only when statements are not round trips of
  // their own) and the response leg, with the owner's crash noticed after each.
  void request_leg(ConnectionGate& gate, const char* when);
  void response_leg(ConnectionGate& gate, const char* when);
  StorageSide& side_;
  Open open_;
  Inspect inspect_;
  bool notices_restart_;
  uint64_t observed_power_epoch_ = 0;
  std::vector<std::unique_ptr<Conn>> conns_;
  std::vector<VirtualClock::Wakeup*> waiters_;  // FIFO
};

}  // namespace qdt::sim
