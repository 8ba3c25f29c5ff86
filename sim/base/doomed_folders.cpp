#include "sim/base/doomed_folders.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cassert>
#include <cerrno>
#include <cstring>

namespace qdt::sim {
namespace {

// Plain data in fixed arrays: the handler may touch only what is
// async-signal-safe.
struct Slot {
  volatile sig_atomic_t active = 0;
  pid_t owner = 0;
  char path[512] = {};
};
constexpr int kSlots = 64;
Slot g_slots[kSlots];
struct sigaction g_previous[3];
constexpr int kSignals[3] = {SIGINT, SIGTERM, SIGABRT};
bool g_installed = false;

void remove_folder(const char* path) {
  const pid_t rm = fork();
  if (rm == 0) {
    const char* argv[] = {"rm", "-rf", "--", path, nullptr};
    execv("/bin/rm", const_cast<char* const*>(argv));
    _exit(127);
  }
  int status = 0;
  if (rm > 0) {
    while (waitpid(rm, &status, 0) < 0 && errno == EINTR) {
    }
  }
}

void on_signal(int signal_number) {
  const int saved_errno = errno;
  const pid_t self = getpid();
  for (Slot& s : g_slots) {
    if (!s.active || s.owner != self) continue;
    s.active = 0;
    remove_folder(s.path);
  }
  for (int i = 0; i < 3; ++i) {
    if (kSignals[i] == signal_number) sigaction(signal_number, &g_previous[i], nullptr);
  }
  errno = saved_errno;
  raise(signal_number);
}

void install() {
  if (g_installed) return;
  g_installed = true;
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  for (int i = 0; i < 3; ++i) sigaction(kSignals[i], &action, &g_previous[i]);
}

}  // namespace

DoomedFolder::DoomedFolder(const std::string& path) {
  assert(!path.empty() && path[0] == '/');
  if (path.size() >= sizeof(Slot::path)) return;
  install();
  for (int i = 0; i < kSlots; ++i) {
    Slot& s = g_slots[i];
    if (s.active) continue;
    std::memset(s.path, 0, sizeof s.path);
    std::memcpy(s.path, path.data(), path.size());
    s.owner = getpid();
    s.active = 1;
    slot_ = i;
    return;
  }
}

DoomedFolder::~DoomedFolder() {
  if (slot_ >= 0) g_slots[slot_].active = 0;
}

}  // namespace qdt::sim
