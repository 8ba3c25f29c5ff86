#pragma once
// Thin RAII wrappers over the SQLite C API: a database handle and prepared
// statements that are reused (reset, never re-prepared, on the hot path).
// Errors throw StorageError. Transactions and the gated execution of
// statements are impl/connection.h.
#include <sqlite3.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "impl/storage/storage_types.h"

namespace qdt::impl {

class Statement {
 public:
  Statement() = default;
  Statement(sqlite3* db, std::string_view sql);
  // Prepared on first use (reset, bind or step), not here: a connection
  // prepares only the statements it runs. A world opens five connections per
  // run and each used to prepare all 27, a third of a campaign seed's cost.
  // `sql` must outlive the statement (a string literal).
  static Statement deferred(sqlite3* db, const char* sql);
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&& other) noexcept;
  ~Statement();

  // Resets and clears bindings, ready for a new execution.
  Statement& reset();
  Statement& bind(int index, int64_t value);
  Statement& bind(int index, std::string_view text);
  Statement& bind_blob(int index, const void* data, size_t size);
  // true while a row is available; throws StorageError on any error.
  bool step();
  // One raw sqlite3_step: SQLITE_ROW, SQLITE_DONE or an error code (the
  // statement is reset on an error, ready to be retried).
  int step_rc();
  // Runs to completion; asserts no row is returned.
  void run();

  int64_t column_int(int column) const;
  bool column_is_null(int column) const;
  std::string_view column_text(int column) const;
  std::string_view column_blob(int column) const;

 private:
  void prepare() {
    if (stmt_ == nullptr) prepare_now();
  }
  void prepare_now();

  sqlite3* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
  const char* deferred_sql_ = nullptr;  // set until prepared, for deferred statements
};

class Database {
 public:
  // `path` is a file name, ":memory:" or a URI ("file:/NAME?vfs=memdb").
  explicit Database(const std::string& path);
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;
  ~Database();

  sqlite3* handle() const { return db_; }
  void exec(std::string_view sql);
  [[noreturn]] void fail(std::string_view what) const;

 private:
  sqlite3* db_ = nullptr;
};

}  // namespace qdt::impl
