#include <gtest/gtest.h>

#include "properties/checkers.h"
#include "properties/history_builder_test.h"

namespace qdt::properties {
namespace {

using namespace testing;

const std::string kName = "nothing-written-on-duplicate";

std::vector<Failure> check(const history::History& h) { return check_property(kName, h); }

HistoryBuilder with_duplicate_and_failure() {
  HistoryBuilder b;
  b.push("p1", "q", "p", {"a"}).push("p2", "q", "p", {"a"});
  b.fail_pushes(1).push("p3", "q", "p", {"b"});
  return b;
}

TEST(NothingWrittenOnDuplicate, DuplicateAndFailedPushesWriteNothing) {
  HistoryBuilder b = with_duplicate_and_failure();
  EXPECT_TRUE(nth<history::PushEvent>(b.history(), 2).failed);
  EXPECT_TRUE(check_history(b.history()).empty()) << show(check_history(b.history()));
}

TEST(NothingWrittenOnDuplicate, DuplicateThatBumpedLastOffsetFails) {
  HistoryBuilder b = with_duplicate_and_failure();
  nth_duplicate_push(b.history()).last_offset_after += 1;
  const auto failures = check(b.history());
  EXPECT_TRUE(has_failure(failures, kName, "p2", "q/p")) << show(failures);
  EXPECT_TRUE(has_rule(failures, Rule::nothing_written_on_duplicate_duplicate_wrote)) << show(failures);
}

TEST(NothingWrittenOnDuplicate, DuplicateThatWroteARowFails) {
  HistoryBuilder b = with_duplicate_and_failure();
  nth_duplicate_push(b.history()).rows_after.sidecar_rows += 1;
  EXPECT_TRUE(has_failure(check(b.history()), kName, "p2", "q/p"));
}

TEST(NothingWrittenOnDuplicate, FailedTransactionThatWroteFails) {
  HistoryBuilder b = with_duplicate_and_failure();
  nth<history::PushEvent>(b.history(), 2).rows_after.segments += 1;
  const auto failures = check(b.history());
  EXPECT_TRUE(has_failure(failures, kName, "p3", "q/p")) << show(failures);
  EXPECT_TRUE(has_rule(failures, Rule::nothing_written_on_duplicate_failed_wrote)) << show(failures);
  EXPECT_NE(failures[0].detail.find("failed but changed the rows"), std::string::npos) << show(failures);
}

TEST(NothingWrittenOnDuplicate, DuplicateThatMovedTxnsStartFails) {
  HistoryBuilder b = with_duplicate_and_failure();
  nth_duplicate_push(b.history()).rows_after.txns_start += 1;
  EXPECT_TRUE(has_failure(check(b.history()), kName, "p2", "q/p"));
}

TEST(NothingWrittenOnDuplicate, FailedTransactionThatBumpedLastOffsetFails) {
  HistoryBuilder b = with_duplicate_and_failure();
  history::PushEvent& failed = nth<history::PushEvent>(b.history(), 2);
  failed.last_offset_after += 1;
  failed.rows_after.last_offset += 1;
  const auto failures = check(b.history());
  EXPECT_TRUE(has_failure(failures, kName, "p3", "q/p")) << show(failures);
  EXPECT_EQ(failures.size(), 2u) << show(failures);
}

TEST(NothingWrittenOnDuplicate, QueuedPushMayWrite) {
  HistoryBuilder b = with_duplicate_and_failure();
  const history::PushEvent& queued = nth<history::PushEvent>(b.history(), 0);
  EXPECT_NE(queued.rows_before, queued.rows_after);
  EXPECT_TRUE(check(b.history()).empty());
}

}  // namespace
}  // namespace qdt::properties
