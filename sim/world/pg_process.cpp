#include "sim/world/pg_process.h"

#include <unistd.h>

#include <memory>
#include <stdexcept>

#include "sim/world/world_config.h"

namespace qdt::sim {
namespace {

// Every storage client a world may open (two per broker, the admin's two,
// retention's, the inspector) and the backend's own control and probe.
constexpr int64_t kConnectionsPerProcess = 2 * kMaxBrokers + 2 + 1 + 1 + 4;

struct Holder {
  PgProcessOptions options;
  bool started = false;
  // The server a forked worker attaches to: the URL, or the local cluster's conninfo.
  std::string server;
  pid_t pid = 0;  // the process `backend` belongs to
  std::unique_ptr<impl::postgres::PgBackend> backend;
  ~Holder() {
    // A forked worker's copy is its parent's: its connections must not be closed here.
    if (pid != ::getpid()) static_cast<void>(backend.release());
  }
};

Holder& holder() {
  static Holder h;
  return h;
}

}  // namespace

void start_pg_process(const PgProcessOptions& options) {
  Holder& h = holder();
  if (h.started) throw std::logic_error("start_pg_process: already started");
  impl::postgres::PgBackendOptions backend;
  backend.pg_url = options.pg_url;
  backend.cluster.max_connections = kConnectionsPerProcess * (options.processes + 1);
  h.options = options;
  h.backend = std::make_unique<impl::postgres::PgBackend>(backend);
  h.pid = ::getpid();
  h.server = h.backend->cluster().base_conninfo();
  h.started = true;
}

impl::postgres::PgBackend& pg_process_backend() {
  Holder& h = holder();
  if (!h.started) throw std::logic_error("a PostgreSQL world needs start_pg_process() first");
  if (h.pid != ::getpid()) {
    // A forked worker: the parent's backend is left as it is (see the header).
    static_cast<void>(h.backend.release());
    impl::postgres::PgBackendOptions backend;
    backend.pg_url = h.server;
    h.backend = std::make_unique<impl::postgres::PgBackend>(backend);
    h.pid = ::getpid();
  }
  return *h.backend;
}

}  // namespace qdt::sim
