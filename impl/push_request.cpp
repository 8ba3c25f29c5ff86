#include "impl/push_request.h"

#include <nlohmann/json.hpp>

namespace qdt::impl {
namespace {

// Checks an optional-or-required name field: "" when it is fine, else the
// reason. The item's path is built only for an error: a valid request (all
// but a few) pays for no strings but the names it keeps.
std::string check_name(const nlohmann::json& item, const char* field, bool required, std::string& out) {
  const auto it = item.find(field);
  if (it == item.end()) return required ? "required" : "";
  if (!it->is_string()) return "expected a string";
  const auto& text = it->get_ref<const std::string&>();
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
    struct Field {
      const char* name;
      bool required;
      std::string& out;
    };
    for (const Field& f : {Field{"queue", true, out.queue}, Field{"partition", false, out.partition},
                           Field{"transactionId", false, out.transaction_id}}) {
      const std::string error = check_name(item, f.name, f.required, f.out);
      if (!error.empty()) return item_path(i) + "/" + f.name + ": " + error;
    }
    const auto data = item.find("data");
    if (data == item.end()) return item_path(i) + "/data: required";
    out.data = &*data;
    items.push_back(std::move(out));
  }
  return items;
}

}  // namespace qdt::impl
