#include "sim/base/nearest_name.h"

#include <algorithm>
#include <cassert>
#include <cctype>

namespace qdt::sim {
namespace {

// Names are short (fields, options, commands); longer text is not a name
// and is not compared, so the table stays small.
constexpr size_t kMaxComparedBytes = 256;

char folded(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }

bool starts_with_folded(std::string_view text, std::string_view prefix) {
  if (prefix.size() > text.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    if (folded(text[i]) != folded(prefix[i])) return false;
  }
  return true;
}

}  // namespace

size_t edit_distance(std::string_view a, std::string_view b) {
  // Optimal string alignment: Levenshtein plus a swap of neighbours, which
  // is the commonest typo ("repaly") and would otherwise cost two.
  const size_t n = a.size(), m = b.size();
  std::vector<std::vector<size_t>> d(n + 1, std::vector<size_t>(m + 1, 0));
  for (size_t i = 0; i <= n; ++i) d[i][0] = i;
  for (size_t j = 0; j <= m; ++j) d[0][j] = j;
  for (size_t i = 1; i <= n; ++i) {
    for (size_t j = 1; j <= m; ++j) {
      const size_t cost = folded(a[i - 1]) == folded(b[j - 1]) ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && folded(a[i - 1]) == folded(b[j - 2]) && folded(a[i - 2]) == folded(b[j - 1])) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  assert(d[n][m] <= std::max(n, m));
  return d[n][m];
}

std::optional<std::string> nearest_name(std::string_view typed, const std::vector<std::string>& known) {
  if (typed.empty() || typed.size() > kMaxComparedBytes) return std::nullopt;
  if (std::find(known.begin(), known.end(), typed) != known.end()) return std::nullopt;
  const size_t limit = std::max<size_t>(1, typed.size() / 3);
  std::optional<std::string> best;
  size_t best_distance = limit + 1;
  for (const std::string& name : known) {
    if (name.size() > kMaxComparedBytes) continue;
    size_t distance = edit_distance(typed, name);
    // A name cut short is as good as the nearest typo.
    if (typed.size() >= 3 && starts_with_folded(name, typed)) distance = std::min(distance, limit);
    if (distance < best_distance) {
      best_distance = distance;
      best = name;
    }
  }
  assert(!best || best_distance <= limit);
  return best;
}

std::string did_you_mean(std::string_view typed, const std::vector<std::string>& known) {
  const std::optional<std::string> name = nearest_name(typed, known);
  return name ? "; did you mean \"" + *name + "\"?" : "";
}

}  // namespace qdt::sim
