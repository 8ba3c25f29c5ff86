#pragma once
// A producer as the SDK behaves (docs/semantics.md §2.12): an item without a transactionId
// gets a fresh, unique, seeded one, so it can never deduplicate.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "sim/base/rng.h"

namespace qdt::sim {

class Producer {
 public:
  Producer(std::string name, uint64_t seed) : name_(std::move(name)), rng_(seed) {}

  // Returns the request as it goes on the wire. Items that are not objects
  // are left as written: the broker rejects them.
  nlohmann::json prepare(nlohmann::json items);
  const std::string& name() const { return name_; }
  // Counts this producer's pushes: the number of the one starting now, from 1.
  uint64_t next_push() { return ++pushes_; }

 private:
  std::string name_;
  Rng rng_;
  uint64_t pushes_ = 0;
};

}  // namespace qdt::sim
