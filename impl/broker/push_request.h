#pragma once
// Validation of a push request (docs/semantics.md §2.1): the whole request is rejected with
// the JSON path of the first broken rule, or every item is accepted.
#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace qdt::impl {

inline constexpr size_t kMaxNameBytes = 255;
inline constexpr const char* kDefaultPartition = "Default";

// Views into the request (or, for a partition not given, into
// kDefaultPartition): valid while the request is. A broker copies what it
// keeps; a request's items are read once and most are not kept.
struct PushItem {
  std::string_view queue;
  std::string_view partition;
  std::string_view transaction_id;  // empty when the item carried none
  const nlohmann::json* data = nullptr;  // points into the request
};

// Either the items, or "PATH: reason" (e.g. "/3/transactionId: expected a string").
std::variant<std::vector<PushItem>, std::string> validate_push_request(const nlohmann::json& request);
// The items view the request: a temporary one would leave them dangling.
std::variant<std::vector<PushItem>, std::string> validate_push_request(const nlohmann::json&& request) = delete;

}  // namespace qdt::impl
