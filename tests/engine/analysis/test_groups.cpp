// Store runs grouped into replica groups: one line per (project, group), the newest finished
// run of each seed as its replica, runs without a group alone.
#include <gtest/gtest.h>

#include <cmath>

#include "analysis/groups.h"

namespace pa = pha::analysis;
namespace ps = pha::store;

namespace {

ps::RunListEntry entry(std::int64_t id, const std::string& project, const std::string& group, std::int64_t seed,
                       ps::RunStatus status, double loss) {
  ps::RunListEntry e;
  e.run.id = id;
  e.run.project = project;
  e.run.name = group.empty() ? "profile: x" : group + "/seed=" + std::to_string(seed);
  e.run.group = group;
  e.run.seed = seed;
  e.run.status = status;
  ps::MetricSummary m;
  m.key = "train/loss";
  m.last = loss;
  m.count = 1;
  e.summaries = {m};
  return e;
}

}  // namespace

TEST(Groups, ReplicasAreTheNewestFinishedRunOfEachSeed) {
  const std::vector<ps::RunListEntry> entries = {
      entry(6, "p", "pha", 1, ps::RunStatus::Finished, 3.0),  // seed 1 again: replaces run 2
      entry(1, "p", "pha", 0, ps::RunStatus::Finished, 1.0),
      entry(2, "p", "pha", 1, ps::RunStatus::Finished, 9.0),
      entry(3, "p", "pha", 2, ps::RunStatus::Failed, 0.5),    // not a replica
      entry(4, "q", "pha", 0, ps::RunStatus::Finished, 7.0),  // another project's group
      entry(5, "p", "", -1, ps::RunStatus::Finished, 0.0),    // no group: alone
  };
  const auto groups = pa::group_runs(entries);
  ASSERT_EQ(groups.size(), 3u);
  EXPECT_EQ(groups[0].project, "p");
  EXPECT_EQ(groups[0].name, "pha");
  ASSERT_EQ(groups[0].runs.size(), 4u);
  EXPECT_EQ(groups[0].runs[0].run.id, 1) << "oldest first";
  ASSERT_EQ(groups[0].replicas.size(), 2u);
  EXPECT_EQ(groups[0].runs[groups[0].replicas[1]].run.id, 6);
  const pa::Stats s = pa::replica_stats(groups[0], 0);
  EXPECT_EQ(s.n, 2u);
  EXPECT_DOUBLE_EQ(s.mean, 2.0);  // runs 1 and 6: (1 + 3) / 2
  EXPECT_NEAR(s.std, std::sqrt(2.0), 1e-15);
  EXPECT_EQ(groups[1].project, "q");
  EXPECT_FALSE(groups[2].grouped);
  EXPECT_EQ(groups[2].name, "profile: x");
  EXPECT_EQ(pa::replica_stats(groups[0], 5).nan, 2u) << "a key the runs lack is NaN per replica";
}
