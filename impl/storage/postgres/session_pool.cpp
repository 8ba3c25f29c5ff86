#include "impl/storage/postgres/session_pool.h"

#include <cassert>

namespace qdt::impl::postgres {

std::unique_ptr<Session> SessionPool::take(const std::string& base, const std::string& dbname, std::string name) {
  while (!idle_.empty()) {
    std::unique_ptr<Session> session = std::move(idle_.back());
    idle_.pop_back();
    // The server may have ended the backend while it idled (a shutdown).
    if (!session->still_idle()) continue;
    session->rename(std::move(name));
    return session;
  }
  return std::make_unique<Session>(base, dbname, std::move(name));
}

void SessionPool::give(std::unique_ptr<Session> session) {
  assert(session);
  if (idle_.size() >= capacity_ || !session->still_idle()) return;  // closed by its destructor
  idle_.push_back(std::move(session));
}

}  // namespace qdt::impl::postgres
