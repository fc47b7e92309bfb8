// Groups of seeded replicas: the run_group and seed columns round-trip, list_runs filters by
// group, list_groups counts runs, finished runs and distinct finished seeds per (project, group).
#include <gtest/gtest.h>

#include "store/run_writer.h"
#include "store/store.h"
#include "store_test_util.h"

namespace ps = pha::store;
using ps::test::TempDir;

namespace {

std::int64_t add_run(ps::Store& store, const std::string& project, const std::string& name, const std::string& group,
                     std::int64_t seed, ps::RunStatus status) {
  ps::NewRun nr;
  nr.project = project;
  nr.name = name;
  nr.group = group;
  nr.seed = seed;
  const std::int64_t id = store.create_run(nr);
  if (status != ps::RunStatus::Queued) store.set_status(id, status);
  return id;
}

}  // namespace

TEST(StoreGroups, GroupAndSeedRoundTripAndAbsentSeedReadsMinusOne) {
  TempDir dir;
  ps::Store store = ps::Store::open(dir.file("runs.sqlite"));
  const auto a = add_run(store, "p", "pha/seed=2", "pha", 2, ps::RunStatus::Queued);
  ps::NewRun plain;
  plain.name = "profile: pha";
  plain.kind = ps::RunKind::Profile;
  const auto b = store.create_run(plain);
  EXPECT_EQ(store.get_run(a)->group, "pha");
  EXPECT_EQ(store.get_run(a)->seed, 2);
  EXPECT_EQ(store.get_run(b)->group, "");
  EXPECT_EQ(store.get_run(b)->seed, -1);
  const auto listed = store.list_runs();
  ASSERT_EQ(listed.size(), 2u);
  EXPECT_EQ(listed[1].run.group, "pha");  // newest first
  EXPECT_EQ(listed[1].run.seed, 2);
}

TEST(StoreGroups, ListRunsFiltersByGroupAndListGroupsCountsReplicas) {
  TempDir dir;
  ps::Store store = ps::Store::open(dir.file("runs.sqlite"));
  add_run(store, "p", "pha/seed=0", "pha", 0, ps::RunStatus::Finished);
  add_run(store, "p", "transformer/seed=0", "transformer", 0, ps::RunStatus::Finished);
  add_run(store, "p", "pha/seed=1", "pha", 1, ps::RunStatus::Finished);
  add_run(store, "p", "pha/seed=2", "pha", 2, ps::RunStatus::Failed);
  add_run(store, "p", "pha/seed=1", "pha", 1, ps::RunStatus::Finished);  // seed 1 trained again
  add_run(store, "q", "pha/seed=0", "pha", 0, ps::RunStatus::Finished);  // same group name, other project
  ps::NewRun profile;
  profile.project = "p";
  profile.name = "profile: pha";
  profile.kind = ps::RunKind::Profile;
  store.create_run(profile);

  ps::RunListQuery q;
  q.group = "pha";
  EXPECT_EQ(store.list_runs(q).size(), 5u);
  q.project = "p";
  const auto runs = store.list_runs(q);
  ASSERT_EQ(runs.size(), 4u);
  for (const auto& e : runs) EXPECT_EQ(e.run.group, "pha");

  const auto groups = store.list_groups();
  ASSERT_EQ(groups.size(), 3u) << "profiles have no group; (project, group) is the key";
  EXPECT_EQ(groups[0].project, "p");
  EXPECT_EQ(groups[0].group, "pha");
  EXPECT_EQ(groups[0].runs, 4);
  EXPECT_EQ(groups[0].finished, 3);
  EXPECT_EQ(groups[0].finished_seeds, 2);
  EXPECT_EQ(groups[0].first_run, 1);
  EXPECT_EQ(groups[0].last_run, 5);
  EXPECT_EQ(groups[1].group, "transformer");
  EXPECT_EQ(groups[2].project, "q");

  ps::GroupListQuery gq;
  gq.project = "q";
  ASSERT_EQ(store.list_groups(gq).size(), 1u);
  gq.project.reset();
  gq.kind = ps::RunKind::Profile;
  EXPECT_TRUE(store.list_groups(gq).empty());
}
