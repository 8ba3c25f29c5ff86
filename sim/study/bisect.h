#pragma once
// A bisection over one integer scenario parameter (docs/semantics.md §7: "the smallest
// skew, TTL or timing at which it bites"): the smallest x in [lo, hi] at
// which a predicate holds, for a predicate that is false below some
// threshold and true from it on. Each evaluation is a whole scenario run, so
// the result counts them; nothing here knows about scenarios.
//
// The bisection trusts monotonicity only between the two ends it checked
// first (pred(lo) false, pred(hi) true); it cannot prove it. What it returns
// is therefore a boundary, and check_threshold says whether that boundary is
// a true step (false just below, true at it) — the claim a report makes.
#include <cstdint>
#include <functional>
#include <string>

namespace qdt::sim {

using IntPredicate = std::function<bool(int64_t)>;

struct BisectResult {
  bool found = false;
  int64_t threshold = 0;  // when found: pred(threshold) held, pred(threshold - 1) did not
  int evaluations = 0;    // calls of the predicate, the two end checks included
  std::string reason;     // when not found: which end check failed, e.g. "not found within [0,100]: false at 100"
};

// Requires lo < hi. Checks pred(hi) true and pred(lo) false, then halves
// [lo, hi] keeping pred(low) false and pred(high) true; at most 2 + 64
// evaluations for any int64 range.
BisectResult bisect_smallest(int64_t lo, int64_t hi, const IntPredicate& pred);

struct ThresholdCheck {
  bool holds = false;   // pred(x - 1) false and pred(x) true
  int evaluations = 0;  // always 2
  std::string detail;   // what was seen, e.g. "false at 9, true at 10"
};

// Re-evaluates both sides of the boundary x (a predicate that is not a pure
// function of x, or a result handed over from elsewhere, is caught here).
ThresholdCheck check_threshold(int64_t x, const IntPredicate& pred);

}  // namespace qdt::sim
