#pragma once
// A rate for a person to read ("seeds/s"): whole numbers from 10 up, and
// enough digits below that a slow engine's 0.4 seeds/s never reads as 0.
#include <string>

namespace qdt::sim {

// 1234.6 → "1235", 12.34 → "12", 6.57 → "6.6", 0.4123 → "0.41", 0.0031 → "0.0031".
std::string rate_text(double per_second);

}  // namespace qdt::sim
