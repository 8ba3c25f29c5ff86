#include <gtest/gtest.h>

#include "properties/checkers.h"
#include "properties/history_builder_test.h"

namespace qdt::properties {
namespace {

using namespace testing;

const std::string kName = "partition-scope";

std::vector<Failure> check(const history::History& h) { return check_property(kName, h); }

// One key in two partitions of one queue and in another queue.
HistoryBuilder three_lanes() {
  HistoryBuilder b;
  b.push("s1", "q", "p1", {"a"});
  b.push("s2", "q", "p2", {"x", "a"});
  b.push("s3", "r", "p1", {"a"});
  b.push("s4", {{"q", "p1", "a"}, {"q", "p2", "a"}, {"r", "p1", "a"}});  // three duplicates
  return b;
}

TEST(PartitionScope, KeysAreIndependentAcrossPartitionsAndQueues) {
  HistoryBuilder b = three_lanes();
  history::History& h = b.history();
  EXPECT_EQ(request(h, "s1").responses[0].status, "queued");
  EXPECT_EQ(request(h, "s2").responses[1].status, "queued");
  EXPECT_EQ(request(h, "s3").responses[0].status, "queued");
  EXPECT_EQ(request(h, "s4").responses[1].message_id, request(h, "s2").responses[1].message_id);
  EXPECT_TRUE(check_history(h).empty()) << show(check_history(h));
}

TEST(PartitionScope, DuplicateAnsweringAnotherPartitionsIdFails) {
  HistoryBuilder b = three_lanes();
  history::History& h = b.history();
  request(h, "s4").responses[1].message_id = request(h, "s1").responses[0].message_id;
  const auto failures = check(h);
  EXPECT_TRUE(has_failure(failures, kName, "s4", "q/p2")) << show(failures);
  EXPECT_TRUE(has_rule(failures, Rule::partition_scope_id_of_other_partition)) << show(failures);
}

TEST(PartitionScope, DuplicateAnsweringAnIdNothingStoredFails) {
  HistoryBuilder b = three_lanes();
  history::History& h = b.history();
  request(h, "s4").responses[1].message_id = "m-nowhere";
  const auto failures = check(h);
  EXPECT_TRUE(has_failure(failures, kName, "s4", "q/p2")) << show(failures);
  EXPECT_TRUE(has_rule(failures, Rule::partition_scope_id_not_stored)) << show(failures);
}

TEST(PartitionScope, DuplicateAnsweringAnotherQueuesIdFails) {
  HistoryBuilder b = three_lanes();
  history::History& h = b.history();
  request(h, "s4").responses[0].message_id = request(h, "s3").responses[0].message_id;
  EXPECT_TRUE(has_failure(check(h), kName, "s4", "q/p1"));
}

TEST(PartitionScope, ProbeMatchingAcrossPartitionsFails) {
  // The queue-scope variant: "a" in p2 is answered as a duplicate of p1's
  // offset 0, where p2 holds "x".
  HistoryBuilder b;
  b.push("s1", "q", "p1", {"a"}).push("s2", "q", "p2", {"x"}).push("s3", "q", "p2", {"a"});
  history::PushEvent& ev = nth<history::PushEvent>(b.history(), 2);
  ev.queued = false;
  ev.base_offset = -1;
  ev.duplicates = {{0, 0}};
  request(b.history(), "s3").responses[0] = {"duplicate", request(b.history(), "s1").responses[0].message_id, "a", "q"};
  const auto failures = check(b.history());
  EXPECT_TRUE(has_failure(failures, kName, "s3", "q/p2")) << show(failures);
  EXPECT_TRUE(has_rule(failures, Rule::partition_scope_probe_crossed_partitions)) << show(failures);
  EXPECT_EQ(failures.size(), 2u) << show(failures);  // the storage verdict and the response id
}

TEST(PartitionScope, SameIdQueuedInTwoPartitionsFails) {
  HistoryBuilder b = three_lanes();
  history::History& h = b.history();
  const std::string id = request(h, "s1").responses[0].message_id;
  request(h, "s3").responses[0].message_id = id;
  EXPECT_TRUE(has_failure(check(h), kName, "s3", "r/p1"));
  EXPECT_TRUE(has_rule(check(h), Rule::partition_scope_id_of_other_partition)) << show(check(h));
}

TEST(PartitionScope, DuplicateIdOfAnotherKeyFails) {
  HistoryBuilder b = three_lanes();
  history::History& h = b.history();
  request(h, "s4").responses[1].message_id = request(h, "s2").responses[0].message_id;  // "x"
  EXPECT_TRUE(has_failure(check(h), kName, "s4", "q/p2"));
  EXPECT_TRUE(has_rule(check(h), Rule::partition_scope_id_of_other_key)) << show(check(h));
}

}  // namespace
}  // namespace qdt::properties
