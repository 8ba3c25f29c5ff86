#include "sim/campaign/interrupt_note.h"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <new>

#include "sim/base/shell_word.h"
#include "sim/world/pg_sql_choice.h"

namespace qdt::sim {
namespace {

static_assert(std::atomic<int>::is_always_lock_free, "the handler stores to it");

// Shared with the workers forked after it is mapped; never unmapped, since
// a worker may read it until it exits.
std::atomic<int>* g_stop = nullptr;
volatile sig_atomic_t g_asked = 0;
pid_t g_owner = 0;
bool g_installed = false;
struct sigaction g_previous;

constexpr char kStopping[] = "\ninterrupted: stopping once the running seeds finish (Ctrl-C again ends at once)\n";

void on_interrupt(int signal_number) {
  const int saved_errno = errno;
  // Counted per process: a terminal's Ctrl-C reaches qdt and its workers at
  // once, and a worker's store must not make qdt's own first SIGINT its second.
  if (g_asked == 0) {
    g_asked = 1;
    g_stop->store(1);
    if (getpid() == g_owner) {
      [[maybe_unused]] const ssize_t n = write(STDERR_FILENO, kStopping, sizeof kStopping - 1);
    }
    errno = saved_errno;
    return;
  }
  sigaction(signal_number, &g_previous, nullptr);
  errno = saved_errno;
  raise(signal_number);
}

}  // namespace

std::string resume_command(const CampaignOptions& options) {
  return "qdt check --resume " + shell_word(options.out_dir) + storage_flags(options.engine);
}

void stop_on_interrupt() {
  if (g_stop == nullptr) {
    void* page = mmap(nullptr, sizeof(std::atomic<int>), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED) return;  // then Ctrl-C ends qdt as it would any program
    g_stop = new (page) std::atomic<int>(0);
  }
  g_stop->store(0);
  g_asked = 0;
  struct sigaction current {};
  sigaction(SIGINT, nullptr, &current);
  if (current.sa_handler == SIG_IGN) return;
  g_previous = current;
  g_owner = getpid();
  struct sigaction action {};
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  // System calls go on after the first SIGINT: the seed running finishes.
  action.sa_flags = SA_RESTART;
  sigaction(SIGINT, &action, nullptr);
  g_installed = true;
}

void end_stop_on_interrupt() {
  if (!g_installed) return;
  sigaction(SIGINT, &g_previous, nullptr);
  g_installed = false;
}

bool stop_requested() { return g_stop != nullptr && g_stop->load() != 0; }

std::string interrupted_note(const CampaignOptions& options, std::optional<uint64_t> ran) {
  const std::string after =
      ran ? "interrupted after " + std::to_string(*ran) + (*ran == 1 ? " seed" : " seeds") : "interrupted";
  if (!options.journal) return after + "; nothing was journaled (a campaign run with --out DIR resumes)\n";
  return after + (ran ? ", all journaled" : "; the seeds that finished are journaled") + "; to run the rest" +
         (options.pg_url.empty() ? "" : " (with --pg-url naming the server again)") + ":\n  " +
         resume_command(options) + "\n";
}

}  // namespace qdt::sim
