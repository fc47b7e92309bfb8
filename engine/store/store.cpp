#include "store/store.h"

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <thread>
#include <nlohmann/json.hpp>

#include "core/error.h"
#include "store/internal/schema.h"
#include "store/run_manage.h"
#include "store/internal/series.h"
#include "store/sqlite_db.h"
#include "store/internal/store_impl.h"

namespace pha::store {

using detail::Db;
using detail::StmtScope;
using detail::Transaction;

namespace detail {

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::int64_t find_key_id(Db& db, const std::string& name) {
  StmtScope s(db.stmt("SELECT id FROM metric_keys WHERE name = ?1"));
  s->bind(1, name);
  return s->step() ? s->i64(0) : -1;
}

}  // namespace detail

namespace {

std::string host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof(buf) - 1) != 0) return {};
  return buf;
}

// Columns of RunInfo in the order read_run() expects; config_json is chosen per query.
#define PHA_RUN_COLUMNS                                                                        \
  "r.id, r.project, r.name, r.variant, r.status, r.config_hash, r.n_params, r.device, "       \
  "r.created_at, r.started_at, r.ended_at, r.error, r.pid, r.host, r.heartbeat_at, r.notes, "   \
  "r.kind, r.run_group, r.seed, r.world_size, r.backend, r.env_json, "
constexpr int kRunColumnCount = 23;  // including the config_json column that follows

RunInfo read_run(const detail::Stmt& s) {
  auto opt_i64 = [&](int c) { return s.is_null(c) ? std::int64_t{0} : s.i64(c); };
  RunInfo r;
  r.id = s.i64(0);
  r.project = s.text(1);
  r.name = s.text(2);
  r.variant = s.text(3);
  r.status = run_status_from_string(s.text(4));
  r.config_hash = s.text(5);
  r.n_params = s.i64(6);
  r.device = s.text(7);
  r.created_at = s.i64(8);
  r.started_at = opt_i64(9);
  r.ended_at = opt_i64(10);
  r.error = s.text(11);
  r.pid = opt_i64(12);
  r.host = s.text(13);
  r.heartbeat_at = opt_i64(14);
  r.notes = s.text(15);
  r.kind = run_kind_from_string(s.text(16));
  r.group = s.text(17);
  r.seed = s.is_null(18) ? -1 : s.i64(18);
  r.world_size = static_cast<int>(s.i64(19));
  r.backend = s.text(20);
  r.env_json = s.text(21);
  r.config_json = s.text(22);
  return r;
}

// Strips "path: " from an error that already names the file, to re-wrap it once.
std::string message_of(const core::Error& e, const std::string& path) {
  std::string what = e.what();
  if (e.where() == path && what.size() > path.size() + 2) return what.substr(path.size() + 2);
  return what;
}

void apply_pragmas(Db& db) {
  // journal_mode is the first statement that reads the file: garbage fails here.
  // Two processes opening a new store at once (runs side by side, a search's workers): the
  // switch to WAL can return SQLITE_BUSY without calling the busy handler; it is retried.
  std::string mode;
  const auto deadline = std::chrono::steady_clock::now() + 2 * db.busy_timeout();
  for (;;) {
    detail::Stmt& st = db.stmt("PRAGMA journal_mode=WAL");
    const int rc = st.step_rc();
    if (rc == SQLITE_ROW) mode = st.text(0);
    st.reset();
    if (rc == SQLITE_ROW || rc == SQLITE_DONE) break;
    if ((rc & 0xff) != SQLITE_BUSY || std::chrono::steady_clock::now() > deadline)
      db.fail("statement failed [PRAGMA journal_mode=WAL]", rc);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (mode != "wal") {
    throw core::Error(db.path(), "cannot switch the run store to WAL journal mode (got '" + mode +
                               "'); the store needs a local file system");
  }
  db.exec_script("PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON;");
}

// PRAGMA quick_check's rows ("ok" alone when sound). A check that cannot even read the file
// (SQLITE_CORRUPT, SQLITE_NOTADB on a page) is itself the problem.
std::vector<std::string> run_quick_check(Db& db) {
  std::vector<std::string> problems;
  try {
    StmtScope s(db.stmt("PRAGMA quick_check(20)"));
    while (s->step()) {
      std::string line = s->text(0);
      if (line != "ok") problems.push_back(line);
    }
  } catch (const core::Error& e) {
    problems.push_back(message_of(e, db.path()));
  }
  // SQLite returns its problems as one row per problem, the first prefixed "*** in database
  // main ***\n" when there are several databases; keep the problems themselves.
  std::vector<std::string> lines;
  for (const auto& p : problems) {
    size_t start = 0;
    while (start <= p.size()) {
      size_t nl = p.find('\n', start);
      std::string line = p.substr(start, nl == std::string::npos ? std::string::npos : nl - start);
      if (!line.empty() && line.rfind("*** in database", 0) != 0) lines.push_back(line);
      if (nl == std::string::npos) break;
      start = nl + 1;
    }
  }
  return lines;
}

std::string damage_message(const std::vector<std::string>& problems) {
  std::string first = problems.empty() ? std::string("unknown damage") : problems.front();
  std::string more = problems.size() > 1 ? "; and " + std::to_string(problems.size() - 1) +
                                               (problems.size() >= 20 ? " or more" : "") + " more problems"
                                         : "";
  return "the run store is damaged (PRAGMA quick_check: " + first + more +
         "). The file is kept untouched: nothing is written to it. `pha runs recover <project folder>` "
         "copies what can still be read into a new store and keeps this file beside it (docs/store.md)";
}

struct Suspect {
  std::int64_t id;
  std::string reason;
  std::int64_t last_seen;
};

// Runs marked running whose writer is gone: its pid is not alive on this host, or its
// heartbeat (started_at / created_at when it never flushed) is older than stale_heartbeat.
std::vector<Suspect> find_dead_runs(Db& db, const OpenOptions& options) {
  const std::string me = host_name();
  const std::int64_t now = detail::now_ms();
  std::vector<Suspect> dead;
  StmtScope s(db.stmt(
      "SELECT id, pid, host, coalesce(heartbeat_at, started_at, created_at) FROM runs "
      "WHERE status = 'running'"));
  while (s->step()) {
    std::int64_t id = s->i64(0);
    std::int64_t pid = s->is_null(1) ? 0 : s->i64(1);
    std::string host = s->text(2);
    std::int64_t seen = s->i64(3);
    if (pid > 0 && host == me && kill(static_cast<pid_t>(pid), 0) == -1 && errno == ESRCH) {
      dead.push_back({id, "writer process " + std::to_string(pid) + " on " + host +
                              " ended without finishing the run", seen});
    } else if (now - seen > options.stale_heartbeat.count()) {
      dead.push_back({id, "no heartbeat from the writer for " +
                              std::to_string((now - seen) / 1000) + " s", seen});
    }
  }
  return dead;
}

std::vector<std::int64_t> recover_interrupted(Db& db, const OpenOptions& options) {
  std::vector<Suspect> dead;
  {
    Transaction read(db, Transaction::Kind::Read);
    dead = find_dead_runs(db, options);
    read.commit();
  }
  std::vector<std::int64_t> marked;
  if (dead.empty()) return marked;
  Transaction tx(db, Transaction::Kind::Write);
  for (const Suspect& d : dead) {
    // status = 'running' again: another opener may have recovered it first.
    StmtScope s(db.stmt(
        "UPDATE runs SET status = 'interrupted', ended_at = ?2, error = ?3 "
        "WHERE id = ?1 AND status = 'running'"));
    s->bind(1, d.id).bind(2, d.last_seen).bind(3, d.reason);
    s->run();
    if (db.changes() > 0) marked.push_back(d.id);
  }
  tx.commit();
  return marked;
}

}  // namespace

Store::Store() : impl_(std::make_unique<Impl>()) {}
Store::Store(Store&&) noexcept = default;
Store& Store::operator=(Store&&) noexcept = default;
Store::~Store() = default;

Store Store::open(const std::string& path, const OpenOptions& options) {
  Store store;
  store.impl_->options = options;
  try {
    store.impl_->db = std::make_unique<Db>(path, options.busy_timeout);
    Db& db = *store.impl_->db;
    try {
      apply_pragmas(db);
    } catch (const core::Error&) {
      // Damage can show as early as the first statement (a broken schema page); a file that is
      // not SQLite at all stays the plain error it is.
      if (options.verify) {
        auto problems = run_quick_check(db);
        const bool not_sqlite = !problems.empty() && problems.front().find("file is not a database") != std::string::npos;
        if (!problems.empty() && !not_sqlite) {
          db.keep_file_untouched();
          throw DamagedStore(path, std::move(problems));
        }
      }
      throw;
    }
    if (options.verify) {
      if (auto problems = run_quick_check(db); !problems.empty()) {
        db.keep_file_untouched();
        throw DamagedStore(path, std::move(problems));
      }
    }
    detail::ensure_schema(db, kSchemaVersion);
    if (options.recover_interrupted) store.impl_->recovered = recover_interrupted(db, options);
  } catch (const DamagedStore&) {
    throw;
  } catch (const core::Error& e) {
    throw core::Error(path, "cannot open run store: " + message_of(e, path));
  }
  return store;
}

DamagedStore::DamagedStore(const std::string& path, std::vector<std::string> problems)
    : core::Error(path, damage_message(problems)), problems_(std::move(problems)) {}

std::vector<std::string> quick_check(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return {};  // nothing there yet
  Db db(path, std::chrono::milliseconds(5000), Db::Mode::Existing);
  db.keep_file_untouched();  // a check never checkpoints, whatever it finds
  return run_quick_check(db);
}

const std::string& Store::path() const { return impl_->db->path(); }

int Store::schema_version() { return detail::read_schema_version(db()); }

const std::vector<std::int64_t>& Store::recovered_runs() const { return impl_->recovered; }

detail::Db& Store::db() { return *impl_->db; }

std::int64_t Store::create_run(const NewRun& run) {
  StmtScope s(db().stmt(
      "INSERT INTO runs(project, name, variant, status, config_json, config_hash, n_params, "
      "device, created_at, kind, run_group, seed, world_size, backend, env_json) "
      "VALUES(?1, ?2, ?3, 'queued', ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)"));
  s->bind(1, run.project).bind(2, run.name).bind(3, run.variant).bind(4, run.config_json);
  s->bind(5, run.config_hash).bind(6, run.n_params).bind(7, run.device);
  s->bind(8, detail::now_ms()).bind(9, std::string(to_string(run.kind))).bind(10, run.group);
  if (run.seed >= 0) {
    s->bind(11, run.seed);
  } else {
    s->bind_null(11);
  }
  s->bind(12, static_cast<std::int64_t>(run.world_size)).bind(13, run.backend);
  s->bind(14, run.env_json.empty() ? std::string("{}") : run.env_json);
  s->run();
  return db().last_insert_rowid();
}

std::optional<RunInfo> Store::get_run(std::int64_t run_id) {
  StmtScope s(db().stmt("SELECT " PHA_RUN_COLUMNS "r.config_json FROM runs r WHERE r.id = ?1"));
  s->bind(1, run_id);
  if (!s->step()) return std::nullopt;
  return read_run(*s);
}

std::vector<RunListEntry> Store::list_runs(const RunListQuery& query) {
  // One statement: runs x requested keys (json_each keeps the order), left-joined to their
  // summaries. Rows of one run are adjacent because the order is by run id.
#define PHA_LIST_SQL(ORDER)                                                                    \
  "SELECT " PHA_RUN_COLUMNS                                                                    \
  "CASE WHEN ?2 THEN r.config_json ELSE '' END, k.ord, s.last, s.min, s.max, s.best_step, "   \
  "s.last_step, s.count "                                                                      \
  "FROM runs r "                                                                               \
  "LEFT JOIN (SELECT j.key AS ord, mk.id AS key_id FROM json_each(?3) j "                      \
  "           JOIN metric_keys mk ON mk.name = j.value) k ON 1 "                               \
  "LEFT JOIN run_summary s ON s.run_id = r.id AND s.key_id = k.key_id "                        \
  "WHERE (?1 IS NULL OR r.project = ?1) AND (?4 IS NULL OR r.kind = ?4) "                    \
  "AND (?5 IS NULL OR r.run_group = ?5) ORDER BY r.id " ORDER
  const char* sql = query.newest_first ? PHA_LIST_SQL("DESC") : PHA_LIST_SQL("ASC");
#undef PHA_LIST_SQL
  StmtScope s(db().stmt(sql));
  if (query.project) {
    s->bind(1, *query.project);
  } else {
    s->bind_null(1);
  }
  s->bind(2, query.include_config ? 1 : 0);
  s->bind(3, nlohmann::json(query.summary_keys).dump());
  if (query.kind) {
    s->bind(4, std::string(to_string(*query.kind)));
  } else {
    s->bind_null(4);
  }
  if (query.group) {
    s->bind(5, *query.group);
  } else {
    s->bind_null(5);
  }

  std::vector<RunListEntry> out;
  const int c = kRunColumnCount;
  while (s->step()) {
    std::int64_t id = s->i64(0);
    if (out.empty() || out.back().run.id != id) {
      out.push_back(RunListEntry{read_run(*s), {}});
      out.back().summaries.resize(query.summary_keys.size());
    }
    if (s->is_null(c) || s->is_null(c + 6)) continue;  // key never written, or not by this run
    auto ord = static_cast<std::size_t>(s->i64(c));
    MetricSummary m;
    m.key = query.summary_keys[ord];
    m.last = s->f64(c + 1);
    m.min = s->f64(c + 2);
    m.max = s->f64(c + 3);
    m.best_step = s->is_null(c + 4) ? -1 : s->i64(c + 4);
    m.last_step = s->is_null(c + 5) ? -1 : s->i64(c + 5);
    m.count = s->i64(c + 6);
    out.back().summaries[ord] = m;
  }
  return out;
}

std::vector<RunGroupInfo> Store::list_groups(const GroupListQuery& query) {
  StmtScope s(db().stmt(
      "SELECT project, run_group, count(*), sum(status = 'finished'), "
      "count(DISTINCT CASE WHEN status = 'finished' THEN coalesce(seed, -1) END), min(id), max(id) "
      "FROM runs WHERE run_group <> '' AND (?1 IS NULL OR project = ?1) AND (?2 IS NULL OR kind = ?2) "
      "GROUP BY project, run_group ORDER BY min(id)"));
  if (query.project) {
    s->bind(1, *query.project);
  } else {
    s->bind_null(1);
  }
  if (query.kind) {
    s->bind(2, std::string(to_string(*query.kind)));
  } else {
    s->bind_null(2);
  }
  std::vector<RunGroupInfo> out;
  while (s->step())
    out.push_back(RunGroupInfo{s->text(0), s->text(1), s->i64(2), s->i64(3), s->i64(4), s->i64(5), s->i64(6)});
  return out;
}

void Store::set_status(std::int64_t run_id, RunStatus status, const std::string& error) {
  const std::int64_t now = detail::now_ms();
  StmtScope s(db().stmt(
      "UPDATE runs SET status = ?2, error = nullif(?3, ''), "
      "started_at = CASE WHEN ?2 = 'running' THEN coalesce(started_at, ?4) ELSE started_at END, "
      "ended_at = CASE WHEN ?5 THEN ?4 ELSE NULL END WHERE id = ?1"));
  s->bind(1, run_id).bind(2, std::string(to_string(status))).bind(3, error).bind(4, now);
  s->bind(5, is_terminal(status) ? 1 : 0);
  s->run();
  if (db().changes() == 0) throw core::Error(path(), "no run with id " + std::to_string(run_id));
}

void Store::rename_run(std::int64_t run_id, const std::string& name) {
  if (name.find_first_not_of(" \t\r\n") == std::string::npos) throw core::Error("name", "a run name cannot be empty");
  StmtScope s(db().stmt("UPDATE runs SET name = ?2 WHERE id = ?1"));
  s->bind(1, run_id).bind(2, name);
  s->run();
  if (db().changes() == 0) throw core::Error(path(), "no run with id " + std::to_string(run_id));
}

void Store::set_notes(std::int64_t run_id, const std::string& notes) {
  StmtScope s(db().stmt("UPDATE runs SET notes = ?2 WHERE id = ?1"));
  s->bind(1, run_id).bind(2, notes);
  s->run();
  if (db().changes() == 0) throw core::Error(path(), "no run with id " + std::to_string(run_id));
}

void Store::set_env(std::int64_t run_id, const std::string& env_json) {
  StmtScope s(db().stmt("UPDATE runs SET env_json = ?2 WHERE id = ?1"));
  s->bind(1, run_id).bind(2, env_json.empty() ? std::string("{}") : env_json);
  s->run();
  if (db().changes() == 0) throw core::Error(path(), "no run with id " + std::to_string(run_id));
}

void Store::set_run_times(std::int64_t run_id, std::int64_t started_at, std::int64_t ended_at) {
  StmtScope s(db().stmt("UPDATE runs SET started_at = ?2, ended_at = ?3 WHERE id = ?1"));
  s->bind(1, run_id).bind(2, started_at).bind(3, ended_at);
  s->run();
  if (db().changes() == 0) throw core::Error(path(), "no run with id " + std::to_string(run_id));
}

void Store::add_tag(std::int64_t run_id, const std::string& tag) {
  check_tag(tag);
  if (!get_run(run_id)) throw core::Error(path(), "no run with id " + std::to_string(run_id));
  StmtScope s(db().stmt("INSERT OR IGNORE INTO run_tags(run_id, tag) VALUES(?1, ?2)"));
  s->bind(1, run_id).bind(2, tag);
  s->run();
}

void Store::remove_tag(std::int64_t run_id, const std::string& tag) {
  StmtScope s(db().stmt("DELETE FROM run_tags WHERE run_id = ?1 AND tag = ?2"));
  s->bind(1, run_id).bind(2, tag);
  s->run();
}

std::vector<std::string> Store::tags(std::int64_t run_id) {
  StmtScope s(db().stmt("SELECT tag FROM run_tags WHERE run_id = ?1 ORDER BY tag"));
  s->bind(1, run_id);
  std::vector<std::string> out;
  while (s->step()) out.push_back(s->text(0));
  return out;
}

std::vector<std::pair<std::int64_t, std::string>> Store::all_tags() {
  StmtScope s(db().stmt("SELECT run_id, tag FROM run_tags ORDER BY run_id, tag"));
  std::vector<std::pair<std::int64_t, std::string>> out;
  while (s->step()) out.emplace_back(s->i64(0), s->text(1));
  return out;
}

// The one delete path (run_manage.cpp): one transaction, a running run refused; the files stay.
void Store::delete_run(std::int64_t run_id) { delete_runs(*this, {run_id}, DeleteOptions{/*keep_files=*/true}); }

void Store::record_evals(std::int64_t run_id, const std::vector<EvalRow>& rows) {
  Transaction tx(db(), Transaction::Kind::Write);
  {
    StmtScope s(db().stmt("SELECT 1 FROM runs WHERE id = ?1"));
    s->bind(1, run_id);
    if (!s->step()) throw core::Error(path(), "no run with id " + std::to_string(run_id));
  }
  for (const EvalRow& e : rows) {
    {
      StmtScope d(db().stmt(
          "DELETE FROM evals WHERE run_id = ?1 AND step = ?2 AND task = ?3 AND seq_len = ?4 AND metric = ?5"));
      d->bind(1, run_id).bind(2, e.step).bind(3, e.task).bind(4, e.seq_len).bind(5, e.metric);
      d->run();
    }
    StmtScope s(db().stmt(
        "INSERT INTO evals(run_id, step, task, seq_len, metric, value) VALUES(?1, ?2, ?3, ?4, ?5, ?6)"));
    s->bind(1, run_id).bind(2, e.step).bind(3, e.task).bind(4, e.seq_len).bind(5, e.metric).bind(6, e.value);
    s->run();
  }
  tx.commit();
}

void Store::define_metric_key(const std::string& name, Goal goal) {
  const int wanted = goal == Goal::Maximize ? 1 : 0;
  Transaction tx(db(), Transaction::Kind::Write);
  std::int64_t key = detail::find_key_id(db(), name);
  if (key < 0) {
    StmtScope s(db().stmt("INSERT INTO metric_keys(name, goal) VALUES(?1, ?2)"));
    s->bind(1, name).bind(2, wanted);
    s->run();
  } else if (detail::key_goal(db(), key) != goal) {
    StmtScope s(db().stmt("UPDATE metric_keys SET goal = ?2 WHERE id = ?1"));
    s->bind(1, key).bind(2, wanted);
    s->run();
    // best_step depends on the goal: recompute the summaries already written for this key.
    std::vector<std::int64_t> runs;
    {
      StmtScope r(db().stmt("SELECT run_id FROM run_summary WHERE key_id = ?1"));
      r->bind(1, key);
      while (r->step()) runs.push_back(r->i64(0));
    }
    for (std::int64_t run : runs) detail::rebuild_series(db(), run, key, INT64_MAX);
  }
  tx.commit();
}

std::string Store::integrity_check() {
  StmtScope s(db().stmt("PRAGMA integrity_check"));
  std::string out;
  while (s->step()) {
    if (!out.empty()) out += '\n';
    out += s->text(0);
  }
  return out;
}

}  // namespace pha::store
