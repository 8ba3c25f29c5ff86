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
#include "properties/model_answers.h"
#include "properties/step_index.h"

namespace qdt::properties {

namespace {

class CacheTransparency final : public PassChecker {
 public:
  explicit CacheTransparency(const HistoryIndex& index)
      : PassChecker("cache-transparency", {}), h_(index.history()), steps_(index.steps()) {}

  void before(size_t e, const history::Event& event, const PassState& /*state*/) override {
    const auto* push = std::get_if<history::PushEvent>(&event);
    if (push == nullptr || push->failed || !push->checked) return;
    // The texts are built only for a failure: most pushes have none.
    auto label = [&] { return partition_label(push->queue, push->partition); };
    const std::string& step = steps_.step_of(*push, 0);
    auto at = [&] { return event_label(h_, steps_, e, step) + ": "; };
    auto watermark = [&] {
      return "the broker's watermark p_verified " + std::to_string(push->p_verified) +
             " (offsets up to it were checked before, so the probe skips them)";
    };
    const bool agree = push->queued ? push->checked_duplicates.empty() : push->duplicates == push->checked_duplicates;
    if (!agree) {
      const std::string got = describe_push_answer(push->queued, push->base_offset, push->duplicates);
      const std::string want = push->checked_duplicates.empty()
                                   ? std::string("no duplicate")
                                   : describe_push_answer(false, -1, push->checked_duplicates);
      sink_.add(Rule::cache_transparency_watermark_changed_answer,
                {.step = step,
                 .partition = label(),
                 .event = e,
                 .expected = want,
                 .actual = got,
                 .detail = at() + "with " + watermark() + " storage answered " + got +
                           ", but the same probe without the watermark answers " + want +
                           "; the watermark may save work, never change an answer"});
    }
    if (push->checked_frames_at_or_below_watermark > 0) {
      sink_.add(Rule::cache_transparency_watermark_hid_duplicate,
                {.step = step,
                 .partition = label(),
                 .event = e,
                 .expected = "no original at or below p_verified " + std::to_string(push->p_verified),
                 .actual = std::to_string(push->checked_frames_at_or_below_watermark) + " originals there",
                 .detail = at() + std::to_string(push->checked_frames_at_or_below_watermark) +
                           " frames have their original inside the window at or below the broker's watermark "
                           "p_verified " + std::to_string(push->p_verified) +
                           ", which the probe skips: the watermark hid a duplicate"});
    }
  }

 private:
  const history::History& h_;
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
