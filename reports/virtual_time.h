#pragma once
// Virtual time as a person reads it: the world's clock counts milliseconds,
// a page shows "16.064 s" or "2 min 03.5 s", and a chart's axis the unit
// that keeps its numbers short.
#include <cstdint>
#include <string>

namespace qdt::reports {

// "64 ms", "16.064 s", "2 min 03.5 s", "1 h 00 min 16 s": exact to the
// millisecond (edges of a window are a millisecond apart), trailing zeros
// of the fraction dropped. Negative times (before the run) get a minus sign.
std::string virtual_time_text(int64_t ms);

// The unit an axis spanning `duration_ms` is drawn in: ms up to 10 s, s up
// to 10 min, min up to 10 h, then h.
struct TimeScale {
  double ms_per_unit = 1;
  std::string unit = "ms";
};
TimeScale time_scale_for(double duration_ms);

}  // namespace qdt::reports
