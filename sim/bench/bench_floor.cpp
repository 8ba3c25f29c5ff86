#include "sim/bench/bench_floor.h"

#include <atomic>
#include <chrono>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <variant>

#include "impl/storage/sqlite/connection.h"
#include "impl/storage/sqlite/storage.h"
#include "properties/checkers.h"
#include "sim/scenario/runner.h"
#include "sim/scenario/scenario.h"
#include "sim/campaign/workload.h"
#include "sim/world/world_config.h"

namespace qdt::sim {
namespace {

using Steady = std::chrono::steady_clock;

// What the run's payloads were is not in the history; every frame carries
// this one (a generated item's data is of this size).
constexpr const char* kFloorPayload = R"({"n":1})";

std::string floor_database_name() {
  static std::atomic<uint64_t> next{0};
  return "qdt-floor-" + std::to_string(::getpid()) + "-" + std::to_string(next.fetch_add(1));
}

impl::SegmentPush segment_of(const history::PushEvent& e) {
  impl::SegmentPush s;
  s.queue = e.queue;
  s.partition = e.partition;
  s.p_verified = e.p_verified;
  s.window_seconds_assumed = e.window_seconds_assumed;
  for (const history::FrameRecord& f : e.frames) {
    impl::Frame frame;
    const std::optional<impl::Uuid> id = impl::parse_uuid(f.message_id);
    if (!id) throw std::logic_error("storage floor: a recorded frame has no message id: " + f.message_id);
    frame.message_id = *id;
    frame.transaction_id = f.transaction_id;
    frame.payload = kFloorPayload;
    frame.hash = impl::hash_transaction_id(f.transaction_id);
    s.frames.push_back(std::move(frame));
  }
  return s;
}

// One storage call per successful event, timed on its own: what builds the
// call's arguments is not the mechanism's cost.
class Replayer {
 public:
  Replayer(impl::Storage& storage, impl::ManualClock& clock, FloorReplay& out)
      : storage_(storage), clock_(clock), out_(out) {}

  void operator()(const history::PushEvent& e) {
    if (e.failed) return;
    const impl::SegmentPush s = segment_of(e);
    clock_.set(e.now_ms);
    impl::PushResult r;
    timed([&] { r = storage_.push(s); });
    out_.pushes++;
    out_.items += s.frames.size();
    const bool agrees = r.queued == e.queued && r.duplicates == e.duplicates && (!r.queued || r.base_offset == e.base_offset);
    if (!agrees) out_.disagreements++;
  }
  void operator()(const history::FetchEvent& e) {
    if (e.failed) return;
    std::optional<impl::CoveringSegment> segment;
    timed([&] { segment = storage_.covering_segment(e.queue, e.partition, e.offset); });
    if (segment.has_value() != e.found) out_.disagreements++;
  }
  void operator()(const history::ConfigureEvent& e) {
    clock_.set(e.now_ms);
    impl::QueueOptions o;
    o.dedup_window_seconds = e.window_seconds;
    o.retention_seconds = e.retention_seconds;
    o.completed_retention_seconds = e.completed_retention_seconds;
    timed([&] { storage_.set_options(e.queue, o); });
  }
  void operator()(const history::DeleteSegmentEvent& e) {
    clock_.set(e.now_ms);
    timed([&] { storage_.delete_segment(e.queue, e.partition, e.base_offset); });
  }
  void operator()(const history::RetentionEvent& e) {
    if (e.failed) return;
    clock_.set(e.now_ms);
    impl::RetentionDelete d;
    timed([&] { d = storage_.delete_expired_segments(e.queue, e.partition); });
  }
  void operator()(const history::PurgeEvent& e) {
    if (e.failed) return;
    clock_.set(e.now_ms);
    storage_.set_purge_batch(e.batch);
    timed([&] { storage_.purge_step(e.queue, e.partition); });
  }
  void operator()(const history::AckEvent& e) {
    if (e.failed) return;
    clock_.set(e.now_ms);
    impl::AckResult a;
    timed([&] { a = storage_.ack(e.queue, e.partition, e.transaction_id, e.consumer_group); });
    if (a.acked != e.acked) out_.disagreements++;
  }
  void operator()(const history::ReadEvent& e) {
    if (e.failed) return;
    size_t read = 0;
    timed([&] { read = storage_.read(e.queue, e.partition, e.from, e.limit).size(); });
    if (read != e.messages.size()) out_.disagreements++;
  }

 private:
  template <typename Call>
  void timed(Call&& call) {
    const Steady::time_point start = Steady::now();
    call();
    out_.wall_s += std::chrono::duration<double>(Steady::now() - start).count();
    out_.transactions++;
  }

  impl::Storage& storage_;
  impl::ManualClock& clock_;
  FloorReplay& out_;
};

}  // namespace

namespace {
// The page size a world's in-memory database has: the floor replays the same SQL on the same pages.
impl::StorageOptions floor_options() {
  impl::StorageOptions options;
  options.page_size_bytes = kMemoryPageBytes;
  return options;
}
}  // namespace

StorageFloor::StorageFloor(const history::History& warm_up)
    : storage_(impl::Storage::shared_memory_uri(floor_database_name()), clock_, nullptr, floor_options()) {
  FloorReplay discarded;
  replay(warm_up, discarded);
}

void StorageFloor::replay(const history::History& history, FloorReplay& out) {
  storage_.clear_rows();
  Replayer replay(storage_, clock_, out);
  for (const history::Event& event : history.events) std::visit(replay, event);
}

namespace {

// `generation_wall_s`, when given, gains the time the seed's scenario took
// to generate and load, as a campaign does it (no schema validation).
history::History run_seed(const std::string& profile, uint64_t seed, double* generation_wall_s = nullptr) {
  const Steady::time_point start = Steady::now();
  const nlohmann::json doc = generate_scenario(seed, profile);
  LoadResult loaded = load_scenario_document(doc, "generated", false);
  if (generation_wall_s != nullptr) *generation_wall_s += std::chrono::duration<double>(Steady::now() - start).count();
  if (!loaded.scenario) throw std::logic_error("storage floor: a generated scenario does not load");
  return run_scenario(*loaded.scenario, RunOptions{}).history;
}

}  // namespace

FloorReplay campaign_storage_floor(const std::string& profile, uint64_t first_seed, uint64_t seeds) {
  FloorReplay out;
  StorageFloor floor(run_seed(profile, first_seed));
  for (uint64_t seed = first_seed; seed < first_seed + seeds; ++seed) {
    const history::History h = run_seed(profile, seed, &out.generation_wall_s);
    floor.replay(h, out);
    const Steady::time_point start = Steady::now();
    if (!properties::check_history(h).empty()) out.disagreements++;  // a run that failed: not the reference's SQL
    out.checkers_wall_s += std::chrono::duration<double>(Steady::now() - start).count();
  }
  return out;
}

}  // namespace qdt::sim
