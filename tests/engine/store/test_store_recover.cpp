// Damaged stores: refused before anything is written (the file stays byte for byte as it
// was), and recovered into a new store with what SQLite can still read, the damaged file
// kept beside it. Damage is made by overwriting pages of a store the test wrote, and taken
// from the store corrupted on 2026-12-02 (data/damaged-2026-12-02.sqlite).
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <sstream>
#include <string>

#include "core/error.h"
#include "store/run_writer.h"
#include "store/store.h"
#include "store/store_recover.h"
#include "store_test_util.h"

namespace ps = pha::store;
namespace fs = std::filesystem;
using ps::test::TempDir;

namespace {

std::string bytes_of(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Pages of a table or index, from SQLite's dbstat (the b-tree as it is now).
std::vector<std::int64_t> pages_of(const std::string& path, const std::string& name, const char* type) {
  sqlite3* db = nullptr;
  sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* s = nullptr;
  sqlite3_prepare_v2(db, "SELECT pageno FROM dbstat WHERE name = ?1 AND pagetype = ?2 ORDER BY path", -1, &s, nullptr);
  sqlite3_bind_text(s, 1, name.c_str(), -1, SQLITE_TRANSIENT);
  sqlite3_bind_text(s, 2, type, -1, SQLITE_TRANSIENT);
  std::vector<std::int64_t> pages;
  while (sqlite3_step(s) == SQLITE_ROW) pages.push_back(sqlite3_column_int64(s, 0));
  sqlite3_finalize(s);
  sqlite3_close(db);
  return pages;
}

// Overwrites page `page` (1-based) with `fill` bytes, as a lost write or a stray page would.
void overwrite_page(const std::string& path, std::int64_t page, char fill) {
  const std::size_t size = 4096;
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  f.seekp(static_cast<std::streamoff>((page - 1) * size));
  const std::string junk(size, fill);
  f.write(junk.data(), static_cast<std::streamsize>(size));
}

// A closed store: 3 runs, 600 points each of two keys, evals, a checkpoint row, a tag.
std::string write_store(const TempDir& dir, int points = 600) {
  const std::string path = dir.file("runs.sqlite");
  ps::Store s = ps::Store::open(path);
  for (int r = 0; r < 3; ++r) {
    const auto id = s.create_run({"p", "run-" + std::to_string(r), "v", "{}", "", 10, "cpu"});
    s.set_env(id, R"({"precision":"fp32","kernels":"fused"})");
    ps::RunWriter w(s, id, {});
    for (int step = 0; step < points; ++step) {
      w.metric("train/loss", step, step * 8, step, 3.0 - step * 1e-3);
      w.metric("val/loss", step, step * 8, step, 3.1 - step * 1e-3);
    }
    for (int t = 0; t < 4; ++t) w.eval({points, "val", 64 << t, "loss", 2.5 + t});
    w.checkpoint({points, dir.file("ckpt-" + std::to_string(r)), 100, "abc"});
    w.finish(ps::RunStatus::Finished);
    s.add_tag(id, "baseline");
  }
  return path;
}

std::string fixture(const char* name) { return std::string(PHA_STORE_FIXTURES) + "/" + name; }

}  // namespace

TEST(StoreDamage, ASoundStorePassesTheCheck) {
  TempDir dir;
  const std::string path = write_store(dir, 50);
  EXPECT_TRUE(ps::quick_check(path).empty());
  EXPECT_TRUE(ps::quick_check(dir.file("absent.sqlite")).empty());
  EXPECT_FALSE(fs::exists(dir.file("absent.sqlite"))) << "a check never creates a store";
}

TEST(StoreDamage, ADamagedStoreIsRefusedByEveryOpenAndLeftByteForByte) {
  TempDir dir;
  const std::string path = write_store(dir);
  overwrite_page(path, pages_of(path, "evals", "leaf").front(), '\x5a');
  const std::string before = bytes_of(path);
  const auto problems = ps::quick_check(path);
  ASSERT_FALSE(problems.empty());
  try {
    ps::Store::open(path);
    FAIL() << "a damaged store opened";
  } catch (const ps::DamagedStore& e) {
    const std::string msg = e.what();
    EXPECT_EQ(e.where(), path);
    EXPECT_NE(msg.find("the run store is damaged (PRAGMA quick_check: "), std::string::npos) << msg;
    EXPECT_NE(msg.find("kept untouched"), std::string::npos) << msg;
    EXPECT_NE(msg.find("pha runs recover"), std::string::npos) << msg;
    EXPECT_EQ(e.problems(), problems);
  }
  EXPECT_EQ(bytes_of(path), before) << "opening a damaged store wrote to it";
  if (fs::exists(path + "-wal")) {
    EXPECT_EQ(fs::file_size(path + "-wal"), 0u) << "opening a damaged store wrote to its WAL";
  }
}

TEST(StoreDamage, RecoverySavesWhatCanBeReadAroundADamagedPageAndKeepsTheDamagedFile) {
  TempDir dir;
  const std::string path = write_store(dir, 3000);
  const auto leaves = pages_of(path, "metrics", "leaf");
  ASSERT_GT(leaves.size(), 20u);
  overwrite_page(path, leaves[leaves.size() / 2], '\0');  // one leaf in the middle of the series
  const std::string damaged_bytes = bytes_of(path);
  ASSERT_FALSE(ps::quick_check(path).empty());

  const ps::RecoveryReport report = ps::recover_store(path);
  EXPECT_EQ(report.integrity, "ok");
  EXPECT_FALSE(report.problems.empty());
  ASSERT_FALSE(report.kept_files.empty());
  EXPECT_EQ(bytes_of(report.damaged_path), damaged_bytes) << "the damaged file is kept as it was";
  EXPECT_TRUE(ps::quick_check(path).empty());

  ASSERT_EQ(report.runs.size(), 3u);
  std::int64_t points = 0;
  for (const auto& r : report.runs) {
    points += r.points;
    EXPECT_EQ(r.evals, 4);
    EXPECT_EQ(r.checkpoints, 1);
  }
  const std::int64_t written = 3 * 2 * 3000;
  EXPECT_LT(points, written);                      // the damaged leaf's points are gone
  EXPECT_GT(points, written - 3 * 2 * 300) << "more than the damaged page was lost";
  for (const auto& t : report.tables)
    if (t.table == "metrics") {
      EXPECT_GE(t.unreadable, 1) << "the damage was not seen";
    }

  ps::Store s = ps::Store::open(path);
  EXPECT_EQ(s.integrity_check(), "ok");
  const auto runs = s.list_runs({std::nullopt, std::nullopt, std::nullopt, {"train/loss", "val/loss"}});
  ASSERT_EQ(runs.size(), 3u);
  for (const auto& e : runs) {
    for (const auto& m : e.summaries) {
      ASSERT_TRUE(m);
      EXPECT_EQ(m->last_step, 2999) << "points after the damaged page were not saved (run " << e.run.id << ")";
      EXPECT_EQ(m->count, static_cast<std::int64_t>(s.read_metric_full(e.run.id, m->key).size()))
          << "summaries were not rebuilt from the saved points";
    }
    EXPECT_EQ(s.tags(e.run.id), std::vector<std::string>{"baseline"});
    EXPECT_EQ(s.evals(e.run.id).size(), 4u);
    EXPECT_EQ(e.run.env_json, R"({"precision":"fp32","kernels":"fused"})") << "the provenance was not recovered";
  }
}

TEST(StoreDamage, RecoveryRefusesASoundStoreUnlessForced) {
  TempDir dir;
  const std::string path = write_store(dir, 20);
  EXPECT_THROW(ps::recover_store(path), pha::core::Error);
  ps::RecoverOptions force;
  force.force = true;
  const auto report = ps::recover_store(path, force);
  EXPECT_EQ(report.runs.size(), 3u);
  EXPECT_EQ(report.integrity, "ok");
  EXPECT_TRUE(fs::exists(report.damaged_path));
}

TEST(StoreDamage, RecoveryRefusesAStoreWhoseRunIsStillBeingWritten) {
  TempDir dir;
  const std::string path = write_store(dir, 20);
  {
    ps::Store s = ps::Store::open(path);
    const auto id = s.create_run({"p", "live", "v", "{}", "", 1, "cpu"});
    ps::RunWriter w(s, id, {});  // running, pid = this live process
    w.flush();
    w.finish(ps::RunStatus::Finished);
    s.set_status(id, ps::RunStatus::Running);
  }
  overwrite_page(path, pages_of(path, "evals", "leaf").front(), '\x11');
  try {
    ps::recover_store(path);
    FAIL() << "recovered under a live writer";
  } catch (const pha::core::Error& e) {
    EXPECT_NE(std::string(e.what()).find("still being written by process " + std::to_string(getpid())), std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(fs::exists(path + ".recovering"));
}

// The store found corrupted on 2026-12-02: its runs, points, mixer snapshots, perf rows and
// checkpoints read; its evals table does not (page 12 holds a copy of the header page).
TEST(StoreDamage, RecoversTheStoreCorruptedOn20261202) {
  TempDir dir;
  const std::string path = dir.file("runs.sqlite");
  fs::copy_file(fixture("damaged-2026-12-02.sqlite"), path);
  fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_THROW(ps::Store::open(path), ps::DamagedStore);

  const ps::RecoveryReport report = ps::recover_store(path);
  EXPECT_EQ(report.integrity, "ok");
  ASSERT_EQ(report.runs.size(), 10u);
  std::map<std::string, ps::TableRecovery> by_table;
  for (const auto& t : report.tables) by_table[t.table] = t;
  EXPECT_EQ(by_table["runs"].saved, 10);
  EXPECT_EQ(by_table["metric_keys"].saved, 33);
  EXPECT_EQ(by_table["metrics"].saved, 8988);
  EXPECT_EQ(by_table["mixer_snapshots"].saved, 208);
  EXPECT_EQ(by_table["perf"].saved, 12);
  EXPECT_EQ(by_table["checkpoints"].saved, 7);
  EXPECT_EQ(by_table["evals"].saved, 0);
  EXPECT_FALSE(by_table["evals"].error.empty());

  ps::Store s = ps::Store::open(path);
  EXPECT_EQ(s.integrity_check(), "ok");
  const auto runs = s.list_runs({std::nullopt, std::nullopt, std::nullopt, {"val/loss"}, false, false});
  ASSERT_EQ(runs.size(), 10u);
  EXPECT_EQ(runs.front().run.name, "pha-tiny");
  ASSERT_TRUE(runs.front().summaries.front());
  EXPECT_GT(runs.front().summaries.front()->count, 0);
  EXPECT_EQ(s.perf(4).size(), 4u);  // the pha-tiny profile's four sequence lengths
}

// Damage in the schema itself (page 1's table list) shows at the very first statement: still a
// DamagedStore with its message, not a bare SQLite error; and nothing to recover from it.
TEST(StoreDamage, ADamagedSchemaPageIsADamagedStoreToo) {
  TempDir dir;
  const std::string path = write_store(dir, 20);
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(100);  // after the 100-byte file header: the schema table's b-tree page
    const std::string junk(3996, '\x7f');
    f.write(junk.data(), static_cast<std::streamsize>(junk.size()));
  }
  const std::string before = bytes_of(path);
  EXPECT_THROW(ps::Store::open(path), ps::DamagedStore);
  EXPECT_FALSE(ps::quick_check(path).empty());
  EXPECT_THROW(ps::recover_store(path), pha::core::Error);
  EXPECT_EQ(bytes_of(path), before) << "a failed recovery leaves the file where and as it was";
  EXPECT_FALSE(fs::exists(path + ".recovering"));
}
