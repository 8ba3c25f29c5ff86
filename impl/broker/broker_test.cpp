#include "impl/broker/broker.h"

#include "impl/broker/direct_ports_test.h"
#include "impl/storage/sqlite/storage.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace qdt::impl {
namespace {

using testing_broker::CountingRandom;
using testing_broker::DirectStorage;
using testing_broker::FixedClock;

// A port that pushes a bundle's segments in turn (SQLite's database lock
// makes that one transaction's worth here) and records each bundle's size.
struct BundlingStorage : DirectStorage {
  using DirectStorage::DirectStorage;
  std::vector<size_t> bundles;
  std::optional<StorageError> fail_bundle;
  std::vector<PushResult> push_bundle(const std::vector<SegmentPush>& segments) override {
    bundles.push_back(segments.size());
    if (fail_bundle) {
      const StorageError e = *fail_bundle;
      fail_bundle.reset();
      throw e;
    }
    std::vector<PushResult> out;
    for (const SegmentPush& s : segments) out.push_back(storage.push(s));
    return out;
  }
};

// Storage that restarts under the broker: a push commits and then its
// connection dies (the answer is lost), and the next covering fetches lose
// their connections before they read (docs/storage.md, power loss).
struct RestartingStorage : DirectStorage {
  using DirectStorage::DirectStorage;
  int lose_after_commit = 0;
  int lose_fetches = 0;
  int fetches = 0;
  Storage* fetch_from = nullptr;  // storage as it came back: emptied and written again (synchronous off)
  PushResult push(const SegmentPush& segment) override {
    PushResult result = DirectStorage::push(segment);
    if (lose_after_commit > 0) {
      --lose_after_commit;
      throw StorageError::connection_lost("injected: the commit's answer died with the connection");
    }
    return result;
  }
  std::optional<CoveringSegment> covering_segment(const std::string& q, const std::string& p, int64_t o) override {
    ++fetches;
    if (lose_fetches > 0) {
      --lose_fetches;
      throw StorageError::connection_lost("injected: storage restarted under the fetch");
    }
    if (fetch_from != nullptr) return fetch_from->covering_segment(q, p, o);
    return DirectStorage::covering_segment(q, p, o);
  }
};

template <class Port>
struct BrokerWith : testing::Test {
  FixedClock clock;
  CountingRandom random;
  Port storage{clock};
  Broker broker{0, clock, random, storage};
  uint64_t next_request = 1;
  PushResponse push(const char* json) { return broker.push(nlohmann::json::parse(json), next_request++); }
};
using BrokerFixture = BrokerWith<DirectStorage>;

TEST_F(BrokerFixture, SameKeyTwiceIsQueuedThenDuplicateWithTheOriginalId) {
  const auto r1 = push(R"([{"queue":"orders","transactionId":"t1","data":{"n":1}}])");
  const auto r2 = push(R"([{"queue":"orders","transactionId":"t1","data":{"n":1}}])");
  ASSERT_EQ(r1.items.size(), 1u);
  EXPECT_EQ(r1.items[0].status, ItemStatus::queued);
  EXPECT_EQ(r2.items[0].status, ItemStatus::duplicate);
  EXPECT_EQ(r2.items[0].message_id, r1.items[0].message_id);
  EXPECT_EQ(storage.storage.stored_messages("orders", "Default"), 1);
}

TEST_F(BrokerFixture, InvalidRequestIsRejectedWholeAndStoresNothing) {
  const auto r = push(R"([{"queue":"q","data":1},{"queue":"q","transactionId":5,"data":1}])");
  EXPECT_TRUE(r.rejected);
  EXPECT_EQ(r.error, "/1/transactionId: expected a string");
  EXPECT_EQ(storage.pushes, 0);
  EXPECT_EQ(r.to_json()["error"], "/1/transactionId: expected a string");
}

TEST_F(BrokerFixture, FollowersEchoTheLeadersFinalId) {
  const auto first = push(R"([{"queue":"q","transactionId":"old","data":1}])");
  const auto r = push(R"([{"queue":"q","transactionId":"a","data":1},{"queue":"q","transactionId":"a","data":2},
                           {"queue":"q","transactionId":"old","data":3},{"queue":"q","transactionId":"old","data":4},
                           {"queue":"q","partition":"p2","transactionId":"a","data":5}])");
  ASSERT_EQ(r.items.size(), 5u);
  EXPECT_EQ(r.items[0].status, ItemStatus::queued);
  EXPECT_EQ(r.items[1].status, ItemStatus::duplicate);
  EXPECT_EQ(r.items[1].message_id, r.items[0].message_id);
  EXPECT_EQ(r.items[2].status, ItemStatus::duplicate);  // the leader is itself a duplicate...
  EXPECT_EQ(r.items[2].message_id, first.items[0].message_id);
  EXPECT_EQ(r.items[3].status, ItemStatus::duplicate);  // ...and its follower echoes the original's id
  EXPECT_EQ(r.items[3].message_id, first.items[0].message_id);
  EXPECT_EQ(r.items[4].status, ItemStatus::queued);  // another partition: another lane
  EXPECT_NE(r.items[4].message_id, r.items[0].message_id);
  EXPECT_EQ(storage.storage.stored_messages("q", "Default"), 2);  // old, a
  const auto body = r.to_json();
  EXPECT_EQ(body[3]["index"], 3);
  EXPECT_EQ(body[3]["queueName"], "q");
}

// Layer 1 keeps small requests' keys in a list and large ones' in a tree:
// both must find a repeat however far from its leader it comes, and tell
// keys apart that differ only in queue or partition.
TEST_F(BrokerFixture, RepeatsFollowTheirLeaderInSmallAndLargeRequests) {
  for (const size_t n : {size_t{6}, size_t{32}, size_t{33}, size_t{200}}) {
    nlohmann::json request = nlohmann::json::array();
    const std::string prefix = "n" + std::to_string(n) + "-";
    for (size_t i = 0; i + 3 < n; ++i) {
      request.push_back({{"queue", "q"}, {"transactionId", prefix + std::to_string(i)}, {"data", i}});
    }
    request.push_back({{"queue", "q"}, {"transactionId", prefix + "1"}, {"data", "repeat"}});  // follows item 1
    request.push_back({{"queue", "q2"}, {"transactionId", prefix + "1"}, {"data", "other queue"}});
    request.push_back({{"queue", "q"}, {"partition", "p2"}, {"transactionId", prefix + "1"}, {"data", "other partition"}});
    const PushResponse r = broker.push(request, next_request++);
    ASSERT_EQ(r.items.size(), n) << n;
    for (size_t i = 0; i + 3 < n; ++i) EXPECT_EQ(r.items[i].status, ItemStatus::queued) << n << " item " << i;
    EXPECT_EQ(r.items[n - 3].status, ItemStatus::duplicate) << n;
    EXPECT_EQ(r.items[n - 3].message_id, r.items[1].message_id) << n;
    for (size_t i : {n - 2, n - 1}) {
      EXPECT_EQ(r.items[i].status, ItemStatus::queued) << n << " item " << i;
      EXPECT_NE(r.items[i].message_id, r.items[1].message_id) << n << " item " << i;
    }
  }
}

TEST_F(BrokerFixture, PartialDuplicateRepushesTheSurvivors) {
  push(R"([{"queue":"q","transactionId":"x","data":1}])");
  const int before = storage.pushes;
  const auto r = push(R"([{"queue":"q","transactionId":"y","data":1},{"queue":"q","transactionId":"x","data":1}])");
  EXPECT_EQ(storage.pushes - before, 2);  // duplicate answer, then the survivor alone
  EXPECT_EQ(r.items[0].status, ItemStatus::queued);
  EXPECT_EQ(r.items[1].status, ItemStatus::duplicate);
  EXPECT_EQ(storage.storage.partition_state("q", "Default").last_offset, 1);
}

TEST_F(BrokerFixture, DeletedOriginalAnswersTheZeroId) {
  push(R"([{"queue":"q","transactionId":"x","data":1}])");
  ASSERT_TRUE(storage.storage.delete_segment("q", "Default", 0));
  const auto r = push(R"([{"queue":"q","transactionId":"x","data":1}])");
  EXPECT_EQ(r.items[0].status, ItemStatus::duplicate);
  EXPECT_EQ(r.items[0].message_id, kZeroUuidText);
}

TEST_F(BrokerFixture, StorageFailureAnswersErrorAndCommitsNothing) {
  storage.fail_next = 1;
  const auto r = push(R"([{"queue":"q","transactionId":"x","data":1},{"queue":"q","transactionId":"x","data":1}])");
  EXPECT_EQ(r.items[0].status, ItemStatus::error);
  EXPECT_EQ(r.items[1].status, ItemStatus::error);
  EXPECT_FALSE(r.items[0].error.empty());
  EXPECT_EQ(storage.storage.stored_messages("q", "Default"), 0);
  EXPECT_EQ(push(R"([{"queue":"q","transactionId":"x","data":1}])").items[0].status, ItemStatus::queued);
}

TEST_F(BrokerFixture, IdsAreTimeOrderedV7FromTheBrokerClock) {
  const auto a = push(R"([{"queue":"q","data":1}])");
  clock.now += 5;
  const auto b = push(R"([{"queue":"q","data":1}])");
  EXPECT_LT(a.items[0].message_id, b.items[0].message_id);
  EXPECT_EQ(a.items[0].message_id[14], '7');
  EXPECT_EQ(a.items[0].status, ItemStatus::queued);  // no transactionId: never deduplicates
  EXPECT_EQ(b.items[0].status, ItemStatus::queued);
}

// Issue finding 7: a crash loses what the broker learnt, the window storage
// reported included: the first flush after a restart claims no window, so
// storage ignores any watermark until it has told the window again.
TEST_F(BrokerFixture, CrashForgetsTheLearntWindow) {
  push(R"([{"queue":"q","transactionId":"a","data":1}])");
  push(R"([{"queue":"q","transactionId":"b","data":1}])");
  ASSERT_EQ(storage.windows_assumed, (std::vector<int64_t>{-1, kDefaultWindowSeconds}));
  broker.crash();
  EXPECT_EQ(broker.cache().stats().partitions, 0u);
  push(R"([{"queue":"q","transactionId":"c","data":1}])");
  push(R"([{"queue":"q","transactionId":"d","data":1}])");
  EXPECT_EQ(storage.windows_assumed, (std::vector<int64_t>{-1, kDefaultWindowSeconds, -1, kDefaultWindowSeconds}));
}

// trust-local-hit (docs/semantics.md §7): a cache hit answers duplicate without asking
// storage. The cache keeps rows until it has seen storage time move past them
// (I3), so a key repeated after the window, with no push in between, is still
// held: the reference asks storage (queued, the window has passed); the
// variant answers a false duplicate with the expired original's id.
TEST(BrokerVariant, TrustLocalHitAnswersDuplicateForAnOriginalOutOfTheWindow) {
  // A port that serves hydration, so the cache warms.
  struct Hydrating : DirectStorage {
    using DirectStorage::DirectStorage;
    SidecarRead sidecar_rows(const std::string& q, const std::string& p, int64_t after, int64_t since) override {
      return storage.read_sidecar(q, p, after, since);
    }
  };
  struct One {
    FixedClock clock;
    CountingRandom random;
    Hydrating storage{clock};
    Broker broker{0, clock, random, storage};
    uint64_t next_request = 1;
    PushResponse push(const char* json) { return broker.push(nlohmann::json::parse(json), next_request++); }
  };
  auto run = [](Variant variant, One& w) {
    w.broker.set_variant(variant);
    w.storage.storage.configure("q", nlohmann::json::parse(R"({"dedupWindowSeconds":60})"));
    w.push(R"([{"queue":"q","transactionId":"x","data":1}])");  // learns the window
    const auto original = w.push(R"([{"queue":"q","transactionId":"a","data":1}])");
    EXPECT_EQ(original.items[0].status, ItemStatus::queued);
    w.clock.now += 61'000;
    const int pushes = w.storage.pushes;
    const auto repeat = w.push(R"([{"queue":"q","transactionId":"a","data":1}])");
    return std::make_tuple(original.items[0].message_id, repeat.items[0], w.storage.pushes - pushes);
  };
  One ref_world;
  One var_world;
  const auto [ref_original, ref_repeat, ref_pushes] = run(Variant::none, ref_world);
  const auto [var_original, var_repeat, var_pushes] = run(Variant::trust_local_hit, var_world);
  EXPECT_EQ(ref_repeat.status, ItemStatus::queued);  // storage: the window has passed
  EXPECT_EQ(ref_pushes, 1);
  EXPECT_EQ(var_repeat.status, ItemStatus::duplicate);  // the false duplicate
  EXPECT_EQ(var_repeat.message_id, var_original);
  EXPECT_EQ(var_pushes, 0);  // storage never asked
  EXPECT_EQ(var_world.storage.storage.stored_messages("q", "Default"), 2);
  // An in-request mix: the held key settles locally, the fresh one still goes to storage.
  const auto mixed = var_world.push(R"([{"queue":"q","transactionId":"x","data":1},{"queue":"q","transactionId":"n","data":1}])");
  EXPECT_EQ(mixed.items[0].status, ItemStatus::duplicate);
  EXPECT_EQ(mixed.items[1].status, ItemStatus::queued);
  // What went to storage is intact: every stored frame carries its own key.
  for (One* w : {&ref_world, &var_world}) {
    const int64_t stored = w->storage.storage.stored_messages("q", "Default");
    for (int64_t offset = 0; offset < stored; ++offset) {
      const auto segment = w->storage.storage.covering_segment("q", "Default", offset);
      ASSERT_TRUE(segment.has_value());
      const auto frame = frame_at(segment->frames, static_cast<size_t>(offset - segment->base_offset));
      ASSERT_TRUE(frame.has_value());
      EXPECT_FALSE(frame->transaction_id.empty()) << "offset " << offset;
    }
  }
}

struct BrokerBundles : BrokerWith<BundlingStorage> {
  BrokerBundles() { broker.set_bundles(true); }
  static constexpr const char* kTwoPartitions =
      R"([{"queue":"q","partition":"A","transactionId":"t1","data":1},{"queue":"q","partition":"B","transactionId":"t2","data":2}])";
};

TEST_F(BrokerBundles, ARequestOverTwoPartitionsGoesAsOneBundleAndItsRetryAnswersDuplicate) {
  const auto first = push(kTwoPartitions);
  EXPECT_EQ(storage.bundles, (std::vector<size_t>{2}));
  EXPECT_EQ(storage.pushes, 0);
  EXPECT_EQ(first.items[0].status, ItemStatus::queued);
  EXPECT_EQ(first.items[1].status, ItemStatus::queued);
  const auto again = push(kTwoPartitions);
  EXPECT_EQ(storage.bundles, (std::vector<size_t>{2, 2}));
  EXPECT_EQ(again.items[0].status, ItemStatus::duplicate);
  EXPECT_EQ(again.items[0].message_id, first.items[0].message_id);
  EXPECT_EQ(again.items[1].message_id, first.items[1].message_id);
  // A request for one partition is no bundle.
  push(R"([{"queue":"q","partition":"A","transactionId":"t3","data":3}])");
  EXPECT_EQ(storage.bundles.size(), 2u);
  EXPECT_EQ(storage.pushes, 1);
}

TEST_F(BrokerBundles, AFailedBundleAnswersErrorForEveryPartition) {
  storage.fail_bundle = StorageError("injected");
  const auto r = push(kTwoPartitions);
  EXPECT_EQ(r.items[0].status, ItemStatus::error);
  EXPECT_EQ(r.items[1].status, ItemStatus::error);
  EXPECT_EQ(storage.storage.stored_messages("q", "A"), 0);
  EXPECT_EQ(storage.storage.stored_messages("q", "B"), 0);
}

TEST_F(BrokerBundles, ALostBundleGoesAgainOnePartitionAtATime) {
  storage.fail_bundle = StorageError::connection_lost("injected");
  const auto r = push(kTwoPartitions);
  EXPECT_EQ(storage.bundles, (std::vector<size_t>{2}));
  EXPECT_EQ(storage.pushes, 2);
  EXPECT_EQ(r.items[0].status, ItemStatus::queued);
  EXPECT_EQ(r.items[1].status, ItemStatus::queued);
  EXPECT_EQ(broker.stats().storage_resets, 1u);
}

using BrokerRestarting = BrokerWith<RestartingStorage>;

TEST_F(BrokerRestarting, ARepushThatFindsItsOwnCommitStaysQueuedWhenItsFetchLosesTheConnection) {
  // Found by qdt check --profile power-loss (scenarios/regress/power-loss-*-fetch-lost-*.json):
  // the re-push's fetch decides own commit or another's, so a lost one goes again.
  storage.lose_after_commit = 1;
  storage.lose_fetches = 1;
  const auto r = push(R"([{"queue":"q","transactionId":"k","data":1}])");
  ASSERT_EQ(r.items.size(), 1u);
  EXPECT_EQ(r.items[0].status, ItemStatus::queued);
  EXPECT_NE(r.items[0].message_id, kZeroUuidText);
  EXPECT_EQ(storage.pushes, 2);
  EXPECT_EQ(storage.fetches, 2);
  EXPECT_EQ(storage.storage.stored_messages("q", "Default"), 1);
}

TEST_F(BrokerRestarting, AFetchThatKeepsLosingItsConnectionDegradesToTheZeroIdBounded) {
  push(R"([{"queue":"q","transactionId":"k","data":1}])");
  storage.lose_fetches = 1000;
  const auto r = push(R"([{"queue":"q","transactionId":"k","data":2}])");
  EXPECT_EQ(r.items[0].status, ItemStatus::duplicate);
  EXPECT_EQ(r.items[0].message_id, kZeroUuidText);
  EXPECT_EQ(storage.fetches, 1 + static_cast<int>(Broker::kLostConnectionRetriesMax));
}

TEST_F(BrokerRestarting, AnOffsetThatNowHoldsAnotherKeyAnswersTheZeroId) {
  // Storage emptied by a power loss (synchronous off) between the probe and
  // the fetch, and another key written at the original's offset since.
  DirectStorage emptied{clock};
  CountingRandom other_random;
  other_random.n = 1000;  // ids unlike the first broker's
  Broker other{1, clock, other_random, emptied};
  const auto written_since = other.push(nlohmann::json::parse(R"([{"queue":"q","transactionId":"other","data":1}])"), 99);
  ASSERT_EQ(written_since.items[0].status, ItemStatus::queued);
  push(R"([{"queue":"q","transactionId":"k","data":1}])");
  storage.fetch_from = &emptied.storage;
  const auto r = push(R"([{"queue":"q","transactionId":"k","data":2}])");
  EXPECT_EQ(r.items[0].status, ItemStatus::duplicate);
  EXPECT_EQ(r.items[0].message_id, kZeroUuidText);
  EXPECT_NE(r.items[0].message_id, written_since.items[0].message_id);
}

TEST_F(BrokerFixture, WithoutBundlesEachPartitionIsItsOwnPush) {
  push(BrokerBundles::kTwoPartitions);
  EXPECT_EQ(storage.pushes, 2);
}

TEST_F(BrokerFixture, EmptyRequestAnswersEmpty) {
  const auto r = push("[]");
  EXPECT_FALSE(r.rejected);
  EXPECT_TRUE(r.items.empty());
  EXPECT_EQ(r.to_json(), nlohmann::json::array());
}

}  // namespace
}  // namespace qdt::impl
