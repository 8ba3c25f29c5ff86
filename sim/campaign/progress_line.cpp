#include "sim/campaign/progress_line.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <iostream>

#include "sim/base/rate_text.h"

namespace qdt::sim {

std::string duration_text(double seconds) {
  const auto s = static_cast<int64_t>(std::llround(std::max(0.0, seconds)));
  if (s < 1) return "under 1 s";
  if (s < 90) return std::to_string(s) + " s";
  if (s < 90 * 60) return std::to_string(s / 60) + " min " + std::to_string(s % 60) + " s";
  return std::to_string(s / 3600) + " h " + std::to_string(s % 3600 / 60) + " min";
}

ProgressLine::ProgressLine(bool terminal, uint64_t total, uint64_t journaled)
    : terminal_(terminal), total_(total), journaled_(std::min(journaled, total)) {
  remember(0, 0);
}

void ProgressLine::remember(uint64_t done, double now_s) {
  if (count_ > 0 && now_s - samples_[(first_ + count_ - 1) % kSamplesMax].at_s < kSampleEveryS) return;
  // Samples older than the window go, but one always stays to measure from.
  while (count_ > 1 && now_s - samples_[(first_ + 1) % kSamplesMax].at_s >= kWindowS) {
    first_ = (first_ + 1) % kSamplesMax;
    --count_;
  }
  if (count_ == kSamplesMax) {
    first_ = (first_ + 1) % kSamplesMax;
    --count_;
  }
  samples_[(first_ + count_) % kSamplesMax] = {now_s, done};
  ++count_;
  assert(count_ >= 1 && count_ <= kSamplesMax);
}

double ProgressLine::recent_rate(uint64_t done, double now_s) const {
  assert(count_ >= 1);
  const Sample& oldest = samples_[first_];
  // Under a second of history says little: the run's average until then.
  if (now_s - oldest.at_s < 1.0) return done / std::max(now_s, 1e-9);
  return static_cast<double>(done - std::min(done, oldest.done)) / (now_s - oldest.at_s);
}

std::string ProgressLine::text(uint64_t done, uint64_t failed, double now_s) const {
  const uint64_t shown = std::min(total_, journaled_ + done);
  const double rate = recent_rate(done, now_s);
  std::string out = "[" + std::to_string(shown) + "/" + std::to_string(total_) + "] failures " +
                    std::to_string(failed) + ", " + rate_text(rate) + " seeds/s";
  if (shown < total_) {
    const double left_s = rate > 0 ? static_cast<double>(total_ - shown) / rate : 0;
    if (rate > 0) out += std::string(left_s < 0.5 ? ", " : ", ~") + duration_text(left_s) + " left";
  }
  return out;
}

void ProgressLine::update(uint64_t done, uint64_t failed, double now_s) {
  remember(done, now_s);
  const uint64_t shown = std::min(total_, journaled_ + done);
  const bool last = shown >= total_;
  if (terminal_) {
    if (!last && drawn_at_s_ >= 0 && now_s - drawn_at_s_ < kRedrawEveryS) return;
    drawn_at_s_ = now_s;
    // One write, so a worker's failure lines never land inside it.
    std::cerr << ("\r\033[K" + text(done, failed, now_s)) << std::flush;
    return;
  }
  const uint64_t tenths = total_ == 0 ? 10 : shown * 10 / total_;
  if (tenths <= tenths_printed_ && now_s - printed_at_s_ < kPlainEveryS) return;
  tenths_printed_ = std::max(tenths_printed_, tenths);
  printed_at_s_ = now_s;
  std::cerr << (text(done, failed, now_s) + "\n") << std::flush;
}

void ProgressLine::erase(bool terminal) {
  if (terminal) std::cerr << "\r\033[K" << std::flush;
}

}  // namespace qdt::sim
