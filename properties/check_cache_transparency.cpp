// cache-transparency (docs/semantics.md §5, 2.11): every flush that sent p_verified >= 0 was
// re-probed read-only with -1 at the same instant (checked mode); the
// watermarked answer must equal it, and no frame's smallest in-window original
// may lie at or below the watermark.
#include <memory>
#include <string>
#include <variant>

#include "properties/checks.h"
#include "properties/event_pass.h"
#include "properties/failure_sink.h"
#include "properties/step_index.h"

namespace qdt::properties {

namespace {
std::string pairs_text(const std::vector<std::pair<uint32_t, int64_t>>& pairs) {
  std::string out = "[";
  for (const auto& [frame, offset] : pairs) {
    if (out.size() > 1) out += ",";
    out += std::to_string(frame) + "->" + std::to_string(offset);
  }
  return out + "]";
}

class CacheTransparency final : public PassChecker {
 public:
  explicit CacheTransparency(const HistoryIndex& index)
      : PassChecker("cache-transparency", {}), steps_(index.steps()) {}

  void before(size_t e, const history::Event& event, const PassState& /*state*/) override {
    const auto* push = std::get_if<history::PushEvent>(&event);
    if (push == nullptr || push->failed || !push->checked) return;
    // The texts are built only for a failure: most pushes have none.
    auto label = [&] { return partition_label(push->queue, push->partition); };
    auto at = [&] { return "event " + std::to_string(e) + " (p_verified " + std::to_string(push->p_verified) + "): "; };
    const bool agree = push->queued ? push->checked_duplicates.empty() : push->duplicates == push->checked_duplicates;
    if (!agree) {
      sink_.add(steps_.step_of(*push, 0), label(),
                at() + "with the watermark storage answered " +
                    (push->queued ? "queued at base " + std::to_string(push->base_offset)
                                  : "duplicate " + pairs_text(push->duplicates)) +
                    ", without it duplicate " + pairs_text(push->checked_duplicates));
    }
    if (push->checked_frames_at_or_below_watermark > 0) {
      sink_.add(steps_.step_of(*push, 0), label(),
                at() + std::to_string(push->checked_frames_at_or_below_watermark) +
                    " frame(s) have an in-window original at or below the watermark");
    }
  }

 private:
  const StepIndex& steps_;
};

}  // namespace

std::unique_ptr<PassChecker> make_cache_transparency(const HistoryIndex& index) {
  return std::make_unique<CacheTransparency>(index);
}

std::vector<Failure> check_cache_transparency(const history::History& history) {
  return check_alone(make_cache_transparency, history);
}

}  // namespace qdt::properties
