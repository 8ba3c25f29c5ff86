#include "sim/schedule/schedule_races.h"

#include <algorithm>
#include <cassert>

namespace qdt::sim {
namespace {

using Step = ChoicePolicy::Step;

// Happens-before as one bit row per step: row j holds the steps before j.
class HappensBefore {
 public:
  explicit HappensBefore(size_t n) : words_((n + 63) / 64), bits_(n * words_, 0) {}
  uint64_t* row(size_t j) { return bits_.data() + j * words_; }
  const uint64_t* row(size_t j) const { return bits_.data() + j * words_; }
  size_t words() const { return words_; }
  static bool test(const uint64_t* row, size_t k) { return (row[k / 64] >> (k % 64)) & 1; }
  static void set(uint64_t* row, size_t k) { row[k / 64] |= uint64_t{1} << (k % 64); }

 private:
  size_t words_;
  std::vector<uint64_t> bits_;
};

bool dependent(const Step& a, const Step& b) { return !a.footprint.independent_of(b.footprint); }

// The initials of v = (the steps after `e` that do not happen after it), then `later`.
std::vector<uint64_t> initials(const std::vector<Step>& steps, const HappensBefore& hb, size_t e, size_t later) {
  std::vector<uint64_t> in_v(hb.words(), 0);
  std::vector<uint64_t> seen, out;
  for (size_t m = e + 1; m <= later; ++m) {
    const uint64_t* row = hb.row(m);
    if (m < later && HappensBefore::test(row, e)) continue;
    const uint64_t fiber = steps[m].fiber;
    assert(fiber != SchedulePolicy::kLoop);  // a loop step happens after every earlier step
    if (std::find(seen.begin(), seen.end(), fiber) == seen.end()) {
      seen.push_back(fiber);
      bool first = true;  // no step of v happens before it
      for (size_t w = 0; w < hb.words() && first; ++w) first = (row[w] & in_v[w]) == 0;
      if (first) out.push_back(fiber);
    }
    HappensBefore::set(in_v.data(), m);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::vector<Reversal> find_reversals(const std::vector<Step>& steps, size_t from) {
  const size_t n = steps.size();
  HappensBefore hb(n);
  std::vector<Reversal> out;
  std::vector<size_t> last_of_fiber;  // by ordinal; SIZE_MAX: none yet
  size_t barrier = SIZE_MAX;          // the last loop step
  std::vector<size_t> preds;
  std::vector<uint64_t> before_preds(hb.words());
  for (size_t j = 0; j < n; ++j) {
    const Step& s = steps[j];
    uint64_t* row = hb.row(j);
    if (s.fiber == SchedulePolicy::kLoop) {
      for (size_t k = 0; k < j; ++k) HappensBefore::set(row, k);
      barrier = j;
      continue;
    }
    if (last_of_fiber.size() <= s.fiber) last_of_fiber.resize(s.fiber + 1, SIZE_MAX);
    preds.clear();
    if (last_of_fiber[s.fiber] != SIZE_MAX) preds.push_back(last_of_fiber[s.fiber]);
    if (s.readied_in < j) preds.push_back(s.readied_in);
    // Steps before the last barrier happen before it; only those after it
    // can be direct predecessors besides it.
    size_t k = 0;
    if (barrier != SIZE_MAX) {
      preds.push_back(barrier);
      k = barrier + 1;
    }
    for (; k < j; ++k) {
      if (steps[k].fiber != s.fiber && dependent(steps[k], s)) preds.push_back(k);
    }
    std::fill(before_preds.begin(), before_preds.end(), 0);
    for (size_t d : preds) {
      const uint64_t* pr = hb.row(d);
      for (size_t w = 0; w < hb.words(); ++w) before_preds[w] |= pr[w];
    }
    std::copy(before_preds.begin(), before_preds.end(), row);
    for (size_t d : preds) HappensBefore::set(row, d);
    last_of_fiber[s.fiber] = j;
    if (j < from) continue;
    for (size_t d : preds) {
      const Step& e = steps[d];
      if (e.fiber == SchedulePolicy::kLoop || e.fiber == s.fiber || d == s.readied_in) continue;
      if (!dependent(e, s) || HappensBefore::test(before_preds.data(), d)) continue;  // not a race
      // Every fiber ready at e's pick was a choice there; a lone ready fiber
      // has no rival whose step could go first (no initial exists then).
      if (e.point == SIZE_MAX) continue;
      out.push_back({e.point, initials(steps, hb, d, j)});
    }
  }
  return out;
}

}  // namespace qdt::sim
