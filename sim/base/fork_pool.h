#pragma once
// Runs tasks in forked worker processes (campaign shares, sweep shares, one
// variant each for qdt mutants): at most `jobs` at a time, each task's JSON
// result sent back through a pipe that the parent drains as it fills (poll),
// so no worker blocks on a full pipe. Results come back in task order, so the
// order in which workers finish never shows.
#include <cstddef>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

namespace qdt::sim {

// nullopt when a pipe or fork failed or a task's process did not exit 0 with
// valid JSON; then *failed_task (when given) is that task's index, or `count`
// when no task is to blame (a pipe or fork failed).
std::optional<std::vector<nlohmann::json>> run_forked(size_t count, size_t jobs,
                                                      const std::function<nlohmann::json(size_t task)>& task,
                                                      size_t* failed_task = nullptr);

// In a worker of run_forked: which of the `jobs` places it holds (0..jobs-1;
// a place is free again once its worker exited), so that workers running at
// the same time can be put on different CPUs. nullopt outside a worker.
std::optional<size_t> forked_slot();

}  // namespace qdt::sim
