#pragma once
// Keeping a run's server processes on the CPU of the thread that drives them.
// A run is a chain: the client sends, one backend works, the client reads.
// Across two CPUs every link wakes an idle CPU, which on a virtual machine
// costs more than a short statement itself; on one CPU it is a task switch.
// Placement only moves work in real time: no statement, order or trace
// depends on it. Only for a server qdt started itself: a user's server
// (--pg-url) is never touched.
#include <cstdint>
#include <optional>

namespace qdt::impl::postgres {

// The CPU for the worker in place `slot` of a pool (the slot-th CPU this
// process may run on, round the list), or without a slot the CPU the calling
// thread is on. nullopt when the process may run on one CPU only (nothing
// to choose) or the set cannot be read.
std::optional<int> cpu_for_slot(std::optional<size_t> slot);

// Restricts the calling thread, or the process `pid` (a backend), to `cpu`.
// Best effort: false when the kernel refused (the process is gone, or not
// ours to place), and the work runs where the kernel puts it.
bool place_calling_thread(int cpu);
bool place_process(int pid, int cpu);

}  // namespace qdt::impl::postgres
