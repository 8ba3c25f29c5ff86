#pragma once
// Validation of a push request (SPEC 2.1): the whole request is rejected with
// the JSON path of the first broken rule, or every item is accepted.
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <variant>
#include <vector>

namespace qdt::impl {

inline constexpr size_t kMaxNameBytes = 255;
inline constexpr const char* kDefaultPartition = "Default";

struct PushItem {
  std::string queue;
  std::string partition;
  std::string transaction_id;  // empty when the item carried none
  const nlohmann::json* data = nullptr;  // points into the request
};

// Either the items, or "PATH: reason" (e.g. "/3/transactionId: expected a string").
std::variant<std::vector<PushItem>, std::string> validate_push_request(const nlohmann::json& request);

}  // namespace qdt::impl
