// The bisection on hand predicates: steps anywhere in the range, the range
// ends, absent and inverted predicates, a non-monotone one (the boundary
// found is real but not unique, and check_threshold says so), the whole
// int64 range, and the evaluation count.
#include "sim/study/bisect.h"

#include <gtest/gtest.h>

#include <limits>
#include <set>

namespace qdt::sim {
namespace {

IntPredicate step_at(int64_t t) {
  return [t](int64_t x) { return x >= t; };
}

TEST(Bisect, FindsEveryStepInsideTheRange) {
  for (int64_t t = 1; t <= 40; ++t) {
    const BisectResult r = bisect_smallest(0, 40, step_at(t));
    ASSERT_TRUE(r.found) << t << ": " << r.reason;
    EXPECT_EQ(r.threshold, t);
    EXPECT_TRUE(check_threshold(r.threshold, step_at(t)).holds);
    EXPECT_LE(r.evaluations, 2 + 6);  // ceil(log2(40)) halvings
  }
}

TEST(Bisect, CountsEvaluations) {
  int calls = 0;
  const BisectResult r = bisect_smallest(0, 1 << 20, [&](int64_t x) {
    ++calls;
    return x >= 777;
  });
  ASSERT_TRUE(r.found);
  EXPECT_EQ(r.threshold, 777);
  EXPECT_EQ(r.evaluations, calls);
  EXPECT_EQ(r.evaluations, 2 + 20);
}

TEST(Bisect, AbsentWhenFalseAtTheTop) {
  const BisectResult r = bisect_smallest(0, 100, [](int64_t) { return false; });
  EXPECT_FALSE(r.found);
  EXPECT_EQ(r.evaluations, 1);
  EXPECT_EQ(r.reason, "not found within [0,100]: false at 100");
}

TEST(Bisect, AbsentWhenAlreadyTrueAtTheBottom) {
  const BisectResult r = bisect_smallest(5, 100, step_at(5));
  EXPECT_FALSE(r.found);
  EXPECT_EQ(r.evaluations, 2);
  EXPECT_EQ(r.reason, "not found within [5,100]: already true at 5");
  // A step just above the bottom is found.
  EXPECT_EQ(bisect_smallest(5, 100, step_at(6)).threshold, 6);
}

TEST(Bisect, InvertedPredicateIsAbsent) {
  const BisectResult r = bisect_smallest(0, 100, [](int64_t x) { return x < 50; });
  EXPECT_FALSE(r.found);
  EXPECT_EQ(r.reason, "not found within [0,100]: false at 100");
}

TEST(Bisect, NonMonotoneFindsARealBoundaryNotTheSmallest) {
  // True on [10,20) and from 60 on: the smallest true x is 10, but bisection
  // from [0,100] probes 50 (false), 75, 62, 56, 59, 60... and lands on 60.
  const IntPredicate pred = [](int64_t x) { return (x >= 10 && x < 20) || x >= 60; };
  const BisectResult r = bisect_smallest(0, 100, pred);
  ASSERT_TRUE(r.found);
  EXPECT_EQ(r.threshold, 60);
  EXPECT_TRUE(check_threshold(60, pred).holds);  // a real step, just not the first
  EXPECT_TRUE(check_threshold(10, pred).holds);
  const ThresholdCheck off = check_threshold(15, pred);  // inside the island: true on both sides
  EXPECT_FALSE(off.holds);
  EXPECT_EQ(off.detail, "true at 14, true at 15");
}

TEST(Bisect, CheckThresholdNamesBothSides) {
  const ThresholdCheck c = check_threshold(10, step_at(10));
  EXPECT_TRUE(c.holds);
  EXPECT_EQ(c.evaluations, 2);
  EXPECT_EQ(c.detail, "false at 9, true at 10");
  const ThresholdCheck late = check_threshold(12, step_at(10));
  EXPECT_FALSE(late.holds);
  EXPECT_EQ(late.detail, "true at 11, true at 12");
  const ThresholdCheck early = check_threshold(8, step_at(10));
  EXPECT_FALSE(early.holds);
  EXPECT_EQ(early.detail, "false at 7, false at 8");
}

TEST(Bisect, AdjacentEndsAndTheWholeRange) {
  const BisectResult adjacent = bisect_smallest(3, 4, step_at(4));
  ASSERT_TRUE(adjacent.found);
  EXPECT_EQ(adjacent.threshold, 4);
  EXPECT_EQ(adjacent.evaluations, 2);
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  for (int64_t t : {kMin + 1, int64_t{-5}, int64_t{0}, int64_t{123456789}, kMax}) {
    const BisectResult r = bisect_smallest(kMin, kMax, step_at(t));
    ASSERT_TRUE(r.found) << t;
    EXPECT_EQ(r.threshold, t);
    EXPECT_LE(r.evaluations, 2 + 64);
  }
}

TEST(Bisect, EvaluatesOnlyInsideTheRange) {
  std::set<int64_t> seen;
  bisect_smallest(-7, 33, [&](int64_t x) {
    seen.insert(x);
    return x >= 20;
  });
  EXPECT_EQ(*seen.begin(), -7);
  EXPECT_EQ(*seen.rbegin(), 33);
}

}  // namespace
}  // namespace qdt::sim
