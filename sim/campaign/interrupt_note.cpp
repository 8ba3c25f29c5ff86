#include "sim/campaign/interrupt_note.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "sim/base/shell_word.h"
#include "sim/world/pg_sql_choice.h"

namespace qdt::sim {
namespace {

// What the handler reads: plain data, set before it is installed.
char g_note[8192];
size_t g_note_bytes = 0;
pid_t g_owner = 0;
struct sigaction g_previous;

void on_interrupt(int signal_number) {
  const int saved_errno = errno;
  if (getpid() == g_owner) {
    for (size_t off = 0; off < g_note_bytes;) {
      const ssize_t n = write(STDERR_FILENO, g_note + off, g_note_bytes - off);
      if (n <= 0) break;
      off += static_cast<size_t>(n);
    }
  }
  sigaction(signal_number, &g_previous, nullptr);
  errno = saved_errno;
  raise(signal_number);
}

}  // namespace

std::string resume_command(const CampaignOptions& options) {
  return "qdt check --resume " + shell_word(options.out_dir) + storage_flags(options.engine);
}

void print_resume_on_interrupt(const CampaignOptions& options) {
  if (!options.journal) return;
  const std::string note = std::string("\ninterrupted: the seeds that finished are journaled; to run the rest") +
                           (options.pg_url.empty() ? "" : " (with --pg-url naming the server again)") + ":\n  " +
                           resume_command(options) + "\n";
  if (note.size() >= sizeof g_note) return;  // a path too long to hold: the journal is there all the same
  sigaction(SIGINT, nullptr, &g_previous);
  if (g_previous.sa_handler == SIG_IGN) return;
  std::memcpy(g_note, note.data(), note.size());
  g_note_bytes = note.size();
  g_owner = getpid();
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND;
  sigaction(SIGINT, &action, nullptr);
}

}  // namespace qdt::sim
