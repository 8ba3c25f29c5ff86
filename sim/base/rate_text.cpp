#include "sim/base/rate_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace qdt::sim {

std::string rate_text(double per_second) {
  if (!std::isfinite(per_second) || per_second <= 0) return "0";
  char text[64];
  if (per_second >= 10) {
    std::snprintf(text, sizeof text, "%.0f", per_second);
  } else {
    // Two significant digits.
    const int decimals = std::max(1, 1 - static_cast<int>(std::floor(std::log10(per_second))));
    std::snprintf(text, sizeof text, "%.*f", decimals, per_second);
  }
  return text;
}

}  // namespace qdt::sim
