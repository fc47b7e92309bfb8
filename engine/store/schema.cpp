#include "store/internal/schema.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "store/internal/series.h"
#include "store/sqlite_db.h"

namespace pha::store::detail {

namespace {

// Version 1: the schema of the workbench spec.
constexpr const char* kSchemaV1 = R"sql(
CREATE TABLE runs(
  id INTEGER PRIMARY KEY,
  project TEXT NOT NULL DEFAULT '',
  name TEXT NOT NULL,
  variant TEXT NOT NULL DEFAULT '',
  status TEXT NOT NULL CHECK(status IN ('queued','running','finished','failed','cancelled',
                                        'diverged','interrupted')),
  config_json TEXT NOT NULL DEFAULT '{}',
  config_hash TEXT NOT NULL DEFAULT '',
  n_params INTEGER NOT NULL DEFAULT 0,
  device TEXT NOT NULL DEFAULT '',
  created_at INTEGER NOT NULL,
  started_at INTEGER,
  ended_at INTEGER,
  error TEXT);
CREATE INDEX runs_project ON runs(project, id);
CREATE TABLE metric_keys(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE metrics(
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  key_id INTEGER NOT NULL REFERENCES metric_keys(id),
  step INTEGER NOT NULL,
  tokens INTEGER NOT NULL,
  wall_ms INTEGER NOT NULL,
  value REAL,
  PRIMARY KEY(run_id, key_id, step)) WITHOUT ROWID;
CREATE TABLE run_summary(
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  key_id INTEGER NOT NULL REFERENCES metric_keys(id),
  last REAL, min REAL, max REAL, best_step INTEGER,
  PRIMARY KEY(run_id, key_id)) WITHOUT ROWID;
CREATE TABLE mixer_snapshots(
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  step INTEGER NOT NULL,
  layers INTEGER NOT NULL,
  branches INTEGER NOT NULL,
  weights BLOB NOT NULL,
  PRIMARY KEY(run_id, step)) WITHOUT ROWID;
CREATE TABLE perf(
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  seq_len INTEGER NOT NULL, batch INTEGER NOT NULL, tokens_per_s REAL NOT NULL,
  peak_bytes INTEGER NOT NULL, device TEXT NOT NULL, phase TEXT NOT NULL);
CREATE INDEX perf_run ON perf(run_id);
CREATE TABLE evals(
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  step INTEGER NOT NULL, task TEXT NOT NULL, seq_len INTEGER NOT NULL,
  metric TEXT NOT NULL, value REAL);
CREATE INDEX evals_run ON evals(run_id, task, seq_len);
CREATE TABLE checkpoints(
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  step INTEGER NOT NULL, path TEXT NOT NULL, bytes INTEGER NOT NULL, sha256 TEXT NOT NULL);
CREATE INDEX checkpoints_run ON checkpoints(run_id, step);
)sql";

// Version 2: crash detection (pid, host, heartbeat), notes and tags, metric goals, summary
// count / last_step, perf method, and the rollups that make downsampled reads fast.
constexpr const char* kSchemaV2 = R"sql(
ALTER TABLE runs ADD COLUMN pid INTEGER;
ALTER TABLE runs ADD COLUMN host TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN heartbeat_at INTEGER;
ALTER TABLE runs ADD COLUMN notes TEXT NOT NULL DEFAULT '';
CREATE INDEX runs_status ON runs(status);
CREATE TABLE run_tags(
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  tag TEXT NOT NULL,
  PRIMARY KEY(run_id, tag)) WITHOUT ROWID;
CREATE INDEX run_tags_tag ON run_tags(tag, run_id);
ALTER TABLE metric_keys ADD COLUMN goal INTEGER NOT NULL DEFAULT 0 CHECK(goal IN (0, 1));
ALTER TABLE run_summary ADD COLUMN count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE run_summary ADD COLUMN last_step INTEGER;
ALTER TABLE perf ADD COLUMN method TEXT NOT NULL DEFAULT '';
CREATE TABLE metric_rollups(
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  key_id INTEGER NOT NULL,
  level INTEGER NOT NULL,
  bucket INTEGER NOT NULL,
  n INTEGER NOT NULL,
  vmin REAL, vmax REAL,
  first_step INTEGER NOT NULL, first_tokens INTEGER NOT NULL, first_wall INTEGER NOT NULL,
  last_step INTEGER NOT NULL, last_tokens INTEGER NOT NULL, last_wall INTEGER NOT NULL,
  last_value REAL,
  PRIMARY KEY(run_id, key_id, level, bucket)) WITHOUT ROWID;
)sql";

// Version 3: what a run is (RunKind; the set is enforced by the code, docs/store.md). Legacy
// rows are training runs, except the efficiency profiles that version-2 programs wrote: those
// are recognised once, here, by what profile_store wrote for them (a name "profile: <model>"
// AND a config {"profile": {"points": [...]}}), so that a training run whose name merely starts
// with "profile: " stays a training run. Nothing reads names after this.
constexpr const char* kSchemaV3 = R"sql(
ALTER TABLE runs ADD COLUMN kind TEXT NOT NULL DEFAULT 'train';
CREATE INDEX runs_kind ON runs(kind, id);
UPDATE runs SET kind = 'profile'
  WHERE substr(name, 1, 9) = 'profile: '
    AND (CASE WHEN json_valid(config_json) THEN json_type(config_json, '$.profile.points') END) = 'array';
)sql";

// Version 4: seeded replicas (docs/store.md, "Groups"). run_group names the replicas' group (a
// project's run name without its seed: "pha-tiny" for "pha-tiny/seed=1"), seed the training
// seed. A legacy training run is a group of one, its own name, with the seed its config
// recorded (training.seed); profile runs belong to no group ('').
constexpr const char* kSchemaV4 = R"sql(
ALTER TABLE runs ADD COLUMN run_group TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN seed INTEGER;
CREATE INDEX runs_group ON runs(project, run_group, id);
UPDATE runs SET run_group = name,
  seed = CASE WHEN json_valid(config_json) THEN
           CASE WHEN json_type(config_json, '$.training.seed') = 'integer'
                THEN json_extract(config_json, '$.training.seed') END END
  WHERE kind = 'train';
)sql";

// Version 5: data-parallel runs (docs/distributed.md). world_size is how many processes
// trained the run, backend the collective backend ("gloo", "nccl"); every legacy run was one
// process ('' backend).
constexpr const char* kSchemaV5 = R"sql(
ALTER TABLE runs ADD COLUMN world_size INTEGER NOT NULL DEFAULT 1;
ALTER TABLE runs ADD COLUMN backend TEXT NOT NULL DEFAULT '';
)sql";

// Version 6: the decisions of architecture searches (docs/search.md). One row per trial and
// rung once the rung is decided: its objective values per seed, promoted / stopped / failed and
// why, and the runs that measured it. The runs themselves are ordinary training runs; a
// resumed search recomputes its decisions from them and rewrites these rows.
constexpr const char* kSchemaV6 = R"sql(
CREATE TABLE search_decisions(
  project TEXT NOT NULL,
  search TEXT NOT NULL,
  bracket INTEGER NOT NULL,
  rung INTEGER NOT NULL,
  trial INTEGER NOT NULL,
  resource REAL NOT NULL,
  label TEXT NOT NULL,
  decision TEXT NOT NULL,
  why TEXT NOT NULL,
  values_json TEXT NOT NULL,
  runs_json TEXT NOT NULL,
  decided_at INTEGER NOT NULL,
  PRIMARY KEY(project, search, bracket, rung, trial)) WITHOUT ROWID;
)sql";

// Version 7: run provenance (docs/store.md, "Provenance"). env_json is a flat JSON object of
// what produced the run's numbers (resolved precision and why, kernels, threads, BLAS, LibTorch,
// device, CPU, program version and commit, host); runs of older programs recorded none ('{}').
constexpr const char* kSchemaV7 = R"sql(
ALTER TABLE runs ADD COLUMN env_json TEXT NOT NULL DEFAULT '{}';
)sql";

// Version 8: the hybrid lens's measurements of a run's checkpoint (docs/lens.md): effective
// branch weights and branch knock-outs, per layer and branch, over all tokens and per token
// class. One set per run: measuring again replaces the rows of the same key.
constexpr const char* kSchemaV8 = R"sql(
CREATE TABLE lens_results(
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  kind TEXT NOT NULL,
  layer INTEGER NOT NULL,
  branch TEXT NOT NULL,
  class TEXT NOT NULL,
  step INTEGER NOT NULL,
  value REAL NOT NULL,
  tokens INTEGER NOT NULL,
  source TEXT NOT NULL,
  measured_at INTEGER NOT NULL,
  PRIMARY KEY(run_id, kind, layer, branch, class)) WITHOUT ROWID;
)sql";

// Version 9: pre-registration (store/registration_store.h, docs/report.md "Registration"): a
// project's claims and design, recorded once when its first run starts. Older stores have none;
// their reports say the design was never registered.
constexpr const char* kSchemaV9 = R"sql(
CREATE TABLE registrations(
  project TEXT NOT NULL PRIMARY KEY,
  registered_at INTEGER NOT NULL,
  design_json TEXT NOT NULL,
  design_hash TEXT NOT NULL,
  runs_before INTEGER NOT NULL,
  first_run_at INTEGER NOT NULL) WITHOUT ROWID;
)sql";

void migrate_0_to_1(Db& db) { db.exec_script(kSchemaV1); }

void migrate_1_to_2(Db& db) {
  db.exec_script(kSchemaV2);
  // Rebuild summaries (count, last_step) and rollups of every existing series.
  std::vector<std::pair<std::int64_t, std::int64_t>> series;
  {
    StmtScope s(db.stmt("SELECT DISTINCT run_id, key_id FROM metrics ORDER BY run_id, key_id"));
    while (s->step()) series.emplace_back(s->i64(0), s->i64(1));
  }
  for (const auto& [run, key] : series) rebuild_series(db, run, key, /*from_step=*/0);
}

void migrate_2_to_3(Db& db) { db.exec_script(kSchemaV3); }

void migrate_3_to_4(Db& db) { db.exec_script(kSchemaV4); }

void migrate_4_to_5(Db& db) { db.exec_script(kSchemaV5); }

void migrate_5_to_6(Db& db) { db.exec_script(kSchemaV6); }

void migrate_6_to_7(Db& db) { db.exec_script(kSchemaV7); }

void migrate_7_to_8(Db& db) { db.exec_script(kSchemaV8); }

void migrate_8_to_9(Db& db) { db.exec_script(kSchemaV9); }

// A new version: a kSchemaV<n> script (ALTER TABLE ... ADD COLUMN with a default that is right
// for the old rows, plus any UPDATE that classifies them), a migrate_<n-1>_to_<n>, one entry
// here, and Store::kSchemaVersion.
using Migration = void (*)(Db&);
// kMigrations[v] takes a store from version v to v + 1.
constexpr Migration kMigrations[] = {migrate_0_to_1, migrate_1_to_2, migrate_2_to_3, migrate_3_to_4,
                                     migrate_4_to_5, migrate_5_to_6, migrate_6_to_7,
                                     migrate_7_to_8, migrate_8_to_9};
constexpr int kMigrationCount = sizeof(kMigrations) / sizeof(kMigrations[0]);

bool table_exists(Db& db, const char* name) {
  StmtScope s(db.stmt("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?1"));
  s->bind(1, std::string(name));
  return s->step();
}

int object_count(Db& db) {
  StmtScope s(db.stmt("SELECT count(*) FROM sqlite_schema"));
  s->step();
  return static_cast<int>(s->i64(0));
}

}  // namespace

int read_schema_version(Db& db) {
  if (!table_exists(db, "schema_version")) {
    if (object_count(db) > 0) {
      throw core::Error(db.path(), "not a PHA run store (an SQLite database without a schema_version "
                             "table)");
    }
    return 0;
  }
  StmtScope s(db.stmt("SELECT version FROM schema_version"));
  if (!s->step()) throw core::Error(db.path(), "run store schema_version table is empty");
  return static_cast<int>(s->i64(0));
}

void ensure_schema(Db& db, int target_version) {
  static_assert(kMigrationCount == 9, "one migration per schema version (Store::kSchemaVersion)");
  auto check_newer = [&](int version) {
    if (version > target_version) {
      throw core::Error(db.path(), "run store schema version " + std::to_string(version) +
                                 " is newer than this program supports (" +
                                 std::to_string(target_version) +
                                 "); open it with a newer PHA Workbench");
    }
  };
  {
    // Cheap read first: the common case needs no write lock at all.
    Transaction read(db, Transaction::Kind::Read);
    int version = read_schema_version(db);
    check_newer(version);
    read.commit();
    if (version == target_version) return;
  }
  Transaction tx(db, Transaction::Kind::Write);
  int version = read_schema_version(db);  // another connection may have migrated meanwhile
  check_newer(version);
  if (version == target_version) return;
  if (version == 0) db.exec_script("CREATE TABLE schema_version(version INTEGER NOT NULL)");
  for (int v = version; v < target_version; ++v) kMigrations[v](db);
  {
    StmtScope del(db.stmt("DELETE FROM schema_version"));
    del->run();
    StmtScope ins(db.stmt("INSERT INTO schema_version(version) VALUES(?1)"));
    ins->bind(1, target_version);
    ins->run();
  }
  tx.commit();
}

}  // namespace pha::store::detail
