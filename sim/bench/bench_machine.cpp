#include "sim/bench/bench_machine.h"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
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
