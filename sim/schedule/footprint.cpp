#include "sim/schedule/footprint.h"

#include <cassert>

namespace qdt::sim {

Footprint Footprint::of(std::initializer_list<uint64_t> resources) {
  assert(resources.size() <= kResourcesMax);
  Footprint f;
  f.known_ = true;
  for (uint64_t r : resources) {
    if (!f.touches(r)) f.resources_[f.count_++] = r;
  }
  return f;
}

bool Footprint::touches(uint64_t r) const {
  for (uint8_t i = 0; i < count_; ++i) {
    if (resources_[i] == r) return true;
  }
  return false;
}

bool Footprint::independent_of(const Footprint& other) const {
  if (!known_ || !other.known_) return false;
  for (uint8_t i = 0; i < count_; ++i) {
    if (other.touches(resources_[i])) return false;
  }
  return true;
}

bool Footprint::operator==(const Footprint& other) const {
  if (known_ != other.known_ || count_ != other.count_) return false;
  for (uint8_t i = 0; i < count_; ++i) {
    if (!other.touches(resources_[i])) return false;
  }
  return true;
}

std::string Footprint::to_string() const {
  if (!known_) return "?";
  std::string out = "{";
  for (uint8_t i = 0; i < count_; ++i) out += (i ? "," : "") + std::to_string(resources_[i]);
  return out + "}";
}

}  // namespace qdt::sim
