#pragma once
// A campaign's progress on standard error, for the person watching it: on a
// terminal one line redrawn in place, elsewhere a plain line at each tenth of
// the campaign and after a quiet half minute. It reads the wall clock and the
// workers' counts and writes only to stderr: nothing it decides reaches a
// result, a trace or a digest. Called by the worker that speaks for all.
#include <cstddef>
#include <cstdint>
#include <string>

namespace qdt::sim {

class ProgressLine {
 public:
  // `total`: the seeds of the campaign (this shard); `journaled`: those an
  // earlier run finished (--resume), counted as done but not in the rate.
  ProgressLine(bool terminal, uint64_t total, uint64_t journaled);

  // After a seed: every worker's counts in this run, and wall seconds since it started.
  void update(uint64_t done, uint64_t failed, double now_s);

  // What update() would draw (without the terminal's control characters).
  std::string text(uint64_t done, uint64_t failed, double now_s) const;

  // On a terminal, clears the line being redrawn, so that what is printed
  // next (a failure, the summary) starts at the left margin.
  static void erase(bool terminal);

 private:
  struct Sample {
    double at_s;
    uint64_t done;
  };
  // The recent rate: the ETA follows the last half minute, not the run's average.
  static constexpr size_t kSamplesMax = 64;
  static constexpr double kSampleEveryS = 0.5;
  static constexpr double kWindowS = 30;
  static constexpr double kRedrawEveryS = 0.1;
  static constexpr double kPlainEveryS = 30;
  double recent_rate(uint64_t done, double now_s) const;
  void remember(uint64_t done, double now_s);

  bool terminal_;
  uint64_t total_;
  uint64_t journaled_;
  Sample samples_[kSamplesMax] = {};
  size_t first_ = 0, count_ = 0;  // a ring: the oldest kept sample, and how many
  double drawn_at_s_ = -1;   // on a terminal: the last redraw (never yet: negative)
  double printed_at_s_ = 0;  // elsewhere: the last plain line, or the start
  uint64_t tenths_printed_ = 0;
};

// "under 1 s", "45 s", "3 min 20 s", "2 h 5 min": how long is left, for a person.
std::string duration_text(double seconds);

}  // namespace qdt::sim
