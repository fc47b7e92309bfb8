// Schema creation, migration from version 1, and refusal of files that are not (our) stores.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>
#include <random>

#include "core/error.h"
#include "store/run_writer.h"
#include "store/store.h"
#include "store_test_util.h"

namespace ps = pha::store;
using ps::test::raw_exec;
using ps::test::TempDir;

namespace {

int scalar(const std::string& path, const char* sql) {
  sqlite3* db = nullptr;
  sqlite3_open(path.c_str(), &db);
  sqlite3_stmt* st = nullptr;
  int v = -1;
  if (sqlite3_prepare_v2(db, sql, -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
    v = sqlite3_column_int(st, 0);
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return v;
}

std::string text_scalar(const std::string& path, const char* sql) {
  sqlite3* db = nullptr;
  sqlite3_open(path.c_str(), &db);
  sqlite3_stmt* st = nullptr;
  std::string v;
  if (sqlite3_prepare_v2(db, sql, -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
    v = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
  }
  sqlite3_finalize(st);
  sqlite3_close(db);
  return v;
}

// The version-1 schema as the first release wrote it (kept here by hand on purpose: the
// fixture must not change when the code's migrations do).
constexpr const char* kV1Fixture = R"sql(
PRAGMA journal_mode=WAL;
CREATE TABLE schema_version(version INTEGER NOT NULL);
INSERT INTO schema_version VALUES(1);
CREATE TABLE runs(id INTEGER PRIMARY KEY, project TEXT NOT NULL DEFAULT '', name TEXT NOT NULL,
  variant TEXT NOT NULL DEFAULT '', status TEXT NOT NULL CHECK(status IN ('queued','running',
  'finished','failed','cancelled','diverged','interrupted')), config_json TEXT NOT NULL DEFAULT '{}',
  config_hash TEXT NOT NULL DEFAULT '', n_params INTEGER NOT NULL DEFAULT 0,
  device TEXT NOT NULL DEFAULT '', created_at INTEGER NOT NULL, started_at INTEGER,
  ended_at INTEGER, error TEXT);
CREATE INDEX runs_project ON runs(project, id);
CREATE TABLE metric_keys(id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE metrics(run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  key_id INTEGER NOT NULL REFERENCES metric_keys(id), step INTEGER NOT NULL,
  tokens INTEGER NOT NULL, wall_ms INTEGER NOT NULL, value REAL,
  PRIMARY KEY(run_id, key_id, step)) WITHOUT ROWID;
CREATE TABLE run_summary(run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  key_id INTEGER NOT NULL REFERENCES metric_keys(id), last REAL, min REAL, max REAL,
  best_step INTEGER, PRIMARY KEY(run_id, key_id)) WITHOUT ROWID;
CREATE TABLE mixer_snapshots(run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  step INTEGER NOT NULL, layers INTEGER NOT NULL, branches INTEGER NOT NULL,
  weights BLOB NOT NULL, PRIMARY KEY(run_id, step)) WITHOUT ROWID;
CREATE TABLE perf(id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  seq_len INTEGER NOT NULL, batch INTEGER NOT NULL, tokens_per_s REAL NOT NULL,
  peak_bytes INTEGER NOT NULL, device TEXT NOT NULL, phase TEXT NOT NULL);
CREATE INDEX perf_run ON perf(run_id);
CREATE TABLE evals(id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  step INTEGER NOT NULL, task TEXT NOT NULL, seq_len INTEGER NOT NULL, metric TEXT NOT NULL, value REAL);
CREATE INDEX evals_run ON evals(run_id, task, seq_len);
CREATE TABLE checkpoints(id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  step INTEGER NOT NULL, path TEXT NOT NULL, bytes INTEGER NOT NULL, sha256 TEXT NOT NULL);
CREATE INDEX checkpoints_run ON checkpoints(run_id, step);
INSERT INTO runs(id, project, name, variant, status, config_json, n_params, device, created_at,
  started_at, ended_at) VALUES(7, 'p', 'old run', 'pha', 'finished', '{"a":1}', 1234, 'cpu', 1000, 1100, 9000);
INSERT INTO metric_keys VALUES(1, 'train/loss');
WITH RECURSIVE c(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM c WHERE i < 4999)
  INSERT INTO metrics SELECT 7, 1, i, i * 100, i * 10, 5.0 - i * 0.001 FROM c;
UPDATE metrics SET value = 42.0 WHERE step = 1234;
INSERT INTO run_summary VALUES(7, 1, 0.001, 0.001, 42.0, 4999);
INSERT INTO perf VALUES(1, 7, 512, 8, 1500.5, 123456, 'cpu', 'train');
)sql";

}  // namespace

TEST(StoreSchema, NewStoreHasCurrentVersionAndPragmas) {
  TempDir dir;
  const std::string path = dir.file("runs.sqlite");
  {
    ps::Store store = ps::Store::open(path);
    EXPECT_EQ(store.schema_version(), ps::Store::kSchemaVersion);
    EXPECT_EQ(store.integrity_check(), "ok");
  }
  EXPECT_EQ(scalar(path, "SELECT version FROM schema_version"), ps::Store::kSchemaVersion);
  EXPECT_EQ(text_scalar(path, "PRAGMA journal_mode"), "wal");
  for (const char* table : {"runs", "metric_keys", "metrics", "run_summary", "mixer_snapshots",
                            "perf", "evals", "checkpoints", "metric_rollups", "run_tags"}) {
    std::string sql = std::string("SELECT count(*) FROM sqlite_schema WHERE name = '") + table + "'";
    EXPECT_EQ(scalar(path, sql.c_str()), 1) << table;
  }
  // Opening again neither fails nor changes the version.
  ps::Store again = ps::Store::open(path);
  EXPECT_EQ(again.schema_version(), ps::Store::kSchemaVersion);
}

TEST(StoreSchema, MigratesVersionOneKeepingData) {
  TempDir dir;
  const std::string path = dir.file("v1.sqlite");
  raw_exec(path, kV1Fixture);
  ps::Store store = ps::Store::open(path);
  EXPECT_EQ(store.schema_version(), ps::Store::kSchemaVersion);
  EXPECT_EQ(store.integrity_check(), "ok");

  auto run = store.get_run(7);
  ASSERT_TRUE(run);
  EXPECT_EQ(run->name, "old run");
  EXPECT_EQ(run->kind, ps::RunKind::Train);
  EXPECT_EQ(run->status, ps::RunStatus::Finished);
  EXPECT_EQ(run->config_json, "{\"a\":1}");
  EXPECT_EQ(run->n_params, 1234);
  EXPECT_EQ(run->pid, 0);  // new column, no value for old runs
  EXPECT_EQ(run->notes, "");

  auto full = store.read_metric_full(7, "train/loss");
  ASSERT_EQ(full.size(), 5000u);
  EXPECT_DOUBLE_EQ(full[1234].value, 42.0);
  // Summary columns new in v2 were rebuilt from the points.
  auto sum = store.summary(7, "train/loss");
  ASSERT_TRUE(sum);
  EXPECT_EQ(sum->count, 5000);
  EXPECT_EQ(sum->last_step, 4999);
  EXPECT_DOUBLE_EQ(sum->max, 42.0);
  EXPECT_EQ(sum->best_step, 4999);
  // Rollups were built: a coarse read sees the spike and the true last point.
  auto buckets = store.read_metric(7, "train/loss", 20);
  ASSERT_FALSE(buckets.empty());
  EXPECT_LE(buckets.size(), 20u);
  double top = 0;
  for (const auto& b : buckets) top = std::max(top, b.max);
  EXPECT_DOUBLE_EQ(top, 42.0);
  EXPECT_EQ(buckets.back().step_last, 4999);

  auto perf = store.perf(7);
  ASSERT_EQ(perf.size(), 1u);
  EXPECT_EQ(perf[0].seq_len, 512);
  EXPECT_EQ(perf[0].method, "");

  // The migrated store takes new writes through the v2 paths.
  ps::RunWriter w(store, 7);
  w.metric("train/loss", 5000, 500000, 50000, 0.0005);
  w.finish(ps::RunStatus::Finished);
  EXPECT_EQ(store.summary(7, "train/loss")->count, 5001);
}

// tests/engine/store/data/store-v2.sqlite: written by the version-2 program (README.md there).
TEST(StoreSchema, MigratesAStoreWrittenByVersionTwoKeepingEveryRowAndClassifyingItsRuns) {
  TempDir dir;
  const std::string path = dir.file("runs.sqlite");
  std::filesystem::copy_file(PHA_STORE_FIXTURES "/store-v2.sqlite", path);
  ASSERT_EQ(scalar(path, "SELECT version FROM schema_version"), 2);
  const char* tables[] = {"runs", "metrics", "evals", "perf", "checkpoints", "mixer_snapshots",
                          "metric_rollups", "run_summary", "metric_keys", "run_tags"};
  std::vector<int> before;
  for (const char* t : tables) before.push_back(scalar(path, (std::string("SELECT count(*) FROM ") + t).c_str()));
  EXPECT_EQ(before[0], 5);

  ps::Store store = ps::Store::open(path);
  EXPECT_EQ(store.schema_version(), ps::Store::kSchemaVersion);
  EXPECT_EQ(store.integrity_check(), "ok");
  for (size_t i = 0; i < std::size(tables); ++i)
    EXPECT_EQ(scalar(path, (std::string("SELECT count(*) FROM ") + tables[i]).c_str()), before[i]) << tables[i];

  // Legacy profiles (name and config as profile_store wrote them) become kind profile; the
  // training run that was renamed "profile: lookalike" stays a training run.
  ps::RunListQuery q;
  q.newest_first = false;
  q.summary_keys = {"train/loss"};
  const auto runs = store.list_runs(q);
  ASSERT_EQ(runs.size(), 5u);
  const ps::RunKind expected[] = {ps::RunKind::Train, ps::RunKind::Train, ps::RunKind::Train, ps::RunKind::Profile,
                                  ps::RunKind::Profile};
  for (size_t i = 0; i < runs.size(); ++i) EXPECT_EQ(runs[i].run.kind, expected[i]) << runs[i].run.name;
  EXPECT_EQ(runs[1].run.name, "profile: lookalike");
  EXPECT_EQ(runs[2].run.status, ps::RunStatus::Diverged);
  q.kind = ps::RunKind::Profile;
  EXPECT_EQ(store.list_runs(q).size(), 2u);

  // The old records read back through the current API.
  ASSERT_TRUE(runs[0].summaries[0]);
  EXPECT_EQ(runs[0].summaries[0]->count, 4);
  EXPECT_EQ(store.read_metric_full(1, "train/loss").size(), 4u);
  EXPECT_EQ(store.evals(1).size(), 9u);
  EXPECT_EQ(store.perf(4).size(), 2u);
  EXPECT_FALSE(store.perf(4)[0].method.empty());
  EXPECT_EQ(store.checkpoints(1).size(), 1u);
  EXPECT_EQ(store.mixer_steps(1).size(), 2u);
  EXPECT_EQ(store.tags(1), std::vector<std::string>{"baseline"});
  EXPECT_EQ(store.get_run(1)->notes, "kept for the migration test");

  // Through v4: every training run is a group of one under its own name, with its recorded seed.
  EXPECT_EQ(runs[0].run.group, "pha");
  EXPECT_EQ(runs[0].run.seed, 1);
  EXPECT_EQ(runs[1].run.group, "profile: lookalike");
  EXPECT_EQ(runs[3].run.group, "");
  EXPECT_EQ(runs[3].run.seed, -1);

  // New runs and records go through the current paths; opening again is a no-op.
  ps::NewRun nr;
  nr.name = "after";
  nr.kind = ps::RunKind::Profile;
  const std::int64_t id = store.create_run(nr);
  EXPECT_EQ(store.get_run(id)->kind, ps::RunKind::Profile);
  EXPECT_EQ(ps::Store::open(path).list_runs().size(), 6u);
}

// tests/engine/store/data/store-v3.sqlite: written by the version-3 program (README.md there).
TEST(StoreSchema, MigratesAStoreWrittenByVersionThreeKeepingEveryRowAndGroupingItsTrainingRuns) {
  TempDir dir;
  const std::string path = dir.file("runs.sqlite");
  std::filesystem::copy_file(PHA_STORE_FIXTURES "/store-v3.sqlite", path);
  ASSERT_EQ(scalar(path, "SELECT version FROM schema_version"), 3);
  const char* tables[] = {"runs", "metrics", "evals", "perf", "checkpoints", "mixer_snapshots",
                          "metric_rollups", "run_summary", "metric_keys", "run_tags"};
  const int expected_rows[] = {5, 98, 15, 8, 3, 5, 132, 44, 16, 1};  // README.md
  for (size_t i = 0; i < std::size(tables); ++i)
    ASSERT_EQ(scalar(path, (std::string("SELECT count(*) FROM ") + tables[i]).c_str()), expected_rows[i]) << tables[i];

  ps::Store store = ps::Store::open(path);
  EXPECT_EQ(store.schema_version(), ps::Store::kSchemaVersion);
  EXPECT_EQ(store.integrity_check(), "ok");
  for (size_t i = 0; i < std::size(tables); ++i)
    EXPECT_EQ(scalar(path, (std::string("SELECT count(*) FROM ") + tables[i]).c_str()), expected_rows[i]) << tables[i];

  ps::RunListQuery q;
  q.newest_first = false;
  q.summary_keys = {"train/loss", "val/accuracy"};
  const auto runs = store.list_runs(q);
  ASSERT_EQ(runs.size(), 5u);
  // Training runs: a group of one each, named as the run, seed from training.seed; the two runs
  // named "pha" (1, and 5 trained again later) share the group. Profiles have no group.
  const char* groups[] = {"pha", "transformer", "", "", "pha"};
  const std::int64_t seeds[] = {0, 0, -1, -1, 0};
  for (size_t i = 0; i < runs.size(); ++i) {
    EXPECT_EQ(runs[i].run.group, groups[i]) << runs[i].run.name;
    EXPECT_EQ(runs[i].run.seed, seeds[i]) << runs[i].run.name;
  }
  EXPECT_EQ(runs[2].run.kind, ps::RunKind::Profile);
  ASSERT_TRUE(runs[0].summaries[0]);
  EXPECT_EQ(runs[0].summaries[0]->count, 4);
  EXPECT_EQ(store.tags(1), std::vector<std::string>{"baseline"});
  EXPECT_EQ(store.get_run(1)->notes, "kept for the migration test");
  EXPECT_EQ(store.perf(3).size(), 4u);
  EXPECT_EQ(store.mixer_steps(1).size(), 2u);

  const auto list = store.list_groups();
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0].group, "pha");
  EXPECT_EQ(list[0].project, "legacy-v3");
  EXPECT_EQ(list[0].runs, 2);
  EXPECT_EQ(list[0].finished, 2);
  EXPECT_EQ(list[0].finished_seeds, 1);
  EXPECT_EQ(list[0].first_run, 1);
  EXPECT_EQ(list[0].last_run, 5);
  EXPECT_EQ(list[1].group, "transformer");
  q.group = "pha";
  EXPECT_EQ(store.list_runs(q).size(), 2u);

  // New replicas go through the v4 paths; opening again is a no-op.
  ps::NewRun nr;
  nr.project = "legacy-v3";
  nr.name = "pha/seed=1";
  nr.group = "pha";
  nr.seed = 1;
  const std::int64_t id = store.create_run(nr);
  EXPECT_EQ(store.get_run(id)->group, "pha");
  EXPECT_EQ(store.get_run(id)->seed, 1);
  EXPECT_EQ(ps::Store::open(path).list_runs(q).size(), 3u);
}

TEST(StoreSchema, NewerVersionIsRefusedNamingTheFile) {
  TempDir dir;
  const std::string path = dir.file("future.sqlite");
  { ps::Store::open(path); }
  raw_exec(path, "UPDATE schema_version SET version = 99");
  try {
    ps::Store::open(path);
    FAIL() << "opened a store from the future";
  } catch (const pha::core::Error& e) {
    EXPECT_EQ(e.where(), path);
    EXPECT_NE(std::string(e.what()).find("99"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("newer"), std::string::npos) << e.what();
  }
}

TEST(StoreSchema, GarbageFileIsRefusedNamingTheFile) {
  TempDir dir;
  const std::string path = dir.file("garbage.sqlite");
  {
    std::ofstream out(path, std::ios::binary);
    std::mt19937 rng(7);
    for (int i = 0; i < 8192; ++i) out.put(static_cast<char>(rng() & 0xff));
  }
  try {
    ps::Store::open(path);
    FAIL() << "opened garbage";
  } catch (const pha::core::Error& e) {
    EXPECT_EQ(e.where(), path);
    EXPECT_NE(std::string(e.what()).find("not a database"), std::string::npos) << e.what();
  }
}

TEST(StoreSchema, ForeignSqliteDatabaseIsRefused) {
  TempDir dir;
  const std::string path = dir.file("other.sqlite");
  raw_exec(path, "CREATE TABLE songs(id INTEGER PRIMARY KEY, title TEXT)");
  try {
    ps::Store::open(path);
    FAIL() << "opened another program's database";
  } catch (const pha::core::Error& e) {
    EXPECT_EQ(e.where(), path);
    EXPECT_NE(std::string(e.what()).find("not a PHA run store"), std::string::npos) << e.what();
  }
  // And it was left alone.
  EXPECT_EQ(scalar(path, "SELECT count(*) FROM sqlite_schema WHERE name = 'runs'"), 0);
}

TEST(StoreSchema, UnwritableLocationIsAnError) {
  EXPECT_THROW(ps::Store::open("/nonexistent-dir-for-pha-test/runs.sqlite"), pha::core::Error);
}
