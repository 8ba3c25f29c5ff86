// qdt's own queen-log-v1 SQL against docs/semantics.md §2.4-2.10, one function at a time.
#include <gtest/gtest.h>

#include "impl/storage/postgres/postgres_test_env.h"
#include "impl/storage/postgres/reset.h"
#include "impl/storage/postgres/timestamp_text.h"

namespace qdt::impl::postgres::testing {
namespace {

using nlohmann::json;

class SqlInterface : public PgTest {};

TEST_F(SqlInterface, PushQueuedThenDuplicateWithTheOriginalOffsetInsideTheWindow) {
  const json first = push("q", "p", {"a", "b"});
  ASSERT_EQ(first["status"], "queued");
  EXPECT_EQ(first["baseOffset"], 0);
  EXPECT_EQ(first["createdAt"], "2023-11-14T22:13:20.000000Z");
  EXPECT_EQ(parse_timestamp_us(first["createdAt"].get<std::string>()), kT0Us);
  set_clock_us(kT0Us + 10 * kSecondUs);
  const json second = push("q", "p", {"c"});
  ASSERT_EQ(second["status"], "queued");
  EXPECT_EQ(second["baseOffset"], 2);

  const json repeat = push("q", "p", {"b"});
  ASSERT_EQ(repeat["status"], "duplicate");
  EXPECT_EQ(repeat["dups"], json::parse(R"([{"i":0,"off":1}])"));
  // A duplicate writes nothing: no offset bump, no segment, no sidecar row.
  EXPECT_EQ(scalar("SELECT last_offset FROM queen.log_partitions"), "2");
  EXPECT_EQ(count("queen.log_segments"), 2);
  EXPECT_EQ(count("queen.log_txns"), 2);
}

TEST_F(SqlInterface, TheWindowIsInclusiveAndARepeatAfterItIsQueued) {
  ASSERT_EQ(push("q", "p", {"a"})["status"], "queued");
  set_window("q", 60);
  set_clock_us(kT0Us + 60 * kSecondUs);
  EXPECT_EQ(push("q", "p", {"a"})["status"], "duplicate");
  set_clock_us(kT0Us + 60 * kSecondUs + 1);
  const json late = push("q", "p", {"a"});
  ASSERT_EQ(late["status"], "queued");
  EXPECT_EQ(late["baseOffset"], 1);
  EXPECT_EQ(late["createdAt"], "2023-11-14T22:14:20.000001Z");
}

TEST_F(SqlInterface, WindowZeroRunsNoProbeButWritesTheSidecarRow) {
  ASSERT_EQ(push("q", "p", {"seed"})["status"], "queued");
  set_window("q", 0);
  ASSERT_EQ(push("q", "p", {"a"})["status"], "queued");
  const json again = push("q", "p", {"a"});
  ASSERT_EQ(again["status"], "queued");
  EXPECT_EQ(again["baseOffset"], 2);
  EXPECT_EQ(count("queen.log_txns"), 3);
  // With the window back on, the smallest original offset answers.
  set_window("q", 3600);
  EXPECT_EQ(push("q", "p", {"a"})["dups"], json::parse(R"([{"i":0,"off":1}])"));
}

TEST_F(SqlInterface, APartialDuplicateAnswersOnlyTheMatchedFrames) {
  ASSERT_EQ(push("q", "p", {"a", "b"})["status"], "queued");
  ASSERT_EQ(push("q", "p", {"c"})["status"], "queued");
  const json partial = push("q", "p", {"x", "c", "y", "a"});
  ASSERT_EQ(partial["status"], "duplicate");
  EXPECT_EQ(partial["dups"], json::parse(R"([{"i":1,"off":2},{"i":3,"off":0}])"));
  EXPECT_EQ(count("queen.log_segments"), 2);
}

TEST_F(SqlInterface, TheSameIdInAnotherPartitionOrQueueNeverCollides) {
  ASSERT_EQ(push("q", "p", {"a"})["status"], "queued");
  EXPECT_EQ(push("q", "p2", {"a"})["status"], "queued");
  EXPECT_EQ(push("q2", "p", {"a"})["status"], "queued");
}

TEST_F(SqlInterface, TheWindowGuardIgnoresAWatermarkComputedWithASmallerWindow) {
  ASSERT_EQ(push("q", "p", {"a"})["status"], "queued");  // offset 0
  ASSERT_EQ(push("q", "p", {"b"})["status"], "queued");  // offset 1
  // Vouched up to 0 with the window in force: the probe starts above it.
  EXPECT_EQ(push("q", "p", {"a"}, 0, 3600)["status"], "queued");
  // Computed with a smaller window, or an unknown one: probe everything.
  EXPECT_EQ(push("q", "p", {"a"}, 0, 60)["dups"], json::parse(R"([{"i":0,"off":0}])"));
  EXPECT_EQ(push("q", "p", {"a"}, 0)["dups"], json::parse(R"([{"i":0,"off":0}])"));
}

TEST_F(SqlInterface, PurgeStepsDeleteWholeOldRowsInBoundedStepsAndAdvanceTxnsStart) {
  for (int i = 0; i < 5; ++i) {
    set_clock_us(kT0Us + i * 10 * kSecondUs);
    ASSERT_EQ(push("q", "p", {"t" + std::to_string(i)})["status"], "queued");
  }
  const std::string pid = partition_id("q", "p");
  const std::string cutoff = "2023-11-14 22:13:45+00";  // t0 + 25 s: rows at 0, 10, 20 are older
  const auto step = [&] {
    return json::parse(scalar("SELECT queen.log_txns_purge_step_v1($1::uuid, $2::timestamptz, 2)", {pid, cutoff}));
  };
  EXPECT_EQ(interface_part(step()), json::parse(R"({"deleted":2,"new_txns_start":2,"done":false})"));
  EXPECT_EQ(interface_part(step()), json::parse(R"({"deleted":1,"new_txns_start":3,"done":true})"));
  EXPECT_EQ(interface_part(step()), json::parse(R"({"deleted":0,"new_txns_start":3,"done":true})"));
  EXPECT_EQ(count("queen.log_txns"), 2);
  EXPECT_EQ(count("queen.log_segments"), 5);  // the purge never touches segments
  // Below txns_start there is nothing to compare against: a repeat is queued.
  EXPECT_EQ(push("q", "p", {"t0"})["status"], "queued");
  EXPECT_EQ(push("q", "p", {"t3"})["status"], "duplicate");
}

TEST_F(SqlInterface, RetentionDeletesWholeExpiredSegmentsAndAdvancesLogStart) {
  for (int i = 0; i < 4; ++i) {
    set_clock_us(kT0Us + i * 10 * kSecondUs);
    ASSERT_EQ(push("q", "p", {"t" + std::to_string(i)})["status"], "queued");
  }
  const std::string pid = partition_id("q", "p");
  const json result = json::parse(scalar(
      "SELECT queen.log_retention_step_v1($1::uuid, '2023-11-14 22:13:35+00'::timestamptz, NULL, 10)", {pid}));
  EXPECT_EQ(interface_part(result), json::parse(R"({"deleted":2,"new_log_start":2,"done":true})"));
  EXPECT_EQ(count("queen.log_segments"), 2);
  EXPECT_EQ(count("queen.log_txns"), 4);  // the sidecar outlives its segments
  // A duplicate of a deleted segment is still found through the sidecar.
  EXPECT_EQ(push("q", "p", {"t0"})["dups"], json::parse(R"([{"i":0,"off":0}])"));
}

// A bytea[] literal of the packed hashes of `ids`, one element each.
std::string hash_array(const std::vector<std::string>& packed) {
  std::string array = "{";
  for (size_t i = 0; i < packed.size(); ++i) {
    std::string hex = "\"\\\\x";
    for (unsigned char c : packed[i]) {
      static const char* digits = "0123456789abcdef";
      hex += digits[c >> 4];
      hex += digits[c & 15];
    }
    array += (i ? "," : "") + hex + "\"";
  }
  return array + "}";
}

// Fully acknowledged (docs/semantics.md §2.8): every offset of the segment
// acknowledged by some group, whatever the groups' committed offsets; an
// offset that can no longer be acknowledged (its sidecar row purged) holds
// back only its own segment.
TEST_F(SqlInterface, CompletedRetentionDeletesWhatEveryGroupsCommittedOffsetCovers) {
  for (int i = 0; i < 4; ++i) {
    set_clock_us(kT0Us + i * 10 * kSecondUs);
    ASSERT_EQ(push("q", "p", {"t" + std::to_string(i)})["status"], "queued");
  }
  const std::string pid = partition_id("q", "p");
  const auto step = [&] {
    return json::parse(scalar(
        "SELECT queen.log_retention_step_v1($1::uuid, NULL, '2023-11-14 22:15:00+00'::timestamptz, 10)", {pid}));
  };
  const auto ack = [&](const std::string& group, const std::string& id) {
    return json::parse(scalar("SELECT queen.log_ack_by_hash_v1($1::uuid, $2, NULL, $3::bytea[], NULL)",
                              {pid, group, hash_array({hashes({id})})}));
  };
  // Nothing acknowledged: nothing is completed.
  EXPECT_EQ(step()["deleted"], 0);
  query("INSERT INTO queen.log_consumers (partition_id, consumer_group) VALUES ($1, 'g1'), ($1, 'g2')", {pid});
  ASSERT_EQ(ack("g1", "t2")["ok"], true);  // commits 0..2 cumulatively
  // g2 has committed nothing: it holds everything.
  EXPECT_EQ(step()["deleted"], 0);
  ASSERT_EQ(ack("g2", "t0")["ok"], true);
  EXPECT_EQ(interface_part(step()), json::parse(R"({"deleted":1,"new_log_start":1,"done":true})"));
  ASSERT_EQ(ack("g2", "t3")["ok"], true);  // g1 committed only up to 2: t3 stays
  EXPECT_EQ(interface_part(step()), json::parse(R"({"deleted":2,"new_log_start":3,"done":true})"));
  EXPECT_EQ(count("queen.log_segments"), 1);
}

TEST_F(SqlInterface, AckByHashCommitsCumulativelyAndAnswersInTheInterfacesShape) {
  ASSERT_EQ(push("q", "p", {"a", "b"})["status"], "queued");
  ASSERT_EQ(push("q", "p", {"c"})["status"], "queued");
  const std::string pid = partition_id("q", "p");
  const auto ack = [&](const std::vector<std::string>& ids) {
    std::vector<std::string> packed;
    for (const std::string& id : ids) packed.push_back(hashes({id}));
    return json::parse(
        scalar("SELECT queen.log_ack_by_hash_v1($1::uuid, 'g', NULL, $2::bytea[], NULL)", {pid, hash_array(packed)}));
  };
  EXPECT_EQ(ack({"b"}), json::parse(R"({"ok":false,"error":"consumer not found"})"));
  query("INSERT INTO queen.log_consumers (partition_id, consumer_group) VALUES ($1, 'g')", {pid});
  const auto hex = [](const std::string& id) {
    std::string out;
    for (uint8_t b : hash_transaction_id(id).bytes) {
      char two[3];
      std::snprintf(two, sizeof two, "%02x", b);
      out += two;
    }
    return out;
  };
  const json first = ack({"b", "never-pushed"});
  EXPECT_EQ(first, json::parse(R"({"ok":true,"acked":2,"off":1,"noopHashes":[],"staleHashes":[],"unresolvedHashes":[")" +
                               hex("never-pushed") + R"("]})"));
  // a is at or below the committed offset: a no-op, still resolved.
  EXPECT_EQ(ack({"a"}), json::parse(R"({"ok":true,"acked":0,"off":1,"noopHashes":[")" + hex("a") +
                                     R"("],"staleHashes":[],"unresolvedHashes":[]})"));
  EXPECT_EQ(ack({"c"})["off"], 2);
  EXPECT_EQ(ack({"c"})["acked"], 0);  // acking twice is idempotent
  EXPECT_EQ(scalar("SELECT committed FROM queen.log_consumers WHERE partition_id = $1::uuid", {pid}), "2");
  // A lease check: qdt grants none, so a worker's ack is refused.
  EXPECT_EQ(json::parse(scalar("SELECT queen.log_ack_by_hash_v1($1::uuid, 'g', 'w1', $2::bytea[], NULL)",
                               {pid, hash_array({hashes({"c"})})})),
            json::parse(R"({"ok":false,"error":"invalid or expired lease"})"));
}

TEST_F(SqlInterface, SegmentAtReturnsTheCoveringSegment) {
  ASSERT_EQ(push("q", "p", {"a", "b"})["status"], "queued");
  ASSERT_EQ(push("q", "p", {"c"})["status"], "queued");
  ASSERT_EQ(push("q", "p", {"d", "e", "f"})["status"], "queued");
  const std::string pid = partition_id("q", "p");
  const auto at = [&](int64_t offset) {
    return query("SELECT r_base, r_end, encode(r_blob, 'escape') FROM queen.log_segment_at_v1($1::uuid, $2::bigint)",
                 {pid, std::to_string(offset)});
  };
  const auto covering = at(4);
  ASSERT_EQ(covering.size(), 1u);
  EXPECT_EQ(covering[0][0], "3");
  EXPECT_EQ(covering[0][1], "5");
  EXPECT_EQ(covering[0][2], "blob:3");
  EXPECT_EQ(at(0)[0][1], "1");
  EXPECT_TRUE(at(6).empty());
  query("DELETE FROM queen.log_segments WHERE base_offset = 2");
  EXPECT_TRUE(at(2).empty());
  EXPECT_EQ(at(3)[0][0], "3");
}

TEST_F(SqlInterface, PushMultiAnswersInInputOrderAndADuplicateLeavesTheOthersWrites) {
  ASSERT_EQ(push("q", "p1", {"a"})["status"], "queued");
  const std::string h_a = hashes({"a"});
  const std::string h_b = hashes({"b"});
  const auto hex = [](const std::string& bytes) {
    std::string out = "\"\\\\x";
    for (unsigned char c : bytes) {
      static const char* digits = "0123456789abcdef";
      out += digits[c >> 4];
      out += digits[c & 15];
    }
    return out + "\"";
  };
  const json answers = json::parse(scalar(
      "SELECT queen.log_push_multi_v1(ARRAY['q','q'], ARRAY['p2','p1'], ARRAY[1,1], $1::bytea[], ARRAY[-1,-1]::int8[], "
      "ARRAY['\\x00'::bytea, '\\x01'::bytea])",
      {"{" + hex(h_b) + "," + hex(h_a) + "}"}));
  ASSERT_EQ(answers.size(), 2u);
  EXPECT_EQ(answers[0]["status"], "queued");
  EXPECT_EQ(answers[0]["baseOffset"], 0);
  EXPECT_EQ(interface_part(answers[1]), json::parse(R"({"status":"duplicate","dups":[{"i":0,"off":0}]})"));
  EXPECT_EQ(count("queen.log_segments"), 2);
}

TEST_F(SqlInterface, ReadSegmentsReturnsStoredSegmentsFromAnOffsetInOrder) {
  ASSERT_EQ(push("q", "p", {"a", "b"})["status"], "queued");
  ASSERT_EQ(push("q", "p", {"c"})["status"], "queued");
  ASSERT_EQ(push("q", "p", {"d"})["status"], "queued");
  const std::string pid = partition_id("q", "p");
  query("DELETE FROM queen.log_segments WHERE base_offset = 2");
  const auto rows = query("SELECT r_base, r_end FROM queen.qdt_read_segments_v1($1::uuid, 1, 10)", {pid});
  ASSERT_EQ(rows.size(), 2u);  // the deleted segment is skipped
  EXPECT_EQ(rows[0][0], "0");
  EXPECT_EQ(rows[1][0], "3");
  EXPECT_EQ(query("SELECT r_base FROM queen.qdt_read_segments_v1($1::uuid, 0, 1)", {pid}).size(), 1u);
}

TEST_F(SqlInterface, ReadTxnsReturnsInWindowRowsAboveAnOffsetWithLastOffset) {
  ASSERT_EQ(push("q", "p", {"a"})["status"], "queued");
  set_clock_us(kT0Us + 10 * kSecondUs);
  ASSERT_EQ(push("q", "p", {"b", "c"})["status"], "queued");
  ASSERT_EQ(push("q", "p", {"d"})["status"], "queued");
  const std::string pid = partition_id("q", "p");
  const auto rows = query(
      "SELECT r_base, r_end, octet_length(r_hashes), r_last_offset "
      "FROM queen.qdt_read_txns_v1($1::uuid, 1, '2023-11-14 22:13:25+00')",
      {pid});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0][0], "1");
  EXPECT_EQ(rows[0][2], "32");
  EXPECT_EQ(rows[1][0], "3");
  EXPECT_EQ(rows[1][3], "3");
  // No row: still the partition's last_offset.
  const auto none = query("SELECT r_base, r_last_offset FROM queen.qdt_read_txns_v1($1::uuid, 3, now())", {pid});
  ASSERT_EQ(none.size(), 1u);
  EXPECT_EQ(none[0][0], std::nullopt);
  EXPECT_EQ(none[0][1], "3");
}

TEST_F(SqlInterface, PartitionIdsDependOnlyOnTheNames) {
  ASSERT_EQ(push("q", "p", {"a"})["status"], "queued");
  const std::string first = partition_id("q", "p");
  reset_database(conn(), testing::reset_plan());
  ASSERT_EQ(push("q", "p", {"a"})["status"], "queued");
  EXPECT_EQ(partition_id("q", "p"), first);
  EXPECT_NE(partition_id("q", "p"), (push("q", "pp", {"a"}), partition_id("q", "pp")));
}

TEST_F(SqlInterface, HostileNamesAreData) {
  const std::string queue = "q'); DROP TABLE queen.log_txns; --";
  const std::string partition = "\"$1\\x00";
  ASSERT_EQ(push(queue, partition, {"a"})["status"], "queued");
  EXPECT_EQ(push(queue, partition, {"a"})["status"], "duplicate");
  EXPECT_EQ(count("queen.log_txns"), 1);
}

}  // namespace
}  // namespace qdt::impl::postgres::testing
