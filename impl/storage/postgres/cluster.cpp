#include "impl/storage/postgres/cluster.h"

#include "impl/storage/postgres/janitor.h"
#include "impl/storage/postgres/sql_loader.h"

#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace qdt::impl::postgres {
namespace {

// The process-wide registry the exit and signal handlers read. Plain data in
// fixed arrays, because a signal handler may only touch what is
// async-signal-safe.
struct Registered {
  volatile sig_atomic_t active = 0;
  pid_t owner = 0;       // the process that started it: a forked child never stops its parent's server
  volatile pid_t postmaster = 0;  // the child to stop: initdb, then the server
  char folder[512] = {};
};
constexpr int kSlots = 4;
Registered g_registered[kSlots];
struct sigaction g_previous_int;
struct sigaction g_previous_term;
struct sigaction g_previous_abrt;
bool g_handlers_installed = false;

// Immediate shutdown, then the folder, using only async-signal-safe calls.
void stop_registered(Registered& r) {
  if (!r.active || r.owner != getpid()) return;
  r.active = 0;
  int status = 0;
  // 0 while no child runs; initdb takes SIGQUIT as the server does.
  if (r.postmaster > 0) {
    kill(r.postmaster, SIGQUIT);
    while (waitpid(r.postmaster, &status, 0) < 0 && errno == EINTR) {
    }
  }
  const pid_t rm = fork();
  if (rm == 0) {
    const char* argv[] = {"rm", "-rf", "--", r.folder, nullptr};
    execv("/bin/rm", const_cast<char* const*>(argv));
    _exit(127);
  }
  if (rm > 0) {
    while (waitpid(rm, &status, 0) < 0 && errno == EINTR) {
    }
  }
}

void stop_all_registered() {
  for (Registered& r : g_registered) stop_registered(r);
}

void on_signal(int signal_number) {
  const int saved_errno = errno;
  stop_all_registered();
  const struct sigaction* previous = signal_number == SIGINT    ? &g_previous_int
                                    : signal_number == SIGTERM ? &g_previous_term
                                                               : &g_previous_abrt;
  sigaction(signal_number, previous, nullptr);
  errno = saved_errno;
  raise(signal_number);
}

void install_handlers() {
  if (g_handlers_installed) return;
  g_handlers_installed = true;
  struct sigaction action {};
  action.sa_handler = on_signal;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, &g_previous_int);
  sigaction(SIGTERM, &action, &g_previous_term);
  // A failed assertion aborts: the server and its folder go too.
  sigaction(SIGABRT, &action, &g_previous_abrt);
  std::atexit(stop_all_registered);
}

int register_cluster(pid_t postmaster, const std::string& folder) {
  install_handlers();
  for (int i = 0; i < kSlots; ++i) {
    Registered& r = g_registered[i];
    if (r.active) continue;
    assert(folder.size() < sizeof(r.folder));
    std::memset(r.folder, 0, sizeof(r.folder));
    std::memcpy(r.folder, folder.data(), folder.size());
    r.owner = getpid();
    r.postmaster = postmaster;
    r.active = 1;
    return i;
  }
  return -1;
}

std::string tail_of(const std::string& path, size_t bytes_max = 2000) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string text = ss.str();
  if (text.size() > bytes_max) text = "..." + text.substr(text.size() - bytes_max);
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text.empty() ? "(empty log)" : text;
}

// A conninfo value in single quotes, backslash-escaped.
std::string conninfo_value(const std::string& value) {
  std::string out = "'";
  for (char c : value) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

struct RunAs {
  bool drop = false;
  uid_t uid = 0;
  gid_t gid = 0;
};

// Forks `argv` with stdout and stderr into `log_path`, as `run_as`, in its
// own process group (a terminal's Ctrl-C reaches qdt, which stops the server
// itself). `parent_death_signal`: sent to the child when qdt dies.
pid_t spawn(const std::vector<std::string>& argv, const std::string& log_path, const RunAs& run_as,
            int parent_death_signal) {
  std::vector<char*> args;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const int log_fd = open(log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (log_fd < 0) throw ClusterError("postgres: cannot create " + log_path + ": " + std::strerror(errno));
  if (run_as.drop && fchown(log_fd, run_as.uid, run_as.gid) != 0) {
    close(log_fd);
    throw ClusterError("postgres: cannot chown " + log_path + ": " + std::strerror(errno));
  }
  const pid_t parent = getpid();
  const pid_t child = fork();
  if (child < 0) {
    close(log_fd);
    throw ClusterError(std::string("postgres: fork: ") + std::strerror(errno));
  }
  if (child == 0) {
    setpgid(0, 0);
    dup2(log_fd, STDOUT_FILENO);
    dup2(log_fd, STDERR_FILENO);
    const int null_fd = open("/dev/null", O_RDONLY);
    if (null_fd >= 0) dup2(null_fd, STDIN_FILENO);
    // The server must not hold qdt's pipes, sockets and output files open.
    syscall(SYS_close_range, 3u, ~0u, 0u);
    if (run_as.drop) {
      if (setgroups(0, nullptr) != 0 || setgid(run_as.gid) != 0 || setuid(run_as.uid) != 0) {
        const char msg[] = "qdt: cannot switch to the server user\n";
        (void)!write(STDERR_FILENO, msg, sizeof(msg) - 1);
        _exit(126);
      }
    }
    // Set after the switch of user, which would clear it.
    if (parent_death_signal != 0) {
      prctl(PR_SET_PDEATHSIG, parent_death_signal);
      if (getppid() != parent) _exit(125);
    }
    execv(args[0], args.data());
    const char msg[] = "qdt: exec failed\n";
    (void)!write(STDERR_FILENO, msg, sizeof(msg) - 1);
    _exit(127);
  }
  close(log_fd);
  return child;
}

// The process that first reached a server (see Cluster::process_tag).
pid_t first_pid() {
  static const pid_t first = getpid();
  return first;
}

}  // namespace

std::unique_ptr<Cluster> Cluster::start_local(const ClusterOptions& options) {
  assert(options.max_connections >= 1);
  const std::string initdb = options.bin_dir + "/initdb";
  const std::string postgres = options.bin_dir + "/postgres";
  for (const std::string& binary : {initdb, postgres}) {
    if (access(binary.c_str(), X_OK) != 0) {
      throw ClusterError("postgres: no server binary " + binary +
                         " (install postgresql-15: scripts/install-deps.sh)");
    }
  }
  RunAs run_as;
  if (geteuid() == 0) {
    const struct passwd* pw = getpwnam(options.server_user.c_str());
    if (!pw) {
      throw ClusterError("postgres: running as root and there is no system user '" + options.server_user +
                         "' to run the server as (the postgresql package creates it)");
    }
    run_as = {true, pw->pw_uid, pw->pw_gid};
  }
  std::string parent = options.parent_dir;
  if (parent.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    parent = tmp && *tmp ? tmp : "/tmp";
  }
  std::string pattern = parent + "/qdt-pg-XXXXXX";
  if (!mkdtemp(pattern.data())) {
    throw ClusterError("postgres: cannot make a temporary folder in " + parent + ": " + std::strerror(errno));
  }
  std::unique_ptr<Cluster> cluster(new Cluster());
  cluster->folder_ = pattern;
  // Registered before initdb, so a signal during set-up removes the folder
  // (and stops initdb) too; the guard removes it if anything below throws
  // before the server runs.
  cluster->slot_ = register_cluster(0, pattern);
  if (cluster->slot_ < 0) {
    std::error_code ignored;
    std::filesystem::remove_all(pattern, ignored);
    throw ClusterError("postgres: this process already runs " + std::to_string(kSlots) + " clusters");
  }
  struct FolderGuard {
    std::string path;
    Registered& registered;
    bool armed = true;
    ~FolderGuard() {
      if (!armed) return;
      registered.active = 0;
      std::error_code ignored;
      std::filesystem::remove_all(path, ignored);
    }
  } guard{pattern, g_registered[cluster->slot_]};
  if (run_as.drop && chown(pattern.c_str(), run_as.uid, run_as.gid) != 0) {
    throw ClusterError("postgres: cannot chown " + pattern + ": " + std::strerror(errno));
  }
  const std::string data = pattern + "/data";
  const pid_t init_pid = spawn({initdb, "-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C",
                                "--no-sync", "--no-instructions"},
                               pattern + "/initdb.log", run_as, SIGKILL);
  g_registered[cluster->slot_].postmaster = init_pid;
  int status = 0;
  while (waitpid(init_pid, &status, 0) < 0 && errno == EINTR) {
  }
  g_registered[cluster->slot_].postmaster = 0;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    throw ClusterError("postgres: initdb failed: " + tail_of(pattern + "/initdb.log"));
  }
  const std::string port = "5432";  // only names the socket file inside the private folder
  std::vector<std::string> argv = {postgres, "-D", data, "-k", pattern, "-p", port,
                                   "-c", "listen_addresses=",
                                   "-c", "fsync=off",
                                   "-c", "synchronous_commit=off",
                                   "-c", "full_page_writes=off",
                                   "-c", "TimeZone=UTC",
                                   "-c", "autovacuum=off",
                                   "-c", "deadlock_timeout=1h",
                                   "-c", "max_connections=" + std::to_string(options.max_connections),
                                   "-c", "shared_buffers=32MB",
                                   "-c", "logging_collector=off"};
  cluster->postmaster_pid_ = spawn(argv, pattern + "/server.log", run_as, SIGQUIT);
  g_registered[cluster->slot_].postmaster = cluster->postmaster_pid_;
  guard.armed = false;
  cluster->base_conninfo_ = "host=" + conninfo_value(pattern) + " port=" + port + " user=postgres";
  const std::string ping = cluster->base_conninfo_ + " dbname=postgres";
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(options.start_timeout_ms);
  while (PQping(ping.c_str()) != PQPING_OK) {
    if (waitpid(cluster->postmaster_pid_, &status, WNOHANG) == cluster->postmaster_pid_) {
      cluster->postmaster_pid_ = 0;
      g_registered[cluster->slot_].active = 0;
      guard.armed = true;
      throw ClusterError("postgres: the server exited while starting: " + tail_of(pattern + "/server.log"));
    }
    if (std::chrono::steady_clock::now() > deadline) {
      const std::string log = tail_of(pattern + "/server.log");
      cluster->stop();
      throw ClusterError("postgres: the server did not accept connections in " +
                         std::to_string(options.start_timeout_ms) + " ms: " + log);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return cluster;
}

std::string Cluster::process_tag() { return std::to_string(first_pid()) + "_" + std::to_string(getpid()); }

std::unique_ptr<Cluster> Cluster::attach(const std::string& url) {
  static_cast<void>(first_pid());  // before any worker is forked
  std::unique_ptr<Cluster> cluster(new Cluster());
  cluster->base_conninfo_ = url;
  // The URL's own database is where CREATE DATABASE runs.
  PgConnPtr conn(PQconnectdb(url.c_str()));
  if (!conn || PQstatus(conn.get()) != CONNECTION_OK) {
    throw ClusterError("postgres: cannot connect to " + url + ": " + (conn ? PQerrorMessage(conn.get()) : "?"));
  }
  cluster->admin_database_ = PQdb(conn.get());
  if (getpid() == first_pid()) start_janitor(url, first_pid());
  return cluster;
}

Cluster::~Cluster() { stop(); }

PgConnPtr Cluster::admin() const { return connect_blocking(base_conninfo_, admin_database_); }

std::vector<std::string> Cluster::prepare_template(const std::vector<SqlFile>& files,
                                                   const std::vector<std::string>* called) {
  if (!template_name_.empty()) return {};
  // Unique per process and per Cluster: an external server may host several
  // qdt processes, and one process may attach to it more than once.
  static int templates_made = 0;
  const std::string name = "qdt_template_" + process_tag() + "_" + std::to_string(templates_made++);
  {
    PgConnPtr conn = admin();
    exec_blocking(conn.get(),
                  "CREATE DATABASE " + quote_identifier(conn.get(), name) +
                      " TEMPLATE template0 ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'",
                  "creating the template database " + name);
  }
  created_.push_back(name);
  PgConnPtr conn = connect(name);
  apply_sql(conn.get(), {clock_sql()});
  std::vector<std::string> warnings = apply_sql(conn.get(), files, called);
  template_name_ = name;
  return warnings;
}

void Cluster::create_database(const std::string& name) {
  assert(!template_name_.empty());
  PgConnPtr conn = admin();
  exec_blocking(conn.get(),
                "CREATE DATABASE " + quote_identifier(conn.get(), name) + " TEMPLATE " +
                    quote_identifier(conn.get(), template_name_),
                "creating database " + name);
  created_.push_back(name);
}

void Cluster::drop_database(const std::string& name) {
  const auto it = std::find(created_.begin(), created_.end(), name);
  if (it == created_.end()) throw ClusterError("postgres: will not drop database " + name + ", qdt did not create it");
  PgConnPtr conn = admin();
  exec_blocking(conn.get(), "DROP DATABASE IF EXISTS " + quote_identifier(conn.get(), name) + " WITH (FORCE)",
                "dropping database " + name);
  created_.erase(it);
}

void Cluster::stop() {
  if (postmaster_pid_ > 0) {
    assert(slot_ >= 0);
    // A forked child holds a copy of this object: the server and folder are its parent's.
    if (g_registered[slot_].owner != getpid()) return;
    stop_registered(g_registered[slot_]);
    postmaster_pid_ = 0;
    created_.clear();
    std::error_code ignored;
    std::filesystem::remove_all(folder_, ignored);
    return;
  }
  if (slot_ >= 0) return;  // a local cluster, already stopped
  // External server: drop what this process created, templates last.
  while (!created_.empty()) {
    const std::string name = created_.back();
    try {
      drop_database(name);
    } catch (const ClusterError&) {
      created_.pop_back();  // best effort on the way out; the server stays someone else's
    }
  }
  if (getpid() == first_pid()) drop_workers_databases();
}

void Cluster::drop_workers_databases() {
  try {
    PgConnPtr conn = admin();
    // This process's own names (first_first_n) are its Clusters' own business.
    drop_databases_named_after(conn.get(), first_pid(), false);
  } catch (const ClusterError&) {
    // Best effort on the way out, as above.
  }
}

}  // namespace qdt::impl::postgres
