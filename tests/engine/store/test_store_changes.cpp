// store_changes.h: the window's views learn what another connection (a `pha` process, another
// window) changed in the store: data_version moves on another connection's commit, and the run
// signatures say which runs were added, removed, renamed, tagged, noted or ended.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "store/store.h"
#include "store/store_changes.h"
#include "store_test_util.h"

namespace ps = pha::store;
using ps::test::TempDir;

namespace {
std::int64_t add_changes_run(ps::Store& s, const std::string& name) {
  ps::NewRun r;
  r.project = "proj";
  r.name = name;
  r.variant = "pha-tiny";
  r.config_json = "{}";
  return s.create_run(r);
}
}  // namespace

TEST(StoreChanges, DataVersionMovesOnAnotherConnectionsCommitOnly) {
  TempDir dir;
  auto watcher = ps::Store::open(dir.file("runs.db"));
  auto writer = ps::Store::open(dir.file("runs.db"));
  const auto v0 = ps::data_version(watcher);
  EXPECT_EQ(ps::data_version(watcher), v0) << "nothing was written";
  add_changes_run(writer, "a");
  const auto v1 = ps::data_version(watcher);
  EXPECT_NE(v1, v0) << "another connection committed";
  EXPECT_EQ(ps::data_version(watcher), v1);
}

TEST(StoreChanges, SignaturesTellAddedRemovedAndChangedRuns) {
  TempDir dir;
  auto s = ps::Store::open(dir.file("runs.db"));
  const auto a = add_changes_run(s, "a"), b = add_changes_run(s, "b"), c = add_changes_run(s, "c");
  const auto before = ps::run_signatures(s);
  ASSERT_EQ(before.size(), 3u);
  EXPECT_TRUE(ps::diff_runs(before, ps::run_signatures(s)).empty());

  s.rename_run(a, "a2");
  s.add_tag(b, "baseline");
  s.add_tag(b, "alpha");
  s.delete_run(c);
  std::this_thread::sleep_for(std::chrono::milliseconds(3));  // creation times are in ms
  const auto d = add_changes_run(s, "d");  // SQLite may reuse c's id: still removed + added
  const auto after = ps::run_signatures(s);
  EXPECT_EQ(after[1].tags, "alpha,baseline") << "tags sorted";
  const ps::RunChanges ch = ps::diff_runs(before, after);
  EXPECT_EQ(ch.added, std::vector<std::int64_t>{d});
  EXPECT_EQ(ch.removed, std::vector<std::int64_t>{c});
  EXPECT_EQ(after.back().name, "d");
  EXPECT_EQ(ch.changed, (std::vector<std::int64_t>{a, b}));

  s.set_notes(a, "why this run");
  s.set_status(d, ps::RunStatus::Running);
  ps::EvalRow e;
  e.task = "text";
  e.seq_len = 64;
  e.metric = "loss";
  e.value = 1.5;
  s.record_evals(b, {e});  // `pha eval` on a finished run
  const ps::RunChanges ch2 = ps::diff_runs(after, ps::run_signatures(s));
  EXPECT_TRUE(ch2.added.empty());
  EXPECT_TRUE(ch2.removed.empty());
  EXPECT_EQ(ch2.changed, (std::vector<std::int64_t>{a, b, d}));
}
