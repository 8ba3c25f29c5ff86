#include "sim/base/file_name.h"

#include <cassert>

namespace qdt::sim {

std::string file_name_part(const std::string& text) {
  constexpr size_t kMaxBytes = 128;  // well inside NAME_MAX with ".json" and a suffix
  std::string out;
  for (char c : text.substr(0, kMaxBytes)) {
    const bool plain = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
                       c == '_' || (c == '.' && !out.empty());
    out += plain ? c : '_';
  }
  if (out.empty()) out = "_";
  assert(out.find('/') == std::string::npos && out.front() != '.');
  return out;
}

}  // namespace qdt::sim
