#include "store/sqlite_db.h"

#include <cmath>
#include <cstring>
#include <thread>

#include "core/error.h"
#include "store/internal/file_locks.h"

namespace pha::store::detail {

Stmt::~Stmt() { sqlite3_finalize(stmt_); }

Stmt& Stmt::bind(int index, std::int64_t value) {
  int rc = sqlite3_bind_int64(stmt_, index, value);
  if (rc != SQLITE_OK) db_.fail("cannot bind parameter", rc);
  return *this;
}

Stmt& Stmt::bind(int index, double value) {
  if (std::isnan(value)) return bind_null(index);
  int rc = sqlite3_bind_double(stmt_, index, value);
  if (rc != SQLITE_OK) db_.fail("cannot bind parameter", rc);
  return *this;
}

Stmt& Stmt::bind(int index, const std::string& value) {
  int rc = sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()),
                             SQLITE_TRANSIENT);
  if (rc != SQLITE_OK) db_.fail("cannot bind parameter", rc);
  return *this;
}

Stmt& Stmt::bind_null(int index) {
  int rc = sqlite3_bind_null(stmt_, index);
  if (rc != SQLITE_OK) db_.fail("cannot bind parameter", rc);
  return *this;
}

Stmt& Stmt::bind_blob(int index, const void* data, std::size_t bytes) {
  // A zero-length blob must still be a blob, not NULL: give SQLite a valid pointer.
  static const char kEmpty = 0;
  int rc = sqlite3_bind_blob64(stmt_, index, bytes ? data : &kEmpty, bytes, SQLITE_TRANSIENT);
  if (rc != SQLITE_OK) db_.fail("cannot bind parameter", rc);
  return *this;
}

int Stmt::step_rc() { return sqlite3_step(stmt_); }

bool Stmt::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  const char* sql = sqlite3_sql(stmt_);
  db_.fail(std::string("statement failed [") + (sql ? sql : "?") + "]", rc);
}

void Stmt::run() {
  while (step()) {
  }
}

void Stmt::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

bool Stmt::is_null(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }

std::int64_t Stmt::i64(int col) const { return sqlite3_column_int64(stmt_, col); }

double Stmt::f64(int col) const {
  if (is_null(col)) return std::nan("");
  return sqlite3_column_double(stmt_, col);
}

std::string Stmt::text(int col) const {
  const unsigned char* p = sqlite3_column_text(stmt_, col);
  if (!p) return {};
  return std::string(reinterpret_cast<const char*>(p),
                     static_cast<std::size_t>(sqlite3_column_bytes(stmt_, col)));
}

std::vector<unsigned char> Stmt::blob(int col) const {
  const void* p = sqlite3_column_blob(stmt_, col);
  int n = sqlite3_column_bytes(stmt_, col);
  std::vector<unsigned char> out(static_cast<std::size_t>(n));
  if (n > 0) std::memcpy(out.data(), p, out.size());
  return out;
}

Db::Db(const std::string& path, std::chrono::milliseconds busy_timeout, Mode mode)
    : path_(path), busy_timeout_(busy_timeout) {
  install_file_locks();  // before the first connection: SQLite's locks immune to other close()s
  // NOMUTEX: one connection belongs to one thread (see docs/store.md), so SQLite's own
  // per-connection mutex would only cost time.
  int rc = sqlite3_open_v2(path.c_str(), &db_,
                           SQLITE_OPEN_READWRITE | (mode == Mode::Create ? SQLITE_OPEN_CREATE : 0) |
                               SQLITE_OPEN_NOMUTEX,
                           nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close(db_);
    db_ = nullptr;
    throw core::Error(path, "cannot open run store: " + msg);
  }
  sqlite3_extended_result_codes(db_, 1);
  sqlite3_busy_timeout(db_, static_cast<int>(busy_timeout.count()));
}

Db::~Db() {
  cache_.clear();  // finalize every statement before closing
  sqlite3_close(db_);
}

void Db::keep_file_untouched() {
  int on = 0;
  sqlite3_db_config(db_, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, &on);
}

Stmt& Db::stmt(const char* sql) {
  auto it = cache_.find(sql);
  if (it != cache_.end()) return *it->second;
  sqlite3_stmt* raw = nullptr;
  int rc = sqlite3_prepare_v3(db_, sql, -1, SQLITE_PREPARE_PERSISTENT, &raw, nullptr);
  if (rc != SQLITE_OK) fail(std::string("cannot prepare [") + sql + "]", rc);
  auto stmt = std::make_unique<Stmt>(*this, raw);
  Stmt& ref = *stmt;
  cache_.emplace(sql, std::move(stmt));
  return ref;
}

void Db::exec_script(const char* sql) {
  const char* tail = sql;
  while (tail && *tail) {
    sqlite3_stmt* raw = nullptr;
    const char* next = nullptr;
    int rc = sqlite3_prepare_v2(db_, tail, -1, &raw, &next);
    if (rc != SQLITE_OK) fail(std::string("cannot prepare script [") + tail + "]", rc);
    if (!raw) break;  // only whitespace or comments left
    Stmt stmt(*this, raw);  // finalized at the end of this iteration
    stmt.run();
    tail = next;
  }
}

std::int64_t Db::last_insert_rowid() const { return sqlite3_last_insert_rowid(db_); }

int Db::changes() const { return sqlite3_changes(db_); }

void Db::fail(const std::string& what, int rc) const {
  std::string detail = sqlite3_errmsg(db_);
  std::string code = sqlite3_errstr(rc);
  if (detail != code) detail += " (" + code + ")";
  if ((rc & 0xff) == SQLITE_CORRUPT)
    detail += "; the run store is damaged: `pha runs recover <project folder>` copies what can still be read "
              "into a new store (docs/store.md)";
  throw core::Error(path_, what + ": " + detail);
}

namespace {

// Steps a BEGIN IMMEDIATE / COMMIT, retrying on SQLITE_BUSY until the deadline. The busy
// handler already waits busy_timeout inside each attempt; the loop covers the cases where
// SQLite returns BUSY without calling it (e.g. a lock upgrade that could deadlock).
void step_with_retry(Db& db, Stmt& stmt, const char* what) {
  auto deadline = std::chrono::steady_clock::now() + 2 * db.busy_timeout();
  for (;;) {
    int rc = stmt.step_rc();
    stmt.reset();
    if (rc == SQLITE_DONE) return;
    if ((rc & 0xff) != SQLITE_BUSY || std::chrono::steady_clock::now() > deadline) {
      db.fail(what, rc);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

}  // namespace

Transaction::Transaction(Db& db, Kind kind) : db_(db) {
  if (kind == Kind::Write) {
    step_with_retry(db_, db_.stmt("BEGIN IMMEDIATE"), "cannot begin write transaction");
  } else {
    StmtScope s(db_.stmt("BEGIN"));
    s->run();
  }
  open_ = true;
}

Transaction::~Transaction() {
  if (!open_) return;
  try {
    Stmt& rollback = db_.stmt("ROLLBACK");
    rollback.step_rc();  // best effort: nothing more to do if it fails while unwinding
    rollback.reset();
  } catch (...) {
  }
}

void Transaction::commit() {
  step_with_retry(db_, db_.stmt("COMMIT"), "cannot commit transaction");
  open_ = false;
}

}  // namespace pha::store::detail
