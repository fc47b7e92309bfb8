// The search section's first-rung check with each trial's own values (a space that sets
// training.warmup_steps can shorten the rungs below the base variant's warmup), and which
// stored run is a plan's: by name, else by configuration when the run was renamed (issue 36).
#include <gtest/gtest.h>

#include "core/error.h"
#include "error_message.h"
#include "project/project.h"
#include "project/project_queue.h"
#include "engine/runtime/runtime_test_util.h"
#include "search_runner/search_job.h"
#include "store/store.h"

using nlohmann::json;

namespace {

// 135 training steps with a warmup of 25; the search's rungs are 15 and 45 steps (eta 3).
json short_rungs(const pha::test::TempProject& p, const json& space) {
  json j = p.text_project({{"steps", 135}, {"warmup_steps", 25}});
  j["search"] = {{"space", space},
                 {"budget", {{"resource", "steps"}, {"min", 15}, {"max", 45}, {"eta", 3}}},
                 {"objective", "val/bpb"}};
  return j;
}

std::string section_error(const json& j, const pha::test::TempProject& p) {
  return pha::test::error_message([&] { pha::project::parse_project(j, p.dir().string(), "project.json"); });
}

}  // namespace

TEST(SearchSection, TheFirstRungIsCheckedWithTheWarmupEachTrialTrainsWith) {
  pha::test::TempProject p;
  // Every trial replaces the base warmup of 25 by 4 or 8: 15 steps leave a stable phase to step 12.
  EXPECT_EQ(section_error(short_rungs(p, {{"training.lr", {0.001, 0.003}}, {"training.warmup_steps", {4, 8}}}), p),
            "(no error)");
  // A trial that truly cannot fit is refused, named by its values.
  const std::string e =
      section_error(short_rungs(p, {{"training.lr", {0.001, 0.003}}, {"training.warmup_steps", {4, 25}}}), p);
  EXPECT_EQ(e.rfind("search.budget.min: 15 steps gives trial t1 of \"test\" (lr=0.001,warmup_steps=25) 15 steps, whose "
                    "stable phase ends at step 12, before its warmup of 25 steps; allowed: a larger min",
                    0),
            0u)
      << e;
  // Without warmups in the space, the base's warmup is each trial's.
  const std::string base = section_error(short_rungs(p, {{"training.lr", {0.001, 0.003}}}), p);
  EXPECT_NE(base.find("before its warmup of 25 steps"), std::string::npos) << base;
  // A random sampler: the trials it draws (all within 4..8 here).
  json random = short_rungs(p, {{"training.warmup_steps", {{"int", {4, 8}}}}});
  random["search"]["sampler"] = {{"kind", "random"}, {"seed", 1}, {"trials", 6}};
  EXPECT_EQ(section_error(random, p), "(no error)");
  random["search"]["space"]["training.warmup_steps"] = {{"int", {13, 20}}};
  EXPECT_NE(section_error(random, p).find("search.budget.min: 15 steps gives trial t0"), std::string::npos)
      << section_error(random, p);
  // A longer cooldown from the space shortens the stable phase: 15 steps with cooldown 0.5 end it at 7.
  const std::string cool = section_error(
      short_rungs(p, {{"training.warmup_steps", {8}}, {"training.cooldown", {0.2, 0.5}}}), p);
  EXPECT_NE(cool.find("(cooldown=0.5,warmup_steps=8) 15 steps, whose stable phase ends at step 7"), std::string::npos)
      << cool;
}

// trained_runs: a finished run renamed in the run table is still its plan's; a run renamed to
// another plan's name is claimed by neither (two plans never share one run).
TEST(TrainedRuns, ARenamedRunIsStillItsPlansAndNoPlanClaimsAnothersName) {
  pha::test::TempProject p;
  json j = p.text_project();
  j["grid"] = {{"training.lr", {0.001, 0.003}}};
  p.write_project(j);
  const pha::project::Project project = pha::project::load_project(p.dir().string());
  ASSERT_EQ(project.runs.size(), 2u);
  const pha::project::RunPlan& a = project.runs[0];
  const pha::project::RunPlan& b = project.runs[1];
  std::int64_t id = 0;
  {
    auto s = pha::store::Store::open(p.store());
    pha::store::NewRun run;
    run.project = project.name;
    run.name = a.name;
    run.group = a.group;
    run.config_json = a.config.dump();
    id = s.create_run(run);
    s.set_status(id, pha::store::RunStatus::Finished);
  }
  const auto trained = [&] { return pha::project::trained_runs(project); };
  ASSERT_EQ(trained().size(), 1u);
  EXPECT_EQ(trained()[0].run, a.name);

  pha::store::Store::open(p.store()).rename_run(id, "my best lr");
  ASSERT_EQ(trained().size(), 1u) << "a renamed run still counts as trained";
  EXPECT_EQ(trained()[0].run, a.name);
  EXPECT_EQ(trained()[0].run_id, id);

  pha::store::Store::open(p.store()).rename_run(id, b.name);
  EXPECT_TRUE(trained().empty()) << "named like plan b, configured like plan a: neither claims it";
}

// training.warmup_fraction: the warmup is a fraction of the run's steps (exclusive with
// warmup_steps), so a search's rung runs of such a trial each warm up for the fraction of their
// own rung and reach the peak rate with a stable phase at every rung (issue 39).
TEST(SearchSection, AWarmupFractionIsAFractionOfEachRungRun) {
  using pha::project::TrainingConfig;
  const TrainingConfig c = TrainingConfig::from_json({{"steps", 450}, {"warmup_fraction", 0.0889}});
  EXPECT_EQ(c.warmup_steps, 40);
  EXPECT_TRUE(c.used.contains("warmup_fraction"));
  EXPECT_FALSE(c.used.contains("warmup_steps")) << "a run records the fraction it was given, once";
  EXPECT_EQ(TrainingConfig::from_json(c.used).warmup_steps, 40) << "the recorded settings read back alike";
  const std::string both = pha::test::error_message(
      [] { TrainingConfig::from_json({{"steps", 450}, {"warmup_fraction", 0.1}, {"warmup_steps", 10}}); });
  EXPECT_EQ(both.rfind("training.warmup_fraction: cannot be combined with training.warmup_steps", 0), 0u) << both;
  const std::string long_warmup = pha::test::error_message(
      [] { TrainingConfig::from_json({{"steps", 100}, {"schedule", "wsd"}, {"warmup_fraction", 0.9}}); });
  EXPECT_EQ(long_warmup.rfind("training.warmup_fraction: 0.9 x 100 steps = 90 steps is more than the stable phase's end", 0),
            0u)
      << long_warmup;

  pha::test::TempProject p;
  // A base warmup of 25 does not fit a 15-step rung, but fractions of each rung do (1 and 4 of 15).
  const json space = {{"training.lr", {0.001, 0.003}}, {"training.warmup_fraction", {0.0222, 0.0889}}};
  json j = short_rungs(p, space);
  EXPECT_EQ(section_error(j, p), "(no error)");
  j["search"]["seeds"] = 2;
  j["training"]["threads"] = 1;
  p.write_project(j);
  const std::string dir = p.dir().string();
  // Trial t1 (lr 0.001, fraction 0.0889): 15 steps warm up for 1, 45 steps for 4, from step 0.
  const pha::project::RunPlan r0 = pha::search_runner::search_rung_plan(dir, "test:b1:t1:r0:s7");
  const pha::project::RunPlan r1 = pha::search_runner::search_rung_plan(dir, "test:b1:t1:r1:s8");
  EXPECT_EQ(r0.training.steps, 15);
  EXPECT_EQ(r0.training.warmup_steps, 1);
  EXPECT_EQ(r1.training.steps, 45);
  EXPECT_EQ(r1.training.warmup_steps, 4);
  EXPECT_EQ(r1.training.stable_end(), 36);
  EXPECT_FALSE(r1.config["training"].contains("warmup_steps")) << "the trial's fraction replaces the base's 25 steps";
  // Absolute warmups from the space keep replacing a base fraction too.
  json k = short_rungs(p, {{"training.warmup_steps", {4, 8}}});
  k["training"].erase("warmup_steps");
  k["training"]["warmup_fraction"] = 0.5;
  EXPECT_EQ(section_error(k, p), "(no error)");
  // A fraction that leaves no stable phase at the first rung is refused by its value.
  const std::string refused = section_error(short_rungs(p, {{"training.warmup_fraction", {0.05, 0.85}}}), p);
  EXPECT_NE(refused.find("before its warmup of 13 steps (warmup_fraction 0.85)"), std::string::npos) << refused;
}
