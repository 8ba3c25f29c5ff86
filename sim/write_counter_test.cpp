#include "sim/write_counter.h"

#include <gtest/gtest.h>

#include "sim/test_segment.h"

#include "impl/storage.h"

namespace qdt::sim {
namespace {


// Fails the COMMIT of every write transaction: the transaction rolls back.
struct FailingCommit : impl::StatementGate {
  bool armed = false;
  int before_statement(impl::TxnKind, int64_t, impl::StatementKind kind) override {
    return armed && kind == impl::StatementKind::commit ? SQLITE_IOERR : SQLITE_OK;
  }
};

bool operator==(const WrittenRows& a, const WrittenRows& b) {
  return a.segments == b.segments && a.sidecar_rows == b.sidecar_rows;
}

TEST(WriteCounter, CountsCommittedWritesOnly) {
  impl::ManualClock clock(1000);
  FailingCommit gate;
  const std::string uri = impl::Storage::shared_memory_uri("write-counter-test");
  impl::Storage storage(uri, clock, &gate);
  install_write_counter(storage);
  install_write_counter(storage);  // installing again changes nothing
  WriteCounter counter(storage);
  storage.set_options("q", {});
  const WrittenRows start = counter.read();

  // A queued push writes one segment row and one sidecar row.
  ASSERT_TRUE(storage.push(one_frame_segment("a")).queued);
  const WrittenRows queued = counter.read();
  EXPECT_EQ(queued.segments, start.segments + 1);
  EXPECT_EQ(queued.sidecar_rows, start.sidecar_rows + 1);

  // A duplicate writes nothing.
  ASSERT_FALSE(storage.push(one_frame_segment("a")).queued);
  EXPECT_TRUE(counter.read() == queued);

  // A push whose COMMIT fails wrote both rows, then rolled them back: the
  // counter rolls back with them.
  gate.armed = true;
  EXPECT_THROW(storage.push(one_frame_segment("b")), impl::StorageError);
  gate.armed = false;
  EXPECT_TRUE(counter.read() == queued);
  EXPECT_EQ(storage.sidecar_rows(), 1);

  // Another partition's write counts: the counter is the connection's.
  ASSERT_TRUE(storage.push(one_frame_segment("c", "other")).queued);
  EXPECT_EQ(counter.read().sidecar_rows, queued.sidecar_rows + 1);
}

TEST(WriteCounter, AnotherConnectionsWritesAreNotCounted) {
  impl::ManualClock clock(1000);
  const std::string uri = impl::Storage::shared_memory_uri("write-counter-test-two");
  impl::Storage mine(uri, clock);
  impl::Storage theirs(uri, clock);
  install_write_counter(mine);
  install_write_counter(theirs);
  WriteCounter counter(mine);
  theirs.set_options("q", {});
  const WrittenRows before = counter.read();
  ASSERT_TRUE(theirs.push(one_frame_segment("a")).queued);
  EXPECT_TRUE(counter.read() == before);
}

// The one-statement fingerprint says what partition_state and the counter
// say apart, for a partition that exists and for one that does not.
TEST(WriteCounter, FingerprintIsThePartitionStateBesideTheCounter) {
  impl::ManualClock clock(1000);
  const std::string uri = impl::Storage::shared_memory_uri("write-counter-test-fingerprint");
  impl::Storage storage(uri, clock);
  install_write_counter(storage);
  WriteCounter counter(storage);
  storage.set_options("q", {});
  auto expected = [&](const std::string& partition) {
    const impl::PartitionState state = storage.partition_state("q", partition);
    const WrittenRows rows = counter.read();
    return history::PartitionFingerprint{state.last_offset, state.txns_start, rows.segments, rows.sidecar_rows};
  };
  EXPECT_EQ(counter.fingerprint("q", "p"), expected("p"));
  EXPECT_EQ(counter.fingerprint("q", "p").last_offset, -1);
  ASSERT_TRUE(storage.push(one_frame_segment("a")).queued);
  ASSERT_TRUE(storage.push(one_frame_segment("b")).queued);
  EXPECT_EQ(counter.fingerprint("q", "p"), expected("p"));
  EXPECT_EQ(counter.fingerprint("q", "p").last_offset, 1);
  EXPECT_EQ(counter.fingerprint("q", "p").sidecar_rows, 2);
  EXPECT_EQ(counter.fingerprint("q", "missing"), expected("missing"));
  EXPECT_EQ(counter.fingerprint("other", "p"), expected("other"));
}

}  // namespace
}  // namespace qdt::sim
