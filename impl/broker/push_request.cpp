#include "impl/broker/push_request.h"

#include <nlohmann/json.hpp>

namespace qdt::impl {
namespace {

// Checks an optional-or-required name field (`member`: the item's member of
// that name, or nullptr): "" when it is fine, else the reason. The item's
// path is built only for an error: a valid request (all but a few) pays
// for no strings.
std::string check_name(const nlohmann::json* member, bool required, std::string_view& out) {
  if (member == nullptr) return required ? "required" : "";
  if (!member->is_string()) return "expected a string";
  const auto& text = member->get_ref<const std::string&>();
  if (text.empty() || text.size() > kMaxNameBytes) return "must be 1-255 bytes, got " + std::to_string(text.size());
  out = text;
  return "";
}

std::string item_path(size_t index) { return "/" + std::to_string(index); }

}  // namespace

std::variant<std::vector<PushItem>, std::string> validate_push_request(const nlohmann::json& request) {
  if (!request.is_array()) return std::string("/: expected an array of items");
  std::vector<PushItem> items;
  items.reserve(request.size());
  for (size_t i = 0; i < request.size(); ++i) {
    const nlohmann::json& item = request[i];
    if (!item.is_object()) return item_path(i) + ": expected an object";
    PushItem out;
    out.partition = kDefaultPartition;
    // One walk over the members instead of a tree search per field: what
    // find(name) would return, each field's member or nullptr. A member of
    // another name is not this rule's business (docs/semantics.md §2.1).
    const nlohmann::json* queue = nullptr;
    const nlohmann::json* partition = nullptr;
    const nlohmann::json* transaction_id = nullptr;
    const nlohmann::json* data = nullptr;
    for (const auto& [key, member] : item.get_ref<const nlohmann::json::object_t&>()) {
      const std::string_view name = key;  // compares lengths first: the four names' differ
      if (name == "queue") queue = &member;
      else if (name == "partition") partition = &member;
      else if (name == "transactionId") transaction_id = &member;
      else if (name == "data") data = &member;
    }
    struct Field {
      const char* name;
      const nlohmann::json* member;
      bool required;
      std::string_view& out;
    };
    for (const Field& f : {Field{"queue", queue, true, out.queue}, Field{"partition", partition, false, out.partition},
                           Field{"transactionId", transaction_id, false, out.transaction_id}}) {
      const std::string error = check_name(f.member, f.required, f.out);
      if (!error.empty()) return item_path(i) + "/" + f.name + ": " + error;
    }
    if (data == nullptr) return item_path(i) + "/data: required";
    out.data = data;
    items.push_back(std::move(out));
  }
  return items;
}

}  // namespace qdt::impl
