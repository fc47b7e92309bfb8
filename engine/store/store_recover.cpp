// Recovery of a damaged store (store_recover.h). SQLite reads a table through its b-tree; a
// damaged page makes every read that passes through it fail, so each table is read in key
// order and, where a read fails, the reader probes further keys (doubling the gap) until one
// reads again, then reads backwards to the failure to pick up what lies between: everything
// reachable around the damaged pages is saved. Rows are checked before they are copied (a
// page referenced from the wrong tree yields rows of the wrong shape), copied once (a page
// referenced twice yields duplicates), and only when their run and metric key were saved.
// Summaries and rollups are derived data: they are rebuilt from the saved points, never
// copied. Secondary indexes are never read (a damaged index lists rows that are not there).
#include "store/store_recover.h"

#include <fcntl.h>
#include <signal.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <utility>

#include "core/error.h"
#include "store/internal/series.h"
#include "store/sqlite_db.h"
#include "store/store.h"

namespace pha::store {

namespace fs = std::filesystem;
using detail::Db;

namespace {

// A prepared statement on a raw connection, finalized with its scope.
class Query {
 public:
  Query(sqlite3* db, const char* sql) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK) {
      error_ = sqlite3_errmsg(db);
      stmt_ = nullptr;
    }
  }
  ~Query() { sqlite3_finalize(stmt_); }
  Query(const Query&) = delete;
  Query& operator=(const Query&) = delete;
  bool ok() const { return stmt_ != nullptr; }
  const std::string& prepare_error() const { return error_; }
  sqlite3_stmt* get() { return stmt_; }
  void bind_all(const std::vector<std::int64_t>& values) {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
    for (size_t i = 0; i < values.size(); ++i) sqlite3_bind_int64(stmt_, static_cast<int>(i + 1), values[i]);
  }

 private:
  sqlite3_stmt* stmt_ = nullptr;
  std::string error_;
};

using RowFn = std::function<void(sqlite3_stmt*)>;

std::string step_error(sqlite3* db, int rc) {
  std::string msg = sqlite3_errmsg(db);
  const std::string code = sqlite3_errstr(rc);
  return msg == code ? msg : msg + " (" + code + ")";
}

// A step that ended on an error (not SQLITE_DONE): one more unreadable stretch, the first error kept.
void note_unreadable(sqlite3* db, int rc, TableRecovery& out) {
  ++out.unreadable;
  if (out.error.empty()) out.error = step_error(db, rc);
}

// Reads what it can of one key range. `asc` selects the rows with key > ?(n+1) in ascending
// key order under the fixed prefix ?1..?n; `desc` those with ?(n+1) < key <= ?(n+2), in
// descending order. Keys are >= 0. `row` gets every row read; `key_col` is the key's column.
void scan_range(sqlite3* db, Query& asc, Query& desc, const std::vector<std::int64_t>& prefix, int key_col,
                const RowFn& row, TableRecovery& out) {
  auto with = [&](std::vector<std::int64_t> tail) {
    std::vector<std::int64_t> v = prefix;
    v.insert(v.end(), tail.begin(), tail.end());
    return v;
  };
  auto note = [&](int rc) { note_unreadable(db, rc, out); };
  std::int64_t after = -1;
  for (;;) {
    asc.bind_all(with({after}));
    int rc;
    while ((rc = sqlite3_step(asc.get())) == SQLITE_ROW) {
      row(asc.get());
      // Never backwards, even if a damaged tree hands back keys out of order: every pass ends
      // or moves the cursor forward.
      after = std::max<std::int64_t>(after, sqlite3_column_int64(asc.get(), key_col));
    }
    if (rc == SQLITE_DONE) return;
    note(rc);
    // Probe past the damage: the first key above after + gap that a fresh descent can reach.
    bool resumed = false;
    for (int shift = 0; shift < 62; ++shift) {  // gaps 1, 2, 4, ... 2^61 (no signed overflow)
      const std::int64_t gap = std::int64_t{1} << shift;
      if (after > INT64_MAX - gap) break;
      const std::int64_t probe = after + gap;
      asc.bind_all(with({probe}));
      const int prc = sqlite3_step(asc.get());
      if (prc != SQLITE_ROW && prc != SQLITE_DONE) continue;
      // Readable again above `probe` (or nothing is there): collect (after, probe] backwards.
      desc.bind_all(with({after, probe}));
      int drc;
      while ((drc = sqlite3_step(desc.get())) == SQLITE_ROW) row(desc.get());
      if (drc != SQLITE_DONE) note(drc);
      if (prc == SQLITE_DONE) return;
      after = probe;
      resumed = true;
      break;
    }
    if (!resumed) return;
  }
}

// Column checks: the damaged file may hand back rows of another table's pages.
bool is_int(sqlite3_stmt* s, int c) { return sqlite3_column_type(s, c) == SQLITE_INTEGER; }
bool is_text(sqlite3_stmt* s, int c) { return sqlite3_column_type(s, c) == SQLITE_TEXT; }
bool is_null(sqlite3_stmt* s, int c) { return sqlite3_column_type(s, c) == SQLITE_NULL; }
bool is_real(sqlite3_stmt* s, int c) {
  const int t = sqlite3_column_type(s, c);
  return t == SQLITE_FLOAT || t == SQLITE_INTEGER;
}
bool int_or_null(sqlite3_stmt* s, int c) { return is_int(s, c) || is_null(s, c); }
bool text_or_null(sqlite3_stmt* s, int c) { return is_text(s, c) || is_null(s, c); }
bool real_or_null(sqlite3_stmt* s, int c) { return is_real(s, c) || is_null(s, c); }
std::string text_of(sqlite3_stmt* s, int c) {
  const unsigned char* p = sqlite3_column_text(s, c);
  return p ? std::string(reinterpret_cast<const char*>(p), static_cast<size_t>(sqlite3_column_bytes(s, c))) : "";
}

// Copies one read row into the new store: INSERT OR IGNORE (a duplicate key is a duplicate).
class Copier {
 public:
  Copier(Db& dst, const char* insert_sql, int columns, TableRecovery& out)
      : dst_(dst), insert_(dst.raw(), insert_sql), columns_(columns), out_(out) {
    if (!insert_.ok()) throw core::Error(dst.path(), "cannot prepare the recovery insert: " + insert_.prepare_error());
  }
  // True when the row was saved.
  bool copy(sqlite3_stmt* row) {
    sqlite3_stmt* ins = insert_.get();
    sqlite3_reset(ins);
    sqlite3_clear_bindings(ins);
    for (int c = 0; c < columns_; ++c) sqlite3_bind_value(ins, c + 1, sqlite3_column_value(row, c));
    const int rc = sqlite3_step(ins);
    if (rc != SQLITE_DONE) {
      ++out_.rejected;
      return false;
    }
    if (sqlite3_changes(dst_.raw()) == 0) {
      ++out_.duplicates;
      return false;
    }
    ++out_.saved;
    return true;
  }
  void reject() { ++out_.rejected; }

 private:
  Db& dst_;
  Query insert_;
  int columns_;
  TableRecovery& out_;
};

constexpr const char* kRunColumns =
    "id, project, name, variant, status, config_json, config_hash, n_params, device, created_at, started_at, "
    "ended_at, error, pid, host, heartbeat_at, notes, kind, run_group, seed, world_size, backend";

bool valid_run(sqlite3_stmt* s) {
  static const std::set<std::string> statuses = {"queued", "running", "finished", "failed",
                                                 "cancelled", "diverged", "interrupted"};
  static const std::set<std::string> kinds = {"train", "profile"};
  return is_int(s, 0) && is_text(s, 1) && is_text(s, 2) && is_text(s, 3) && is_text(s, 4) &&
         statuses.count(text_of(s, 4)) && is_text(s, 5) && is_text(s, 6) && is_int(s, 7) && is_text(s, 8) &&
         is_int(s, 9) && int_or_null(s, 10) && int_or_null(s, 11) && text_or_null(s, 12) && int_or_null(s, 13) &&
         is_text(s, 14) && int_or_null(s, 15) && is_text(s, 16) && is_text(s, 17) && kinds.count(text_of(s, 17)) &&
         is_text(s, 18) && int_or_null(s, 19) && is_int(s, 20) && is_text(s, 21);
}

struct Copy {
  sqlite3* src;
  Db& dst;
  RecoveryReport& report;
  std::map<std::int64_t, RunRecovery> runs;
  std::set<std::int64_t> keys;
  std::set<std::pair<std::int64_t, std::int64_t>> series;

  TableRecovery& table(const char* name) {
    TableRecovery t;
    t.table = name;
    report.tables.push_back(t);
    return report.tables.back();
  }
  bool prepared(Query& q, TableRecovery& t) {
    if (q.ok()) return true;
    ++t.unreadable;
    if (t.error.empty()) t.error = q.prepare_error();
    return false;
  }

  // A rowid table read in id order (NOT INDEXED: never through a secondary index).
  void rowid_table(const char* name, const std::string& columns, int ncols, const std::function<bool(sqlite3_stmt*)>& valid,
                   const std::function<void(sqlite3_stmt*)>& saved) {
    TableRecovery& t = table(name);
    const std::string from = std::string(" FROM ") + name + " NOT INDEXED WHERE id > ?1";
    const std::string asc = "SELECT " + columns + from + " ORDER BY id";
    const std::string desc = "SELECT " + columns + from + " AND id <= ?2 ORDER BY id DESC";
    const std::string ins = std::string("INSERT OR IGNORE INTO ") + name + "(" + columns + ") VALUES(" + placeholders(ncols) + ")";
    Query qa(src, asc.c_str()), qd(src, desc.c_str());
    if (!prepared(qa, t) || !prepared(qd, t)) return;
    Copier copier(dst, ins.c_str(), ncols, t);
    scan_range(src, qa, qd, {}, 0, [&](sqlite3_stmt* row) {
      if (!valid(row)) return copier.reject();
      if (copier.copy(row)) saved(row);
    }, t);
  }

  static std::string placeholders(int n) {
    std::string p;
    for (int i = 1; i <= n; ++i) p += (i > 1 ? ", ?" : "?") + std::to_string(i);
    return p;
  }

  bool run_saved(sqlite3_stmt* s, int col) { return is_int(s, col) && runs.count(sqlite3_column_int64(s, col)); }

  // Stores of version 7 carry runs.env_json (provenance); older ones have none (the copy gets '{}').
  void copy_runs(bool with_env) {
    const std::string columns = std::string(kRunColumns) + (with_env ? ", env_json" : "");
    const auto valid = [with_env](sqlite3_stmt* s) { return valid_run(s) && (!with_env || is_text(s, 22)); };
    rowid_table("runs", columns, with_env ? 23 : 22, valid, [&](sqlite3_stmt* s) {
      RunRecovery r;
      r.id = sqlite3_column_int64(s, 0);
      r.name = text_of(s, 2);
      r.status = text_of(s, 4);
      runs[r.id] = r;
    });
  }

  void copy_metric_keys() {
    rowid_table("metric_keys", "id, name, goal", 3,
                [](sqlite3_stmt* s) { return is_int(s, 0) && is_text(s, 1) && is_int(s, 2); },
                [&](sqlite3_stmt* s) { keys.insert(sqlite3_column_int64(s, 0)); });
  }

  void copy_tags() {
    TableRecovery& t = table("run_tags");
    Query q(src, "SELECT run_id, tag FROM run_tags WHERE run_id = ?1 ORDER BY tag");
    if (!prepared(q, t)) return;
    Copier copier(dst, "INSERT OR IGNORE INTO run_tags(run_id, tag) VALUES(?1, ?2)", 2, t);
    for (const auto& [id, run] : runs) {
      q.bind_all({id});
      int rc;
      while ((rc = sqlite3_step(q.get())) == SQLITE_ROW) {
        if (is_int(q.get(), 0) && sqlite3_column_int64(q.get(), 0) == id && is_text(q.get(), 1))
          copier.copy(q.get());
        else
          copier.reject();
      }
      if (rc != SQLITE_DONE) note_unreadable(src, rc, t);
    }
  }

  // The projects' registrations (version 9): every readable row, whatever runs survived (a
  // registration predates its runs and is what the report's "registered" line rests on).
  void copy_registrations() {
    TableRecovery& t = table("registrations");
    Query q(src, "SELECT project, registered_at, design_json, design_hash, runs_before, first_run_at FROM registrations");
    if (!prepared(q, t)) return;
    Copier copier(dst,
                  "INSERT OR IGNORE INTO registrations(project, registered_at, design_json, design_hash, runs_before, "
                  "first_run_at) VALUES(?1, ?2, ?3, ?4, ?5, ?6)",
                  6, t);
    int rc;
    while ((rc = sqlite3_step(q.get())) == SQLITE_ROW) {
      if (is_text(q.get(), 0) && is_int(q.get(), 1) && is_text(q.get(), 2) && is_text(q.get(), 3) && is_int(q.get(), 4) &&
          is_int(q.get(), 5))
        copier.copy(q.get());
      else
        copier.reject();
    }
    if (rc != SQLITE_DONE) note_unreadable(src, rc, t);
  }

  // A per-run WITHOUT ROWID table keyed (prefix..., step): each run (and key) read on its own.
  void stepped_table(const char* name, const std::string& columns, int ncols, const std::string& prefix_where,
                     const std::vector<std::vector<std::int64_t>>& prefixes, int step_col,
                     const std::function<bool(sqlite3_stmt*)>& valid, const std::function<void(sqlite3_stmt*)>& saved) {
    TableRecovery& t = table(name);
    const int n = static_cast<int>(prefixes.empty() ? 0 : prefixes.front().size());
    const std::string from = std::string(" FROM ") + name + " WHERE " + prefix_where + " AND step > ?" + std::to_string(n + 1);
    const std::string asc = "SELECT " + columns + from + " ORDER BY step";
    const std::string desc = "SELECT " + columns + from + " AND step <= ?" + std::to_string(n + 2) + " ORDER BY step DESC";
    const std::string ins = std::string("INSERT OR IGNORE INTO ") + name + "(" + columns + ") VALUES(" + placeholders(ncols) + ")";
    Query qa(src, asc.c_str()), qd(src, desc.c_str());
    if (!prepared(qa, t) || !prepared(qd, t)) return;
    Copier copier(dst, ins.c_str(), ncols, t);
    for (const auto& prefix : prefixes) {
      scan_range(src, qa, qd, prefix, step_col, [&](sqlite3_stmt* row) {
        for (int i = 0; i < n; ++i)  // a row of another tree has other keys
          if (!is_int(row, i) || sqlite3_column_int64(row, i) != prefix[static_cast<size_t>(i)]) return copier.reject();
        if (!valid(row)) return copier.reject();
        if (copier.copy(row)) saved(row);
      }, t);
    }
  }

  void copy_metrics() {
    std::vector<std::vector<std::int64_t>> prefixes;
    for (const auto& [run, info] : runs)
      for (std::int64_t key : keys) prefixes.push_back({run, key});
    stepped_table("metrics", "run_id, key_id, step, tokens, wall_ms, value", 6, "run_id = ?1 AND key_id = ?2", prefixes, 2,
                  [](sqlite3_stmt* s) { return is_int(s, 2) && is_int(s, 3) && is_int(s, 4) && real_or_null(s, 5); },
                  [&](sqlite3_stmt* s) {
                    const auto run = sqlite3_column_int64(s, 0);
                    ++runs[run].points;
                    series.emplace(run, sqlite3_column_int64(s, 1));
                  });
  }

  void copy_mixer() {
    std::vector<std::vector<std::int64_t>> prefixes;
    for (const auto& [run, info] : runs) prefixes.push_back({run});
    stepped_table("mixer_snapshots", "run_id, step, layers, branches, weights", 5, "run_id = ?1", prefixes, 1,
                  [](sqlite3_stmt* s) {
                    if (!is_int(s, 1) || !is_int(s, 2) || !is_int(s, 3) || sqlite3_column_type(s, 4) != SQLITE_BLOB)
                      return false;
                    const auto layers = sqlite3_column_int64(s, 2), branches = sqlite3_column_int64(s, 3);
                    return layers > 0 && branches > 0 && layers * branches * 4 == sqlite3_column_bytes(s, 4);
                  },
                  [&](sqlite3_stmt* s) { ++runs[sqlite3_column_int64(s, 0)].mixer; });
  }

  void copy_per_run_rows() {
    rowid_table("perf", "id, run_id, seq_len, batch, tokens_per_s, peak_bytes, device, phase, method", 9,
                [&](sqlite3_stmt* s) {
                  return is_int(s, 0) && run_saved(s, 1) && is_int(s, 2) && is_int(s, 3) && is_real(s, 4) &&
                         is_int(s, 5) && is_text(s, 6) && is_text(s, 7) && is_text(s, 8);
                },
                [&](sqlite3_stmt* s) { ++runs[sqlite3_column_int64(s, 1)].perf; });
    rowid_table("evals", "id, run_id, step, task, seq_len, metric, value", 7,
                [&](sqlite3_stmt* s) {
                  return is_int(s, 0) && run_saved(s, 1) && is_int(s, 2) && is_text(s, 3) && is_int(s, 4) &&
                         is_text(s, 5) && real_or_null(s, 6);
                },
                [&](sqlite3_stmt* s) { ++runs[sqlite3_column_int64(s, 1)].evals; });
    rowid_table("checkpoints", "id, run_id, step, path, bytes, sha256", 6,
                [&](sqlite3_stmt* s) {
                  return is_int(s, 0) && run_saved(s, 1) && is_int(s, 2) && is_text(s, 3) && is_int(s, 4) &&
                         is_text(s, 5);
                },
                [&](sqlite3_stmt* s) { ++runs[sqlite3_column_int64(s, 1)].checkpoints; });
  }
};

std::string utc_stamp() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", &tm);
  return buf;
}

void fsync_dir(const fs::path& dir) {
  const int fd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
}

void remove_store_files(const std::string& path) {
  std::error_code ec;
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) fs::remove(path + suffix, ec);
}

std::int64_t single_int(sqlite3* db, const char* sql, std::int64_t fallback) {
  Query q(db, sql);
  if (!q.ok() || sqlite3_step(q.get()) != SQLITE_ROW || !is_int(q.get(), 0)) return fallback;
  return sqlite3_column_int64(q.get(), 0);
}

// A run marked running whose writer is alive on this host: recovering under it would lose
// what it writes next.
void refuse_live_writers(sqlite3* src, const std::string& path) {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  Query q(src, "SELECT id, name, pid, host FROM runs NOT INDEXED WHERE status = 'running'");
  if (!q.ok()) return;  // the runs table is unreadable: nothing says a writer is alive
  while (sqlite3_step(q.get()) == SQLITE_ROW) {
    const auto pid = sqlite3_column_int64(q.get(), 2);
    if (pid > 0 && text_of(q.get(), 3) == host && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM))
      throw core::Error(path, "run " + std::to_string(sqlite3_column_int64(q.get(), 0)) + " (\"" + text_of(q.get(), 1) +
                            "\") is still being written by process " + std::to_string(pid) +
                            ": stop it (or let it finish) before recovering the store");
  }
}

}  // namespace

RecoveryReport recover_store(const std::string& path, const RecoverOptions& options) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) throw core::Error(path, "no run store here to recover");
  RecoveryReport report;
  report.store_path = path;
  report.problems = quick_check(path);
  if (report.problems.empty() && !options.force)
    throw core::Error(path, "the run store passes PRAGMA quick_check: nothing to recover (--force rebuilds it anyway)");

  const std::string tmp = path + ".recovering";
  remove_store_files(tmp);  // what an interrupted recovery left
  {
    Db src(path, std::chrono::milliseconds(5000), Db::Mode::Existing);
    src.keep_file_untouched();
    const std::int64_t version = single_int(src.raw(), "SELECT version FROM schema_version", Store::kSchemaVersion);
    // Version 6 only added search_decisions, which recovery does not salvage (a rerun of the
    // search rewrites it): a version-5 store's tables are read the same way. Version 7 added
    // runs.env_json, copied when the store has it.
    if (version < 5 || version > Store::kSchemaVersion)
      throw core::Error(path, "run store schema version " + std::to_string(version) + ": this program recovers versions 5 to " +
                            std::to_string(Store::kSchemaVersion) + " only");
    refuse_live_writers(src.raw(), path);

    OpenOptions fresh;
    fresh.recover_interrupted = false;
    Store out = Store::open(tmp, fresh);
    Db& dst = out.db();
    detail::Transaction tx(dst, detail::Transaction::Kind::Write);
    Copy copy{src.raw(), dst, report, {}, {}, {}};
    copy.copy_runs(version >= 7);
    if (copy.runs.empty()) {
      remove_store_files(tmp);
      throw core::Error(path, "no run could be read from the damaged store (" +
                            (report.tables.front().error.empty() ? std::string("the runs table is empty")
                                                                 : report.tables.front().error) +
                            "); the file is left as it was");
    }
    copy.copy_metric_keys();
    copy.copy_tags();
    copy.copy_metrics();
    copy.copy_mixer();
    copy.copy_per_run_rows();
    if (version >= 9) copy.copy_registrations();
    for (const auto& [run, key] : copy.series) detail::rebuild_series(dst, run, key, 0);
    tx.commit();
    for (const auto& [id, r] : copy.runs) report.runs.push_back(r);
  }  // both connections closed: the new store is one file, the damaged one as it was
  {
    OpenOptions check;
    check.recover_interrupted = false;
    Store out = Store::open(tmp, check);
    report.integrity = out.integrity_check();
  }
  if (report.integrity != "ok") {
    remove_store_files(tmp);
    throw core::Error(path, "the recovered copy fails PRAGMA integrity_check (" + report.integrity +
                          "); the damaged file is left as it was");
  }

  const std::string aside = path + ".damaged-" + utc_stamp();
  for (const char* suffix : {"", "-wal", "-shm"}) {
    const std::string from = path + suffix;
    if (!fs::exists(from, ec)) continue;
    fs::rename(from, aside + suffix, ec);
    if (ec) throw core::Error(from, "cannot keep the damaged file aside as " + aside + suffix + ": " + ec.message());
    report.kept_files.push_back(aside + suffix);
  }
  fs::rename(tmp, path, ec);
  if (ec) throw core::Error(path, "cannot put the recovered store in place (it is at " + tmp + "): " + ec.message());
  fsync_dir(fs::path(path).parent_path());
  report.damaged_path = aside;
  return report;
}

}  // namespace pha::store
