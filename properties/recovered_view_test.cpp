#include "properties/recovered_view.h"

#include <gtest/gtest.h>

#include <tuple>

namespace qdt::properties {
namespace {

using Flat = std::map<RecoveredView::Key, std::map<int64_t, std::tuple<std::string, std::string>>>;

// A full read as the durability check used to index it: a later read of the
// same offset wins, and a partition holding nothing is no partition.
Flat index_of(const std::vector<history::FinalRead>& reads) {
  Flat flat;
  for (const auto& read : reads) {
    for (const auto& m : read.messages) flat[{read.queue, read.partition}][m.offset] = {m.message_id, m.transaction_id};
  }
  std::erase_if(flat, [](const auto& entry) { return entry.second.empty(); });
  return flat;
}

Flat index_of(const RecoveredView& view) {
  Flat flat;
  for (const auto& [key, messages] : view.partitions()) {
    for (const auto& [offset, m] : messages) {
      EXPECT_EQ(offset, m.offset);
      flat[key][offset] = {m.message_id, m.transaction_id};
    }
  }
  return flat;
}

history::FinalRead read(const std::string& queue, const std::string& partition,
                        std::vector<history::ReadMessage> messages) {
  return {queue, partition, std::move(messages)};
}

size_t records(const std::vector<history::RecoveredChange>& changes) {
  history::StorageCrash crash;
  crash.recovered = changes;
  return recorded_changes(crash);
}

// A sequence of recoveries that adds, rewrites and removes offsets and whole
// partitions: the view rebuilt from the changes alone is each full read.
TEST(RecoveredView, ChangesRebuildEveryFullRead) {
  const std::vector<std::vector<history::FinalRead>> recoveries = {
      {},
      {read("q", "p", {{0, "m0", "t0"}, {1, "m1", "t1"}}), read("q", "p2", {{0, "n0", "a"}})},
      {read("q", "p", {{0, "m0", "t0"}, {1, "m1", "t1"}, {2, "m2", "t2"}}), read("q", "p2", {{0, "n0", "a"}})},
      // offset 1 rewritten (lost, then reused by another message), offset 2 gone
      {read("q", "p", {{0, "m0", "t0"}, {1, "x1", "t9"}}), read("q", "p2", {{0, "n0", "a"}})},
      // only the transaction id differs
      {read("q", "p", {{0, "m0", "t0"}, {1, "x1", "t8"}}), read("q", "p2", {{0, "n0", "a"}})},
      // q/p2 vanished, r/p appears, listed first; a partition read twice: the later read wins
      {read("r", "p", {{5, "r5", "b"}}), read("q", "p", {{0, "m0", "t0"}}), read("q", "p", {{0, "y0", "t0"}})},
      // a partition present but empty
      {read("r", "p", {}), read("q", "p", {{0, "y0", "t0"}})},
      {},
      {read("q", "p", {{0, "m0", "t0"}, {3, "m3", "t3"}})},
  };
  RecoveredView writer;
  RecoveredView reader;
  for (size_t i = 0; i < recoveries.size(); ++i) {
    const std::vector<history::RecoveredChange> changes = writer.advance_to(recoveries[i]);
    reader.apply(changes);
    EXPECT_EQ(index_of(writer), index_of(recoveries[i])) << "recovery " << i;
    EXPECT_EQ(index_of(reader), index_of(recoveries[i])) << "recovery " << i;
    size_t held = 0;
    for (const auto& [key, messages] : index_of(recoveries[i])) held += messages.size();
    EXPECT_EQ(reader.messages(), held) << "recovery " << i;
  }
}

// Changes hold only what differs from the previous recovery, in partition
// order, offsets ascending.
TEST(RecoveredView, ChangesHoldOnlyWhatChanged) {
  RecoveredView view;
  const std::vector<history::FinalRead> first = {read("q", "p", {{0, "m0", "t0"}, {1, "m1", "t1"}})};
  EXPECT_EQ(records(view.advance_to(first)), 2u);
  EXPECT_TRUE(view.advance_to(first).empty()) << "the same recovery again changes nothing";

  const auto rewritten =
      view.advance_to({read("q", "p", {{1, "x1", "t1"}, {0, "m0", "t0"}, {2, "m2", "t2"}}), read("a", "b", {})});
  ASSERT_EQ(rewritten.size(), 1u);
  EXPECT_EQ(rewritten[0].queue, "q");
  ASSERT_EQ(rewritten[0].written.size(), 2u);
  EXPECT_EQ(rewritten[0].written[0].offset, 1);
  EXPECT_EQ(rewritten[0].written[0].message_id, "x1");
  EXPECT_EQ(rewritten[0].written[1].offset, 2);
  EXPECT_TRUE(rewritten[0].removed.empty());

  const auto lost = view.advance_to({read("z", "p", {{7, "z7", "t"}}), read("q", "p", {{2, "m2", "t2"}})});
  ASSERT_EQ(lost.size(), 2u);
  EXPECT_EQ(lost[0].queue, "q");
  EXPECT_EQ(lost[0].removed, (std::vector<int64_t>{0, 1}));
  EXPECT_TRUE(lost[0].written.empty());
  EXPECT_EQ(lost[1].queue, "z");
  EXPECT_EQ(records(lost), 3u);
}

}  // namespace
}  // namespace qdt::properties
