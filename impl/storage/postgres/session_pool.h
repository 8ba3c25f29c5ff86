#pragma once
// The idle connections a worker keeps between runs. Opening a connection
// starts a server process, which costs more than a short seed's statements;
// a connection that ends a run idle (no statement in flight, no transaction,
// not closed) carries nothing into the next run but its prepared
// statements, so the next run may take it.
#include <memory>
#include <string>
#include <vector>

#include "impl/storage/postgres/session.h"

namespace qdt::impl::postgres {

class SessionPool {
 public:
  explicit SessionPool(size_t capacity) : capacity_(capacity) {}

  // An idle connection to `dbname`, renamed `name`, or a new one.
  std::unique_ptr<Session> take(const std::string& base, const std::string& dbname, std::string name);
  // Keeps `session` when it is idle and there is room; else closes it.
  void give(std::unique_ptr<Session> session);

  size_t idle() const { return idle_.size(); }

 private:
  size_t capacity_;
  std::vector<std::unique_ptr<Session>> idle_;
};

}  // namespace qdt::impl::postgres
