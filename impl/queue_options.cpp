#include "impl/queue_options.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace qdt::impl {

std::optional<std::string> apply_options(const nlohmann::json& json, const std::string& path, QueueOptions& options) {
  if (!json.is_object()) return (path.empty() ? "/" : path) + ": expected an object of queue options";
  QueueOptions next = options;
  for (const auto& [name, value] : json.items()) {
    const std::string where = path + "/" + name;
    int64_t* field = nullptr;
    if (name == "dedupWindowSeconds") field = &next.dedup_window_seconds;
    else if (name == "retentionSeconds") field = &next.retention_seconds;
    else if (name == "completedRetentionSeconds") field = &next.completed_retention_seconds;
    else
      return where + ": unknown option (expected dedupWindowSeconds, retentionSeconds or completedRetentionSeconds)";
    if (!value.is_number_integer()) return where + ": expected an integer";
    // Above 2^63-1 the signed read wraps negative: too large, not "< 0".
    if (value.is_number_unsigned() && value.get<uint64_t>() > static_cast<uint64_t>(kMaxOptionSeconds)) {
      return where + ": must be <= " + std::to_string(kMaxOptionSeconds);
    }
    const int64_t v = value.get<int64_t>();
    if (v < 0) return where + ": must be >= 0, got " + std::to_string(v);
    if (v > kMaxOptionSeconds) return where + ": must be <= " + std::to_string(kMaxOptionSeconds);
    *field = v;
  }
  options = next;
  return std::nullopt;
}

int64_t sidecar_floor_seconds(const QueueOptions& options) {
  return std::max({options.dedup_window_seconds, options.completed_retention_seconds, kSidecarFloorSeconds});
}

}  // namespace qdt::impl
