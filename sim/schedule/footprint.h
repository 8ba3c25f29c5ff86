#pragma once
// What one scheduling step touches: the step of a fiber runs from the moment
// the scheduler picks it until it next suspends (or ends). The bounded
// exhaustive search (sim/schedule/schedule_search.h) skips a schedule that differs
// from one already run only by the order of two adjacent independent steps;
// two steps are independent when both footprints are known and share no
// resource. An unknown footprint conflicts with everything, so code that
// declares nothing keeps the reduction sound.
//
// Footprints are declared by the code at its interleaving points
// (SeededScheduler::label_next_step); resources are plain integers from the
// namespace below, so a footprint is a few words and costs nothing to copy.
//
// What a footprint leaves out, by design: the trace and the history's
// records (appended in step order: commuted steps write the same lines in
// another order), counters whose only effect is the order of such appends
// (statistics), and ids handed out by counters (push ids, request ids, timer
// sequence numbers). Two commuted steps that each take an id get them
// swapped: the states differ by a renaming of ids, and nothing reads an id
// but to tell it from another (no latency, order or verdict depends on its
// value; with keyed draws, draws are keyed by the producer's name and push
// number instead, sim/world/network.h). The search's outcomes are free of ids
// (sim/cli/schedule_command.cpp); trace hashes are not, so a reduced search
// meets fewer of them.
#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>

namespace qdt::sim {

namespace resource {
// The shared SQLite database, its lock, its fault plan and its latency draws.
inline constexpr uint64_t storage = 1;
// The generators that ordered draws share (the network's and the
// producers' sub-seeds, sim/world/network.h); keyed draws touch none.
inline constexpr uint64_t ordered_draws = 2;
// One producer push: its attempts' response slots and its waiting fiber.
inline constexpr uint64_t push(uint64_t push_id) { return (uint64_t{1} << 40) | push_id; }
// One producer (by a key of its name, Rng::key_of): its generator and its
// count of pushes. Two names may share a key: then they conflict, which is
// safe.
inline constexpr uint64_t producer(uint64_t name_key) { return (uint64_t{2} << 40) | (name_key & ((uint64_t{1} << 40) - 1)); }
// Free for tests and toys: ids below this are never used by the world.
inline constexpr uint64_t first_free = uint64_t{1} << 48;
}  // namespace resource

class Footprint {
 public:
  static constexpr size_t kResourcesMax = 3;

  // Unknown: dependent on every other step.
  Footprint() = default;
  static Footprint of(std::initializer_list<uint64_t> resources);

  bool known() const { return known_; }
  bool touches(uint64_t r) const;
  // Both known and disjoint: the two steps commute.
  bool independent_of(const Footprint& other) const;
  bool operator==(const Footprint& other) const;
  std::string to_string() const;  // "?" or "{1,2}"

 private:
  bool known_ = false;
  uint8_t count_ = 0;
  std::array<uint64_t, kResourcesMax> resources_{};
};

}  // namespace qdt::sim
