#include "sim/base/fork_pool.h"

#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <iostream>
#include <string>


namespace qdt::sim {

// A worker that could not hand its result back (the parent reads it as lost).
constexpr int kChildWriteFailedStatus = 2;

namespace {
std::optional<size_t> g_slot;
}

std::optional<size_t> forked_slot() { return g_slot; }

std::optional<std::vector<nlohmann::json>> run_forked(size_t count, size_t jobs,
                                                      const std::function<nlohmann::json(size_t task)>& task,
                                                      size_t* failed_task) {
  assert(jobs >= 1);
  struct Worker {
    pid_t pid;
    int fd;
    size_t task;
    size_t slot;
    std::string text;
  };
  std::vector<std::optional<nlohmann::json>> results(count);
  std::vector<Worker> running;
  std::vector<bool> slot_taken(jobs, false);
  size_t next = 0;
  bool ok = true;
  auto fail = [&](size_t index) {
    if (ok && failed_task != nullptr) *failed_task = index;
    ok = false;
  };
  const pid_t parent = getpid();
  std::cout.flush();  // a child must not print the parent's buffered output again
  std::cerr.flush();
  while (next < count || !running.empty()) {
    while (ok && next < count && running.size() < jobs) {
      int fds[2];
      if (pipe(fds) != 0) {
        fail(count);
        break;
      }
      const size_t slot = static_cast<size_t>(std::find(slot_taken.begin(), slot_taken.end(), false) - slot_taken.begin());
      assert(slot < jobs);
      const pid_t pid = fork();
      if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        fail(count);
        break;
      }
      if (pid == 0) {
        // A worker ends with qdt: killing qdt leaves no campaign running.
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent) _exit(kChildWriteFailedStatus);  // the parent died before prctl
        g_slot = slot;
        close(fds[0]);
        for (const Worker& w : running) close(w.fd);
        const std::string text = task(next).dump();
        for (size_t off = 0; off < text.size();) {
          const ssize_t n = write(fds[1], text.data() + off, text.size() - off);
          if (n <= 0) _exit(kChildWriteFailedStatus);
          off += static_cast<size_t>(n);
        }
        std::cout.flush();
        _exit(0);
      }
      close(fds[1]);
      slot_taken[slot] = true;
      running.push_back({pid, fds[0], next, slot, {}});
      ++next;
    }
    if (!ok) next = count;  // start nothing more; collect the running ones
    if (running.empty()) break;
    std::vector<pollfd> polled;
    for (const Worker& w : running) polled.push_back({w.fd, POLLIN, 0});
    if (poll(polled.data(), polled.size(), -1) < 0) continue;  // EINTR: poll again
    for (size_t i = running.size(); i-- > 0;) {
      if (polled[i].revents == 0) continue;
      Worker& w = running[i];
      char buf[65536];
      const ssize_t n = read(w.fd, buf, sizeof buf);
      if (n > 0) {
        w.text.append(buf, static_cast<size_t>(n));
        continue;
      }
      close(w.fd);
      int status = 0;
      waitpid(w.pid, &status, 0);
      nlohmann::json doc = nlohmann::json::parse(w.text, nullptr, false);
      if (doc.is_discarded() || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fail(w.task);
      } else {
        results[w.task] = std::move(doc);
      }
      slot_taken[w.slot] = false;
      running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
    }
  }
  if (!ok) return std::nullopt;
  std::vector<nlohmann::json> out;
  out.reserve(count);
  for (auto& r : results) {
    assert(r.has_value());
    out.push_back(std::move(*r));
  }
  return out;
}

}  // namespace qdt::sim
