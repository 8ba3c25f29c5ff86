#pragma once
// qdt bench's figures of the cache users ship (docs/semantics.md §10):
//   volume  a volume seed's cost per item (world and every checker) beside
//           an ordinary seed's of the same profile, and the same volume seed
//           four times larger: the world and the checkers stay linear in
//           the items a seed carries (§10.4);
//   cache   with --cache-impl or --cache-lib: the cost of one call into the
//           module, and `default` campaigns' seeds/s on it beside qdt's own
//           cache, in alternated turns.
// Lives in the qdt executable, beside bench_command.cpp.
#include "sim/bench/bench_context.h"

namespace qdt::sim {

void volume_group(Bench& b);
// Nothing when no foreign cache was named.
void cache_group(Bench& b);

}  // namespace qdt::sim
