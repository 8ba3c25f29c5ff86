#include "sim/scenario/replay_line.h"

#include <cassert>

#include "sim/base/shell_word.h"
#include "sim/world/pg_sql_choice.h"

namespace qdt::sim {

std::string replay_command(const ReplayLine& line) {
  assert(line.cache.empty() || line.cache == "on" || line.cache == "off");
  std::string out = "qdt replay " + shell_word(line.file);
  if (line.variant != impl::Variant::none) out += " --variant " + impl::variant_name(line.variant);
  if (!line.cache.empty()) out += " --cache " + line.cache;
  out += storage_flags(line.engine);
  out += line.schedule_flags;
  return out;
}

}  // namespace qdt::sim
