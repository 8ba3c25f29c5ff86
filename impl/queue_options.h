#pragma once
// Queue options (docs/semantics.md §2.2) and their validation from the JSON a client sends.
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>

namespace qdt::impl {

inline constexpr int64_t kDefaultWindowSeconds = 3600;
inline constexpr int64_t kSidecarFloorSeconds = 900;
// Bound every option by what the SQL interface's int4 columns hold (about 68
// years), so both engines take the same values and give the same verdicts;
// seconds * 1000 stays far from int64 overflow.
inline constexpr int64_t kMaxOptionSeconds = 2'147'483'647;

struct QueueOptions {
  int64_t dedup_window_seconds = kDefaultWindowSeconds;
  int64_t retention_seconds = 0;
  int64_t completed_retention_seconds = 0;
  auto operator<=>(const QueueOptions&) const = default;
};

// Every option apply_options reads: any other name is refused.
inline constexpr const char* kQueueOptionNames[] = {"dedupWindowSeconds", "retentionSeconds", "completedRetentionSeconds"};

// Applies the options present in `json` over `options`. On a bad input returns
// "PATH: reason" (PATH is `path` + "/name") and leaves `options` unchanged.
std::optional<std::string> apply_options(const nlohmann::json& json, const std::string& path, QueueOptions& options);

// max(window, completedRetentionSeconds, 900): how deep the sidecar stays (docs/semantics.md §2.8).
int64_t sidecar_floor_seconds(const QueueOptions& options);

}  // namespace qdt::impl
