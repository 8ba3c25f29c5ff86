#pragma once
// What qdt bench runs on and the child processes it measures: the CPU model
// and core count (from /proc and the C++ runtime), peak resident memory, CPU
// time (this process's, and a server's whole process tree), and
// `qdt ARGS` run as a child (this very binary), with its stdout and peak
// memory. Lives in the qdt executable, beside bench_command.cpp.
#include <optional>
#include <string>
#include <vector>

namespace qdt::sim {

// /proc/cpuinfo's first "model name", or "unknown".
std::string cpu_model();
// /proc/cpuinfo's "processor" entries (the runtime's count without /proc).
unsigned cpu_cores();

// /proc/loadavg's one-minute figure (-1 without /proc): other work on a
// shared machine moves every figure, --jobs most.
double load_average();

// This process's peak resident set, in KiB (getrusage).
long self_peak_kb();

// CPU seconds this process has used so far, every thread (user + system).
double self_cpu_s();

// CPU seconds used so far by process `root`, its live children and the
// children it reaped: a server's whole process tree, read from /proc
// (nullopt: no such process, or /proc does not tell). Live processes count
// to the nanosecond (schedstat), reaped ones to the clock tick.
std::optional<double> process_tree_cpu_s(int root);

struct ChildRun {
  int exit_code = -1;  // -1: killed by a signal
  std::string out;     // everything it wrote to stdout
  long peak_kb = 0;    // its peak resident set (wait4)
  double cpu_s = 0;    // user + system CPU time, its reaped children (--jobs workers) included
};

// Runs /proc/self/exe with `args` and waits for it; stderr is inherited.
ChildRun run_self(const std::vector<std::string>& args);

// "PROGRAM ARG ARG..." as a user would type it.
std::string join_command(const std::string& program, const std::vector<std::string>& args);

}  // namespace qdt::sim
