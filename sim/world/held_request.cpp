#include "sim/world/held_request.h"

#include <cassert>
#include <utility>

namespace qdt::sim {

void dismantle_json(nlohmann::json& value, int depth) {
  assert(depth >= 0);
  if (depth == 0) return;
  if (value.is_object()) {
    auto& members = value.get_ref<nlohmann::json::object_t&>();
    for (auto& [key, member] : members) dismantle_json(member, depth - 1);
    members.clear();
  } else if (value.is_array()) {
    auto& elements = value.get_ref<nlohmann::json::array_t&>();
    for (nlohmann::json& element : elements) dismantle_json(element, depth - 1);
    elements.clear();
  }
}

namespace {
struct HeldRequest {
  explicit HeldRequest(nlohmann::json b) : body(std::move(b)) {}
  HeldRequest(const HeldRequest&) = delete;
  HeldRequest& operator=(const HeldRequest&) = delete;
  ~HeldRequest() { dismantle_json(body); }
  nlohmann::json body;
};
}  // namespace

std::shared_ptr<const nlohmann::json> hold_request(nlohmann::json body) {
  auto held = std::make_shared<HeldRequest>(std::move(body));
  // One allocation: the pointer shares the holder's ownership.
  return std::shared_ptr<const nlohmann::json>(held, &held->body);
}

}  // namespace qdt::sim
