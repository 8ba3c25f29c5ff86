#include "impl/storage/sqlite/sqlite.h"

#include <cassert>
#include <utility>

namespace qdt::impl {

Statement::Statement(sqlite3* db, std::string_view sql) : db_(db) {
  const int rc = sqlite3_prepare_v3(db, sql.data(), static_cast<int>(sql.size()),
                                    SQLITE_PREPARE_PERSISTENT, &stmt_, nullptr);
  if (rc != SQLITE_OK) {
    throw StorageError("prepare failed: " + std::string(sqlite3_errmsg(db)) + " in: " + std::string(sql));
  }
}

Statement Statement::deferred(sqlite3* db, const char* sql) {
  assert(db != nullptr && sql != nullptr);
  Statement s;
  s.db_ = db;
  s.deferred_sql_ = sql;
  return s;
}

void Statement::prepare_now() {
  assert(db_ != nullptr && deferred_sql_ != nullptr && "a statement that was never prepared");
  const int rc = sqlite3_prepare_v3(db_, deferred_sql_, -1, SQLITE_PREPARE_PERSISTENT, &stmt_, nullptr);
  if (rc != SQLITE_OK) {
    stmt_ = nullptr;
    throw StorageError("prepare failed: " + std::string(sqlite3_errmsg(db_)) + " in: " + deferred_sql_);
  }
  deferred_sql_ = nullptr;
}

Statement::Statement(Statement&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)),
      stmt_(std::exchange(other.stmt_, nullptr)),
      deferred_sql_(std::exchange(other.deferred_sql_, nullptr)) {}

Statement& Statement::operator=(Statement&& other) noexcept {
  if (this != &other) {
    sqlite3_finalize(stmt_);
    db_ = std::exchange(other.db_, nullptr);
    stmt_ = std::exchange(other.stmt_, nullptr);
    deferred_sql_ = std::exchange(other.deferred_sql_, nullptr);
  }
  return *this;
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

Statement& Statement::reset() {
  prepare();
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
  return *this;
}

Statement& Statement::bind(int index, int64_t value) {
  prepare();
  if (sqlite3_bind_int64(stmt_, index, value) != SQLITE_OK) throw StorageError(sqlite3_errmsg(db_));
  return *this;
}

Statement& Statement::bind(int index, std::string_view text) {
  prepare();
  if (sqlite3_bind_text(stmt_, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT) != SQLITE_OK) {
    throw StorageError(sqlite3_errmsg(db_));
  }
  return *this;
}

Statement& Statement::bind_blob(int index, const void* data, size_t size) {
  prepare();
  // SQLITE_STATIC: callers keep the bytes alive until the statement is reset.
  if (sqlite3_bind_blob(stmt_, index, data, static_cast<int>(size), SQLITE_STATIC) != SQLITE_OK) {
    throw StorageError(sqlite3_errmsg(db_));
  }
  return *this;
}

bool Statement::step() {
  const int rc = step_rc();
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  throw StorageError("step failed: " + std::string(sqlite3_errstr(rc)) + ": " + sqlite3_errmsg(db_), rc);
}

int Statement::step_rc() {
  prepare();
  const int rc = sqlite3_step(stmt_);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) sqlite3_reset(stmt_);
  return rc;
}

void Statement::run() {
  const bool row = step();
  assert(!row && "statement returned a row where none was expected");
  (void)row;
}

int64_t Statement::column_int(int column) const { return sqlite3_column_int64(stmt_, column); }

bool Statement::column_is_null(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }

std::string_view Statement::column_text(int column) const {
  const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt_, column));
  return p ? std::string_view(p, static_cast<size_t>(sqlite3_column_bytes(stmt_, column))) : std::string_view();
}

std::string_view Statement::column_blob(int column) const {
  const auto* p = static_cast<const char*>(sqlite3_column_blob(stmt_, column));
  return p ? std::string_view(p, static_cast<size_t>(sqlite3_column_bytes(stmt_, column))) : std::string_view();
}

Database::Database(const std::string& path) {
  if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI,
                      nullptr) != SQLITE_OK) {
    const std::string message = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    throw StorageError("cannot open " + path + ": " + message);
  }
}

Database::~Database() { sqlite3_close_v2(db_); }

void Database::exec(std::string_view sql) {
  char* error = nullptr;
  const int rc = sqlite3_exec(db_, std::string(sql).c_str(), nullptr, nullptr, &error);
  if (rc != SQLITE_OK) {
    const std::string message = error ? error : "unknown error";
    sqlite3_free(error);
    throw StorageError(message, rc);
  }
}


void Database::fail(std::string_view what) const {
  throw StorageError(std::string(what) + ": " + sqlite3_errmsg(db_));
}

}  // namespace qdt::impl
