// Internal: a thin RAII layer over one sqlite3 connection. Every statement is prepared once
// and cached per connection; values are always bound, never formatted into SQL. Errors become
// core::Error naming the database file. Not part of the public API (the GUI never sees sqlite3.h).
#pragma once

#include <sqlite3.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace pha::store::detail {

class Db;

// A cached prepared statement. Use through StmtScope so it is reset after each use.
class Stmt {
 public:
  Stmt(Db& db, sqlite3_stmt* stmt) : db_(db), stmt_(stmt) {}
  ~Stmt();
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;

  Stmt& bind(int index, std::int64_t value);
  Stmt& bind(int index, int value) { return bind(index, static_cast<std::int64_t>(value)); }
  Stmt& bind(int index, double value);  // NaN is stored as NULL (SQLite has no NaN)
  Stmt& bind(int index, const std::string& value);
  Stmt& bind_null(int index);
  Stmt& bind_blob(int index, const void* data, std::size_t bytes);

  bool step();  // true: a row is ready; false: done. Throws core::Error on failure.
  int step_rc();  // the raw result code, no throw (for BUSY retry loops)
  void run();   // step() that expects no row
  void reset();

  bool is_null(int col) const;
  std::int64_t i64(int col) const;
  double f64(int col) const;  // NULL reads as NaN
  std::string text(int col) const;
  std::vector<unsigned char> blob(int col) const;

 private:
  Db& db_;
  sqlite3_stmt* stmt_;
};

// Resets the statement (and clears bindings) when the scope ends, even on exceptions.
class StmtScope {
 public:
  explicit StmtScope(Stmt& stmt) : stmt_(stmt) {}
  ~StmtScope() { stmt_.reset(); }
  StmtScope(const StmtScope&) = delete;
  StmtScope& operator=(const StmtScope&) = delete;
  Stmt* operator->() { return &stmt_; }
  Stmt& operator*() { return stmt_; }

 private:
  Stmt& stmt_;
};

class Db {
 public:
  enum class Mode { Create, Existing };  // Existing: never creates the file
  Db(const std::string& path, std::chrono::milliseconds busy_timeout, Mode mode = Mode::Create);
  ~Db();
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  const std::string& path() const { return path_; }
  std::chrono::milliseconds busy_timeout() const { return busy_timeout_; }
  sqlite3* raw() { return db_; }
  // No checkpoint when this connection closes (SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE): a damaged
  // or inspected file is left as it was, its WAL included.
  void keep_file_untouched();

  // The cached prepared statement for this exact SQL text (constant SQL, values bound).
  Stmt& stmt(const char* sql);
  // Runs a constant script (DDL, pragmas) statement by statement, each one prepared.
  void exec_script(const char* sql);
  std::int64_t last_insert_rowid() const;
  int changes() const;

  [[noreturn]] void fail(const std::string& what, int rc) const;

 private:
  std::string path_;
  std::chrono::milliseconds busy_timeout_;
  sqlite3* db_ = nullptr;
  std::unordered_map<std::string, std::unique_ptr<Stmt>> cache_;
};

// BEGIN IMMEDIATE (writers) or BEGIN (readers: one consistent snapshot across statements).
// An immediate begin that still reports SQLITE_BUSY after the busy handler is retried until
// twice the busy timeout has passed. Rolls back unless commit() was called.
class Transaction {
 public:
  enum class Kind { Read, Write };
  Transaction(Db& db, Kind kind);
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  void commit();

 private:
  Db& db_;
  bool open_ = false;
};

}  // namespace pha::store::detail
