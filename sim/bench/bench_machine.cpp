#include "sim/bench/bench_machine.h"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "sim/base/shell_word.h"

namespace qdt::sim {

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const size_t colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  }
  return "unknown";
}

unsigned cpu_cores() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  unsigned processors = 0;
  while (std::getline(in, line)) processors += line.rfind("processor", 0) == 0 ? 1 : 0;
  return processors > 0 ? processors : std::thread::hardware_concurrency();
}

double load_average() {
  std::ifstream in("/proc/loadavg");
  double one_minute = -1;
  if (!(in >> one_minute)) return -1;
  return one_minute;
}

long self_peak_kb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

double self_cpu_s() {
  timespec t{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) / 1e9;
}

namespace {

// The fields of /proc/PID/stat after the command name, which may itself hold
// spaces and parentheses: field 3 (state) is fields[0].
std::optional<std::vector<std::string>> stat_fields(const std::string& pid) {
  std::ifstream in("/proc/" + pid + "/stat");
  std::string line;
  if (!std::getline(in, line)) return std::nullopt;
  const size_t close = line.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream rest(line.substr(close + 1));
  std::vector<std::string> fields;
  for (std::string f; rest >> f;) fields.push_back(f);
  if (fields.size() < 15) return std::nullopt;
  return fields;
}

// Nanoseconds on a CPU, the first figure of /proc/PID/schedstat.
std::optional<double> schedstat_s(const std::string& pid) {
  std::ifstream in("/proc/" + pid + "/schedstat");
  unsigned long long ns = 0;
  if (!(in >> ns)) return std::nullopt;
  return static_cast<double>(ns) / 1e9;
}

}  // namespace

std::optional<double> process_tree_cpu_s(int root) {
  const std::string root_name = std::to_string(root);
  const auto root_fields = stat_fields(root_name);
  const auto root_own = schedstat_s(root_name);
  const long ticks_per_s = ::sysconf(_SC_CLK_TCK);
  if (!root_fields || !root_own || ticks_per_s <= 0) return std::nullopt;
  // cutime and cstime (fields 16 and 17): the children it has reaped.
  const long long reaped_ticks = std::strtoll((*root_fields)[13].c_str(), nullptr, 10) +
                                 std::strtoll((*root_fields)[14].c_str(), nullptr, 10);
  double total = *root_own + static_cast<double>(reaped_ticks) / static_cast<double>(ticks_per_s);
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string pid = entry.path().filename().string();
    if (pid.empty() || pid.find_first_not_of("0123456789") != std::string::npos) continue;
    const auto fields = stat_fields(pid);
    if (!fields || (*fields)[1] != root_name) continue;  // field 4: the parent
    // A child gone between the two reads counts no more: its parent reaps it.
    if (const auto child = schedstat_s(pid)) total += *child;
  }
  return total;
}

ChildRun run_self(const std::vector<std::string>& args) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("bench: pipe failed");
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("bench: fork failed");
  if (pid == 0) {
    ::dup2(fds[1], STDOUT_FILENO);
    ::close(fds[0]);
    ::close(fds[1]);
    std::vector<char*> argv;
    std::string self = "qdt";
    argv.push_back(self.data());
    std::vector<std::string> copy = args;
    for (std::string& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv("/proc/self/exe", argv.data());
    ::_exit(127);
  }
  ::close(fds[1]);
  ChildRun run;
  char buffer[65536];
  ssize_t n;
  while ((n = ::read(fds[0], buffer, sizeof buffer)) > 0) run.out.append(buffer, static_cast<size_t>(n));
  ::close(fds[0]);
  int status = 0;
  rusage ru{};
  ::wait4(pid, &status, 0, &ru);
  run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  run.peak_kb = ru.ru_maxrss;
  // wait4 reports the child's usage with that of every child it reaped.
  run.cpu_s = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
              static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
  return run;
}

std::string join_command(const std::string& program, const std::vector<std::string>& args) {
  std::string s = shell_word(program);
  for (const std::string& a : args) s += " " + shell_word(a);
  return s;
}


}  // namespace qdt::sim
