#include "properties/checkers.h"

#include <cassert>
#include <iterator>
#include <stdexcept>

#include "properties/checks.h"

namespace qdt::properties {
namespace {

using Checker = std::vector<Failure> (*)(const history::History&);

struct Entry {
  const char* name;
  Checker check;
};

// The order of property_names().
constexpr Entry kRegistry[] = {
    {"model-agreement", check_model_agreement},
    {"no-double-write", check_no_double_write},
    {"no-false-duplicate", check_no_false_duplicate},
    {"duplicate-id", check_duplicate_id},
    {"partition-scope", check_partition_scope},
    {"first-wins", check_first_wins},
    {"nothing-written-on-duplicate", check_nothing_written_on_duplicate},
    {"offsets", check_offsets},
    {"dedup-off", check_dedup_off},
    {"ack-resolution", check_ack_resolution},
    {"retry-convergence", check_retry_convergence},
    {"window-expiry", check_window_expiry},
    {"cache-transparency", check_cache_transparency},
    {"retention-model", check_retention_model},
    {"sidecar-floor", check_sidecar_floor},
    {"client-visible", check_client_visible},
    {"liveness", check_liveness},
    {"durability", check_durability},
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
  std::vector<Failure> all;
  for (const Entry& e : kRegistry) {
    std::vector<Failure> failures = e.check(history);
    all.insert(all.end(), std::make_move_iterator(failures.begin()), std::make_move_iterator(failures.end()));
  }
  return all;
}

}  // namespace qdt::properties
