#include "sim/study/bisect.h"

#include <cassert>
#include <limits>

namespace qdt::sim {

namespace {

std::string range_text(int64_t lo, int64_t hi) {
  return "[" + std::to_string(lo) + "," + std::to_string(hi) + "]";
}

}  // namespace

BisectResult bisect_smallest(int64_t lo, int64_t hi, const IntPredicate& pred) {
  assert(lo < hi);
  BisectResult out;
  // The upper end first: a predicate that never holds is the common "absent" case.
  ++out.evaluations;
  if (!pred(hi)) {
    out.reason = "not found within " + range_text(lo, hi) + ": false at " + std::to_string(hi);
    return out;
  }
  ++out.evaluations;
  if (pred(lo)) {
    out.reason = "not found within " + range_text(lo, hi) + ": already true at " + std::to_string(lo);
    return out;
  }
  // Invariant: pred(low) false, pred(high) true, low < high.
  int64_t low = lo;
  int64_t high = hi;
  // The gap in unsigned arithmetic, so the whole int64 range cannot overflow.
  const auto gap = [&] { return static_cast<uint64_t>(high) - static_cast<uint64_t>(low); };
  for (int round = 0; gap() > 1; ++round) {
    assert(round < 64);  // each round halves a gap below 2^64
    const int64_t mid = static_cast<int64_t>(static_cast<uint64_t>(low) + gap() / 2);
    ++out.evaluations;
    if (pred(mid)) {
      high = mid;
    } else {
      low = mid;
    }
  }
  assert(gap() == 1);
  out.found = true;
  out.threshold = high;
  return out;
}

ThresholdCheck check_threshold(int64_t x, const IntPredicate& pred) {
  assert(x > std::numeric_limits<int64_t>::min());
  ThresholdCheck out;
  const bool below = pred(x - 1);
  const bool at = pred(x);
  out.evaluations = 2;
  out.holds = !below && at;
  out.detail = std::string(below ? "true" : "false") + " at " + std::to_string(x - 1) + ", " +
               (at ? "true" : "false") + " at " + std::to_string(x);
  return out;
}

}  // namespace qdt::sim
