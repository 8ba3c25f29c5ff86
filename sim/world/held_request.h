#pragma once
// A push request as the world holds it in flight (World::push hands it to
// the network; retries and duplicated deliveries share it). When its last
// holder lets go, its tree is taken apart from the leaves up, to a bounded
// depth, before nlohmann's destructor sees it.
//
// Why: nlohmann's destructor moves every child of every array and object
// onto a heap stack first, so that no depth can overflow the machine stack;
// for a request (an array of item objects, a few levels deep) that is a
// visible share of every pushed item's cost. Below
// kDismantleDepth levels the library's own destructor takes over, so a
// hostile depth stays safe on a fiber's small stack.
#include <memory>
#include <nlohmann/json.hpp>

namespace qdt::sim {

inline constexpr int kDismantleDepth = 8;

// Clears `value`'s arrays and objects from the leaves up, `depth` levels
// deep (deeper containers are left whole for nlohmann's destructor). The
// value is an empty container or a scalar afterwards.
void dismantle_json(nlohmann::json& value, int depth = kDismantleDepth);

// `body`, shared and immutable, dismantled when the last holder lets go.
std::shared_ptr<const nlohmann::json> hold_request(nlohmann::json body);

}  // namespace qdt::sim
