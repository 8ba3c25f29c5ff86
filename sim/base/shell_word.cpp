#include "sim/base/shell_word.h"

#include <algorithm>

namespace qdt::sim {
namespace {

// Characters no POSIX shell gives a meaning to inside a word.
bool plain(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
         c == '.' || c == '/' || c == ':' || c == ',' || c == '+' || c == '@' || c == '%' || c == '=';
}

}  // namespace

std::string shell_word(const std::string& word) {
  if (!word.empty() && std::all_of(word.begin(), word.end(), plain) && word.front() != '=') return word;
  std::string out = "'";
  for (char c : word) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

std::string command_below(const std::string& indent, const std::string& prose, const std::string& command) {
  return indent + prose + ":\n" + indent + "  " + command + "\n";
}

}  // namespace qdt::sim
