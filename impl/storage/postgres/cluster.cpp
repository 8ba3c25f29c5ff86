#include "impl/storage/postgres/cluster.h"

#include "impl/storage/postgres/conninfo_text.h"
#include "impl/storage/postgres/janitor.h"
#include "impl/storage/postgres/sql_loader.h"

#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
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
  char folder[4096] = {};         // PATH_MAX: where the cluster lives
  char socket_folder[108] = {};   // empty, or a short folder of its own for the socket
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
    const char* argv[] = {"rm", "-rf", "--", r.folder, r.socket_folder[0] ? r.socket_folder : nullptr, nullptr};
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
  // A failed assertion aborts: the server and its folder go too.
  for (const auto& [signal_number, previous] :
       {std::pair{SIGINT, &g_previous_int}, {SIGTERM, &g_previous_term}, {SIGABRT, &g_previous_abrt}}) {
    sigaction(signal_number, nullptr, previous);
    // A signal qdt was started ignoring (a script's background job ignores
    // SIGINT) stays ignored: stopping the server on it would leave qdt
    // running on without one.
    if (previous->sa_handler == SIG_IGN) continue;
    sigaction(signal_number, &action, nullptr);
  }
  std::atexit(stop_all_registered);
}

// A process's start time (field 22 of /proc/PID/stat, clock ticks since
// boot): with the pid, what tells a live owner from a later process that
// reused its pid. Empty when the process is gone.
std::string process_start_time(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat((std::istreambuf_iterator<char>(in)), {});
  const size_t after_name = stat.rfind(')');
  if (after_name == std::string::npos) return "";
  std::istringstream fields(stat.substr(after_name + 1));
  std::string field;
  for (int i = 3; i <= 22 && fields >> field; ++i) {
  }
  return field;
}

constexpr const char* kOwnerFile = "qdt-owner";

// What a cluster folder's owner file says: written by start_local, read back
// by the next qdt to prove a folder left by a killed qdt is a cluster's.
std::string owner_line(pid_t pid) {
  return "qdt cluster of pid " + std::to_string(pid) + " started at " + process_start_time(pid) + "\n";
}

// Removes cluster folders below `parent` left by a qdt that was killed
// (SIGKILL ends qdt before it can): only folders named qdt-pg-*, owned by
// this user, holding an owner file qdt wrote whose process is gone, and
// whose server (postmaster.pid) is gone too.
void remove_leftover_clusters(const std::string& parent) {
  namespace fs = std::filesystem;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(parent, error)) {
    const std::string name = entry.path().filename().string();
    // The folder itself may be the server user's; the owner file is qdt's own.
    struct stat folder {}, owner_file {};
    const fs::path owner_path = entry.path() / kOwnerFile;
    if (name.rfind("qdt-pg-", 0) != 0 || lstat(entry.path().c_str(), &folder) != 0 || !S_ISDIR(folder.st_mode) ||
        lstat(owner_path.c_str(), &owner_file) != 0 || !S_ISREG(owner_file.st_mode) || owner_file.st_uid != geteuid()) {
      continue;
    }
    std::ifstream owner(owner_path);
    std::string line;
    if (!std::getline(owner, line)) continue;
    unsigned long long pid = 0;
    char started[32] = {};
    if (std::sscanf(line.c_str(), "qdt cluster of pid %llu started at %31s", &pid, started) != 2 || pid == 0) continue;
    const std::string now = process_start_time(static_cast<pid_t>(pid));
    if (!now.empty() && now == started) continue;  // its qdt still runs
    std::ifstream server(entry.path() / "data" / "postmaster.pid");
    unsigned long long server_pid = 0;
    if (server >> server_pid && server_pid > 0 && (kill(static_cast<pid_t>(server_pid), 0) == 0 || errno == EPERM)) {
      continue;  // its server still runs
    }
    fs::remove_all(entry.path(), error);
  }
}

// The slot, or -1 when every slot is taken or a path does not fit one.
int register_cluster(pid_t postmaster, const std::string& folder, const std::string& socket_folder) {
  install_handlers();
  for (int i = 0; i < kSlots; ++i) {
    Registered& r = g_registered[i];
    if (r.active) continue;
    if (folder.size() >= sizeof(r.folder) || socket_folder.size() >= sizeof(r.socket_folder)) return -1;
    std::memset(r.folder, 0, sizeof(r.folder));
    std::memcpy(r.folder, folder.data(), folder.size());
    std::memset(r.socket_folder, 0, sizeof(r.socket_folder));
    std::memcpy(r.socket_folder, socket_folder.data(), socket_folder.size());
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

// 16 hex digits from the kernel's random source, drawn once by the first
// process: what names a run's databases on a shared server, where pids
// repeat across hosts and containers. Never part of a trace.
std::string draw_run_id() {
  unsigned char bytes[8] = {};
  const int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  const bool drawn = fd >= 0 && read(fd, bytes, sizeof bytes) == static_cast<ssize_t>(sizeof bytes);
  if (fd >= 0) close(fd);
  if (!drawn) throw ClusterError(std::string("postgres: cannot read /dev/urandom for a run id: ") + std::strerror(errno));
  static const char digits[] = "0123456789abcdef";
  std::string id;
  for (const unsigned char b : bytes) {
    id += digits[b >> 4];
    id += digits[b & 15];
  }
  return id;
}

// Drawn with first_pid() set, so that forked workers inherit both and never
// take themselves for the first process (which starts the janitor). Never
// destroyed: a Cluster held by a static that was made before the id (the
// PostgreSQL world's, sim/world/pg_process.cpp) still names its databases by
// it when exit() destroys that static, after the id's own destructor would have run.
const std::string& run_id() {
  static_cast<void>(first_pid());
  static const std::string* const id = new std::string(draw_run_id());
  return *id;
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
  remove_leftover_clusters(parent);
  std::string pattern = parent + "/qdt-pg-XXXXXX";
  if (pattern.size() >= sizeof(Registered::folder)) {
    throw ClusterError("postgres: TMPDIR is " + std::to_string(parent.size()) + " characters long; a cluster folder "
                       "below it would pass PATH_MAX: set a shorter TMPDIR");
  }
  if (!mkdtemp(pattern.data())) {
    throw ClusterError("postgres: cannot make a temporary folder in " + parent + ": " + std::strerror(errno));
  }
  // A Unix socket's path holds 107 bytes: below a long TMPDIR the socket
  // gets a short folder of its own.
  std::string socket_folder;
  if (pattern.size() + std::strlen("/.s.PGSQL.5432") >= sizeof(sockaddr_un::sun_path)) {
    socket_folder = "/tmp/qdt-pgs-XXXXXX";
    if (!mkdtemp(socket_folder.data())) {
      const std::string reason = std::strerror(errno);
      std::error_code ignored;
      std::filesystem::remove_all(pattern, ignored);
      throw ClusterError("postgres: " + pattern + " is too long a path for the server's Unix socket, and " +
                         "/tmp/qdt-pgs-XXXXXX cannot be made: " + reason);
    }
  }
  std::unique_ptr<Cluster> cluster(new Cluster());
  cluster->folder_ = pattern;
  cluster->socket_folder_ = socket_folder;
  // Registered before initdb, so a signal during set-up removes the folder
  // (and stops initdb) too; the guard removes it if anything below throws
  // before the server runs.
  cluster->slot_ = register_cluster(0, pattern, socket_folder);
  if (cluster->slot_ < 0) {
    std::error_code ignored;
    std::filesystem::remove_all(pattern, ignored);
    if (!socket_folder.empty()) std::filesystem::remove_all(socket_folder, ignored);
    throw ClusterError("postgres: this process already runs " + std::to_string(kSlots) + " clusters");
  }
  struct FolderGuard {
    std::string path, socket_path;
    Registered& registered;
    bool armed = true;
    ~FolderGuard() {
      if (!armed) return;
      registered.active = 0;
      std::error_code ignored;
      std::filesystem::remove_all(path, ignored);
      if (!socket_path.empty()) std::filesystem::remove_all(socket_path, ignored);
    }
  } guard{pattern, socket_folder, g_registered[cluster->slot_]};
  {
    std::ofstream owner(pattern + "/" + kOwnerFile);
    owner << owner_line(getpid());
    if (!owner.flush()) throw ClusterError("postgres: cannot write " + pattern + "/" + kOwnerFile);
  }
  if (run_as.drop && !socket_folder.empty() && chown(socket_folder.c_str(), run_as.uid, run_as.gid) != 0) {
    throw ClusterError("postgres: cannot chown " + socket_folder + ": " + std::strerror(errno));
  }
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
  const std::string socket_dir = socket_folder.empty() ? pattern : socket_folder;
  std::vector<std::string> argv = {postgres, "-D", data, "-k", socket_dir, "-p", port,
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
  cluster->base_conninfo_ = "host=" + conninfo_value(socket_dir) + " port=" + port + " user=postgres";
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

std::string Cluster::process_tag() { return run_id() + "_" + std::to_string(getpid()); }

const std::string& Cluster::run_id() { return postgres::run_id(); }

std::unique_ptr<Cluster> Cluster::attach(const std::string& url) {
  static_cast<void>(first_pid());  // before any worker is forked, which inherit both
  static_cast<void>(postgres::run_id());
  std::unique_ptr<Cluster> cluster(new Cluster());
  cluster->base_conninfo_ = url;
  // The URL's own database is where CREATE DATABASE runs.
  PgConnPtr conn(PQconnectdb(url.c_str()));
  if (!conn || PQstatus(conn.get()) != CONNECTION_OK) {
    throw ClusterError("postgres: cannot connect to " + redacted_conninfo(url) + ": " +
                       (conn ? PQerrorMessage(conn.get()) : "?"));
  }
  cluster->admin_database_ = PQdb(conn.get());
  if (getpid() == first_pid()) start_janitor(url, postgres::run_id());
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
    created_.push_back(name);
    mark_owned(conn.get(), name, postgres::run_id());
  }
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
  mark_owned(conn.get(), name, postgres::run_id());
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
    if (!socket_folder_.empty()) std::filesystem::remove_all(socket_folder_, ignored);
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
    // This process's own names (RUNID_FIRSTPID_n) are its Clusters' own business.
    drop_owned_databases(conn.get(), postgres::run_id(), process_tag() + "_");
  } catch (const ClusterError&) {
    // Best effort on the way out, as above.
  }
}

}  // namespace qdt::impl::postgres
