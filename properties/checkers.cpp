#include "properties/checkers.h"

#include <cassert>
#include <iterator>
#include <memory>
#include <stdexcept>

#include "properties/checks.h"
#include "properties/event_pass.h"
#include "properties/history_index.h"

namespace qdt::properties {
namespace {

using Checker = std::vector<Failure> (*)(const history::History&);

struct Entry {
  const char* name;
  Checker check;
  // Set for the properties check_history runs together in one pass.
  PassCheckerFactory make = nullptr;
};

// The order of property_names().
constexpr Entry kRegistry[] = {
    {"model-agreement", check_model_agreement, make_model_agreement},
    {"no-double-write", check_no_double_write, make_no_double_write},
    {"no-false-duplicate", check_no_false_duplicate, make_no_false_duplicate},
    {"duplicate-id", check_duplicate_id, make_duplicate_id},
    {"partition-scope", check_partition_scope, make_partition_scope},
    {"first-wins", check_first_wins, make_first_wins},
    {"nothing-written-on-duplicate", check_nothing_written_on_duplicate, make_nothing_written_on_duplicate},
    {"offsets", check_offsets, make_offsets},
    {"dedup-off", check_dedup_off, make_dedup_off},
    {"ack-resolution", check_ack_resolution, make_ack_resolution},
    {"retry-convergence", check_retry_convergence, make_retry_convergence},
    {"window-expiry", check_window_expiry, make_window_expiry},
    {"cache-transparency", check_cache_transparency, make_cache_transparency},
    {"retention-model", check_retention_model, make_retention_model},
    {"sidecar-floor", check_sidecar_floor, make_sidecar_floor},
    {"client-visible", check_client_visible, make_client_visible},
    {"liveness", check_liveness},
    {"durability", check_durability, make_durability},
    {"deadlock-free", check_deadlock_free},
};

}  // namespace

const std::vector<std::string>& property_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const Entry& e : kRegistry) out.emplace_back(e.name);
    return out;
  }();
  return names;
}

std::vector<Failure> check_property(const std::string& name, const history::History& history) {
  for (const Entry& e : kRegistry) {
    if (name == e.name) {
      std::vector<Failure> failures = e.check(history);
      for ([[maybe_unused]] const Failure& f : failures) assert(f.property == name);
      return failures;
    }
  }
  throw std::invalid_argument("unknown property: " + name);
}

std::vector<Failure> check_history(const history::History& history) {
  // The event-by-event properties share one walk and one set of derived
  // structures; each still judges on its own (properties/event_pass.h).
  const HistoryIndex index(history);
  std::vector<std::unique_ptr<PassChecker>> passing;
  std::vector<PassChecker*> pass;
  for (const Entry& e : kRegistry) {
    if (e.make == nullptr) continue;
    passing.push_back(e.make(index));
    pass.push_back(passing.back().get());
  }
  run_pass(index, pass);
  std::vector<Failure> all;
  size_t next = 0;
  for (const Entry& e : kRegistry) {
    std::vector<Failure> failures = e.make != nullptr ? passing[next++]->take() : e.check(history);
    all.insert(all.end(), std::make_move_iterator(failures.begin()), std::make_move_iterator(failures.end()));
  }
  assert(next == passing.size());
  return all;
}

}  // namespace qdt::properties
