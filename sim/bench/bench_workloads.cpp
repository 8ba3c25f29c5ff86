#include "sim/bench/bench_workloads.h"

#include <algorithm>
#include <atomic>
#include <boost/fiber/fiber.hpp>
#include <cassert>
#include <chrono>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <vector>

#include "impl/broker/broker.h"
#include "impl/heap_in_use.h"
#include "impl/storage/sqlite/storage.h"
#include "properties/checkers.h"
#include "sim/world/world.h"

namespace qdt::sim {
namespace {

using impl::heap_in_use_bytes;

using Steady = std::chrono::steady_clock;

double seconds_since(Steady::time_point start) {
  return std::chrono::duration<double>(Steady::now() - start).count();
}

// Broker and storage share one hand-driven clock: the window workload wants
// every pre-filled row inside the window, not time passing.
struct BenchClock : impl::BrokerClock, impl::StorageClock {
  int64_t now = kEpochUnixMs;
  int64_t now_ms() override { return now; }
};

struct CountingRandom : impl::RandomSource {
  uint64_t n = 0;
  uint64_t next_u64() override { return ++n * 0x9e3779b97f4a7c15ULL; }
};

// Storage called directly (no world, no latency), counting what the probe read.
struct DirectPort : impl::StoragePort {
  explicit DirectPort(impl::Storage& s) : storage(s) {}
  impl::Storage& storage;
  uint64_t rows_scanned = 0;
  impl::PushResult push(const impl::SegmentPush& segment) override {
    impl::PushResult r = storage.push(segment);
    rows_scanned += r.rows_scanned;
    return r;
  }
  std::optional<impl::CoveringSegment> covering_segment(const std::string& q, const std::string& p,
                                                        int64_t offset) override {
    return storage.covering_segment(q, p, offset);
  }
  impl::SidecarRead sidecar_rows(const std::string& q, const std::string& p, int64_t after_offset,
                                 int64_t since_ms) override {
    return storage.read_sidecar(q, p, after_offset, since_ms);
  }
};

std::string unique_name() {
  static std::atomic<uint64_t> next{0};
  return "qdt-bench-" + std::to_string(::getpid()) + "-" + std::to_string(next.fetch_add(1));
}

// `rows` one-frame segments pushed straight into storage, each with a
// watermark vouching for everything before it (so filling costs no probe).
void prefill(impl::Storage& storage, int64_t rows, int64_t now_ms) {
  for (int64_t n = 0; n < rows; ++n) {
    impl::SegmentPush s;
    s.queue = "q";
    s.partition = "p";
    s.p_verified = n - 1;
    s.window_seconds_assumed = 3600;
    impl::Frame f;
    f.message_id = impl::make_uuid_v7(now_ms, static_cast<uint64_t>(n), 1);
    f.transaction_id = "fill-" + std::to_string(n);
    f.payload = R"({"n":1})";
    f.hash = impl::hash_transaction_id(f.transaction_id);
    s.frames.push_back(std::move(f));
    const impl::PushResult r = storage.push(s);
    if (!r.queued) throw std::logic_error("bench: a pre-fill push was not queued");
  }
}

nlohmann::json one_item(uint64_t n) {
  return nlohmann::json::array(
      {{{"queue", "q"}, {"partition", "p"}, {"transactionId", "key-" + std::to_string(n)}, {"data", {{"n", n}}}}});
}

// Every request of producer `p`, as it will go on the wire: fresh keys, so
// every item is queued and every probe finds nothing. Members set one by one
// (an initializer list copies each value again).
std::vector<nlohmann::json> producer_requests(const PushWorkload& w, int p) {
  std::vector<nlohmann::json> requests;
  requests.reserve(static_cast<size_t>(w.requests));
  for (int r = 0; r < w.requests; ++r) {
    const std::string partition = "p" + std::to_string(r % w.partitions);
    nlohmann::json items = nlohmann::json::array();
    for (int i = 0; i < w.batch; ++i) {
      nlohmann::json item = nlohmann::json::object();
      item["queue"] = "q";
      item["partition"] = partition;
      item["transactionId"] = "k" + std::to_string(p) + "-" + std::to_string(r) + "-" + std::to_string(i);
      item["data"] = nlohmann::json::object();
      item["data"]["n"] = r;
      items.push_back(std::move(item));
    }
    requests.push_back(std::move(items));
  }
  return requests;
}

}  // namespace

PushFigures run_push_workload(const PushWorkload& w) {
  assert(w.producers >= 1 && w.requests >= 1 && w.batch >= 1 && w.partitions >= 1);
  WorldConfig config;
  config.seed = w.seed;
  config.cache.enabled = w.cache;
  config.checked_mode = w.checked_mode;
  config.storage.engine = w.engine;
  PushFigures out;
  // The producers' requests exist before the clock starts, as a scenario's
  // steps are loaded before its run: what is timed is the simulated path
  // (producer -> network -> broker -> storage) and the checkers, not the
  // building of the bench's input.
  std::vector<std::vector<nlohmann::json>> requests;
  for (int p = 0; p < w.producers; ++p) requests.push_back(producer_requests(w, p));
  const Steady::time_point start = Steady::now();
  World world(config, false);
  world.run([&] {
    world.admin().configure("q", {{"dedupWindowSeconds", w.window_seconds}});
    std::vector<boost::fibers::fiber> fibers;
    for (int p = 0; p < w.producers; ++p) {
      fibers.push_back(world.spawn([&, p] {
        const std::string producer = "producer" + std::to_string(p);
        for (nlohmann::json& items : requests[static_cast<size_t>(p)]) world.push("bench", 0, producer, std::move(items));
      }));
    }
    for (auto& f : fibers) f.join();
  });
  world.finish_history();
  world.history().recorded_outcomes = true;
  world.history().recorded_request_times = true;
  out.run_wall_s = seconds_since(start);
  out.virtual_s = static_cast<double>(world.clock().now_ms()) / 1000.0;
  const Steady::time_point check_start = Steady::now();
  out.failures = properties::check_history(world.history()).size();
  out.check_wall_s = seconds_since(check_start);
  out.items = static_cast<uint64_t>(w.producers) * static_cast<uint64_t>(w.requests) * static_cast<uint64_t>(w.batch);
  if (w.keep_history) out.history = std::move(world.history());
  return out;
}

namespace {
impl::StorageOptions options_of(const WindowWorkload& w) {
  impl::StorageOptions options;
  options.checked_mode = w.checked_mode;
  return options;
}
}  // namespace

struct WindowRun::State {
  explicit State(const WindowWorkload& w)
      : uri(impl::Storage::shared_memory_uri(unique_name())),
        // The filler's connection never runs checked mode: it would re-probe
        // the whole window per row and the fill would cost O(rows^2).
        filler(uri, clock, nullptr, {}),
        storage(uri, clock, nullptr, options_of(w)),
        port(storage),
        broker(0, clock, random, port) {}
  BenchClock clock;
  std::string uri;
  impl::Storage filler;
  impl::Storage storage;
  DirectPort port;
  CountingRandom random;
  impl::Broker broker;
  uint64_t key = 0;
  uint64_t timed_pushes = 0;
  std::vector<double> rates;
};

WindowRun::WindowRun(const WindowWorkload& w) {
  assert(w.rows >= 1);
  state_ = std::make_unique<State>(w);
  State& s = *state_;
  s.filler.set_options("q", {.dedup_window_seconds = 3600});
  prefill(s.filler, w.rows, s.clock.now);
  s.broker.configure_cache({.enabled = w.cache});
  // Warm-up: the broker learns the window, the cache hydrates the whole
  // window once; neither is what a push costs afterwards.
  for (int i = 0; i < 3; ++i) {
    s.clock.now += 1;
    s.broker.push(one_item(s.key), s.key);
    ++s.key;
  }
  s.port.rows_scanned = 0;
}

WindowRun::~WindowRun() = default;

double WindowRun::timed_round(uint64_t pushes) {
  assert(pushes >= 1);
  State& s = *state_;
  const Steady::time_point start = Steady::now();
  for (uint64_t i = 0; i < pushes; ++i) {
    s.clock.now += 1;
    const impl::PushResponse r = s.broker.push(one_item(s.key), s.key);
    ++s.key;
    if (r.items.size() != 1 || r.items[0].status != impl::ItemStatus::queued) {
      throw std::logic_error("bench: a fresh key was not queued");
    }
  }
  const double rate = static_cast<double>(pushes) / seconds_since(start);
  s.timed_pushes += pushes;
  s.rates.push_back(rate);
  return rate;
}

WindowFigures WindowRun::figures() {
  State& s = *state_;
  assert(!s.rates.empty());
  std::vector<double> rates = s.rates;
  std::sort(rates.begin(), rates.end());
  WindowFigures out;
  out.pushes_per_s = rates[rates.size() / 2];
  out.rows_scanned_per_push = static_cast<double>(s.port.rows_scanned) / static_cast<double>(s.timed_pushes);
  const impl::DedupCache::Stats stats = s.broker.cache().stats();
  out.cache_hashes = stats.hashes;
  if (stats.hashes > 0) {
    out.cache_bytes_per_hash = static_cast<double>(stats.bytes) / static_cast<double>(stats.hashes);
    // What the cache holds on the heap: in-use bytes before and after it is
    // dropped (the broker's other state is small and stays).
    const size_t heap_full = heap_in_use_bytes();
    s.broker.cache().clear();
    const size_t heap_cleared = heap_in_use_bytes();
    out.heap_bytes_per_hash =
        static_cast<double>(heap_full > heap_cleared ? heap_full - heap_cleared : 0) / static_cast<double>(stats.hashes);
  }
  return out;
}

WindowFigures run_window_workload(const WindowWorkload& w) {
  assert(w.pushes >= 1);
  WindowRun run(w);
  run.timed_round(w.pushes);
  return run.figures();
}

}  // namespace qdt::sim
