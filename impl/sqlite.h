#pragma once
// Thin RAII wrappers over the SQLite C API: a connection, prepared statements
// that are reused (reset, never re-prepared, on the hot path) and a
// transaction guard that rolls back unless committed. Errors throw
// StorageError, so a failed push transaction commits nothing.
#include <sqlite3.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace qdt::impl {

class StorageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Statement {
 public:
  Statement() = default;
  Statement(sqlite3* db, std::string_view sql);
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
  // true while a row is available.
  bool step();
  // Runs to completion; asserts no row is returned.
  void run();

  int64_t column_int(int column) const;
  bool column_is_null(int column) const;
  std::string_view column_text(int column) const;
  std::string_view column_blob(int column) const;

 private:
  sqlite3* db_ = nullptr;
  sqlite3_stmt* stmt_ = nullptr;
};

class Database {
 public:
  explicit Database(const std::string& path);
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;
  ~Database();

  sqlite3* handle() const { return db_; }
  void exec(std::string_view sql);
  int64_t total_changes() const;
  [[noreturn]] void fail(std::string_view what) const;

 private:
  sqlite3* db_ = nullptr;
};

// BEGIN IMMEDIATE takes SQLite's write lock at once: that lock is the write
// serializer under which the probe and the offset allocation both happen.
class Transaction {
 public:
  explicit Transaction(Database& db);
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  ~Transaction();
  void commit();

 private:
  Database& db_;
  bool done_ = false;
};

}  // namespace qdt::impl
