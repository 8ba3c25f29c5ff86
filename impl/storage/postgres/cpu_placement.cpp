#include "impl/storage/postgres/cpu_placement.h"

#include <sched.h>

#include <algorithm>
#include <cassert>
#include <vector>

namespace qdt::impl::postgres {
namespace {

bool place(pid_t pid, int cpu) {
  assert(cpu >= 0 && cpu < CPU_SETSIZE);
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return sched_setaffinity(pid, sizeof set, &set) == 0;
}

// The CPUs the process may run on, read once before anything was placed: a
// forked worker inherits its parent's placement, and must still choose among
// all of them.
const std::vector<int>& allowed_cpus() {
  static const std::vector<int> allowed = [] {
    std::vector<int> out;
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) != 0) return out;
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
      if (CPU_ISSET(cpu, &set)) out.push_back(cpu);
    }
    return out;
  }();
  return allowed;
}

}  // namespace

std::optional<int> cpu_for_slot(std::optional<size_t> slot) {
  const std::vector<int>& allowed = allowed_cpus();
  if (allowed.size() < 2) return std::nullopt;
  if (slot) return allowed[*slot % allowed.size()];
  const int current = sched_getcpu();
  const bool known = std::find(allowed.begin(), allowed.end(), current) != allowed.end();
  return known ? std::optional<int>(current) : std::nullopt;
}

bool place_calling_thread(int cpu) { return place(0, cpu); }

bool place_process(int pid, int cpu) {
  assert(pid > 0);
  return place(pid, cpu);
}

}  // namespace qdt::impl::postgres
