// Schema v5: the world size and collective backend of data-parallel runs, and the v4 -> v5
// migration of a store the version-4 program wrote (tests/engine/store/data/README.md).
#include <gtest/gtest.h>

#include <filesystem>
#include <iterator>
#include <string>

#include <sqlite3.h>

#include "store/store.h"
#include "store_test_util.h"

namespace ps = pha::store;
using ps::test::TempDir;

namespace {

int scalar(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  sqlite3_open(path.c_str(), &db);
  sqlite3_stmt* st = nullptr;
  int v = -1;
  if (sqlite3_prepare_v2(db, sql.c_str(), -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
    v = sqlite3_column_int(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(db);
  return v;
}

}  // namespace

TEST(StoreWorldSize, ANewRunRecordsItsWorldSizeAndBackend) {
  TempDir dir;
  ps::Store store = ps::Store::open(dir.file("runs.sqlite"));
  ps::NewRun one;
  one.project = "p";
  one.name = "single";
  ps::NewRun dp = one;
  dp.name = "data-parallel";
  dp.world_size = 4;
  dp.backend = "gloo";
  const auto a = store.create_run(one), b = store.create_run(dp);
  EXPECT_EQ(store.get_run(a)->world_size, 1);
  EXPECT_EQ(store.get_run(a)->backend, "");
  EXPECT_EQ(store.get_run(b)->world_size, 4);
  EXPECT_EQ(store.get_run(b)->backend, "gloo");
  ps::RunListQuery q;
  q.newest_first = false;
  const auto runs = store.list_runs(q);
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[1].run.world_size, 4);
  EXPECT_EQ(runs[1].run.backend, "gloo");
}

// tests/engine/store/data/store-v4.sqlite: written by the version-4 program (README.md there).
TEST(StoreWorldSize, MigratesAStoreWrittenByVersionFourAsOneProcessRunsKeepingEveryRow) {
  TempDir dir;
  const std::string path = dir.file("runs.sqlite");
  std::filesystem::copy_file(PHA_STORE_FIXTURES "/store-v4.sqlite", path);
  ASSERT_EQ(scalar(path, "SELECT version FROM schema_version"), 4);
  const char* tables[] = {"runs", "metrics", "checkpoints", "mixer_snapshots", "evals"};
  const int expected_rows[] = {3, 98, 3, 5, 9};  // README.md
  for (size_t i = 0; i < std::size(tables); ++i)
    ASSERT_EQ(scalar(path, std::string("SELECT count(*) FROM ") + tables[i]), expected_rows[i]) << tables[i];

  ps::Store store = ps::Store::open(path);
  EXPECT_EQ(store.schema_version(), ps::Store::kSchemaVersion);  // through 5 and on
  EXPECT_EQ(store.integrity_check(), "ok");
  for (size_t i = 0; i < std::size(tables); ++i)
    EXPECT_EQ(scalar(path, std::string("SELECT count(*) FROM ") + tables[i]), expected_rows[i]) << tables[i];
  ps::RunListQuery q;
  q.newest_first = false;
  const auto runs = store.list_runs(q);
  ASSERT_EQ(runs.size(), 3u);
  const char* names[] = {"pha", "transformer", "pha"};
  for (size_t i = 0; i < runs.size(); ++i) {
    EXPECT_EQ(runs[i].run.name, names[i]);
    EXPECT_EQ(runs[i].run.world_size, 1) << runs[i].run.name;
    EXPECT_EQ(runs[i].run.backend, "") << runs[i].run.name;
    EXPECT_EQ(runs[i].run.group, runs[i].run.name);  // the v4 columns survive
    EXPECT_EQ(runs[i].run.seed, 0);
  }
  EXPECT_EQ(store.checkpoints(1).size(), 1u);
  EXPECT_EQ(store.mixer_steps(1).size(), 2u);

  ps::NewRun nr;
  nr.project = "legacy-v4";
  nr.name = "pha";
  nr.world_size = 2;
  nr.backend = "gloo";
  const auto id = store.create_run(nr);
  EXPECT_EQ(ps::Store::open(path).get_run(id)->world_size, 2);
}
