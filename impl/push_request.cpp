#include "impl/push_request.h"

#include <nlohmann/json.hpp>

namespace qdt::impl {
namespace {

// Checks an optional-or-required name field; returns an error or "".
std::string check_name(const nlohmann::json& item, const char* field, const std::string& path, bool required,
                       std::string& out) {
  const auto it = item.find(field);
  if (it == item.end()) return required ? path + "/" + field + ": required" : "";
  if (!it->is_string()) return path + "/" + field + ": expected a string";
  const auto& text = it->get_ref<const std::string&>();
  if (text.empty() || text.size() > kMaxNameBytes) {
    return path + "/" + field + ": must be 1-255 bytes, got " + std::to_string(text.size());
  }
  out = text;
  return "";
}

}  // namespace

std::variant<std::vector<PushItem>, std::string> validate_push_request(const nlohmann::json& request) {
  if (!request.is_array()) return std::string("/: expected an array of items");
  std::vector<PushItem> items;
  items.reserve(request.size());
  for (size_t i = 0; i < request.size(); ++i) {
    const nlohmann::json& item = request[i];
    const std::string path = "/" + std::to_string(i);
    if (!item.is_object()) return path + ": expected an object";
    PushItem out;
    out.partition = kDefaultPartition;
    for (auto error : {check_name(item, "queue", path, true, out.queue),
                       check_name(item, "partition", path, false, out.partition),
                       check_name(item, "transactionId", path, false, out.transaction_id)}) {
      if (!error.empty()) return error;
    }
    const auto data = item.find("data");
    if (data == item.end()) return path + "/data: required";
    out.data = &*data;
    items.push_back(std::move(out));
  }
  return items;
}

}  // namespace qdt::impl
