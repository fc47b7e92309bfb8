// The warmup-stable-decay schedule and the branch off its stable phase that the search's rungs
// use (docs/search.md): a rung's figure must be the figure of a finished run of its length.
#include <cmath>
#include <filesystem>

#include <gtest/gtest.h>

#include "core/error.h"
#include "runtime/job.h"
#include "project/project.h"
#include "runtime/trainer.h"
#include "runtime_test_util.h"
#include "store/store.h"

using nlohmann::json;
using namespace pha::runtime;

namespace {

class NoOutput : public RunObserver {};

TEST(Schedule, WsdIsConstantUntilTheCooldownThenEndsAtTheFloor) {
  pha::project::TrainingConfig c = pha::project::TrainingConfig::from_json({{"steps", 100}, {"warmup_steps", 10}, {"min_lr_ratio", 0.0},
                                                {"schedule", "wsd"}, {"cooldown", 0.2}});
  EXPECT_EQ(c.stable_end(), 80);
  EXPECT_DOUBLE_EQ(lr_factor(c, 5), 0.5);
  EXPECT_DOUBLE_EQ(lr_factor(c, 11), 1.0);
  EXPECT_DOUBLE_EQ(lr_factor(c, 80), 1.0);
  // 1-sqrt: 1 - sqrt(5/20) = 0.5 at step 85; 0 at the end.
  EXPECT_NEAR(lr_factor(c, 85), 0.5, 1e-12);
  EXPECT_NEAR(lr_factor(c, 100), 0.0, 1e-12);
  c = pha::project::TrainingConfig::from_json({{"steps", 100}, {"warmup_steps", 10}, {"min_lr_ratio", 0.1}, {"schedule", "wsd"},
                                 {"cooldown", 0.2}, {"cooldown_shape", "linear"}});
  EXPECT_NEAR(lr_factor(c, 90), 0.1 + 0.9 * 0.5, 1e-12);
  EXPECT_NEAR(lr_factor(c, 100), 0.1, 1e-12);
  // The stable phase of a shorter WSD run is a prefix of a longer one's.
  pha::project::TrainingConfig longer = c;
  longer.steps = 300;
  for (int64_t step = 1; step <= c.stable_end(); ++step) EXPECT_EQ(lr_factor(c, step), lr_factor(longer, step));
}

TEST(Schedule, WsdSettingsAreCheckedAndCosineRunsRecordNoScheduleKey) {
  const json cosine = pha::project::TrainingConfig::from_json({{"steps", 10}, {"warmup_steps", 1}}).used;
  EXPECT_FALSE(cosine.contains("schedule")) << "stored cosine runs keep matching their project";
  EXPECT_TRUE(pha::project::TrainingConfig::from_json({{"steps", 10}, {"warmup_steps", 1}, {"schedule", "wsd"}}).used.contains(
      "cooldown"));
  try {
    pha::project::TrainingConfig::from_json({{"steps", 10}, {"cooldown", 0.3}});
    FAIL() << "cooldown with a cosine schedule";
  } catch (const pha::core::Error& e) {
    EXPECT_EQ(e.where(), "training.cooldown");
    EXPECT_NE(std::string(e.what()).find("\"wsd\" only"), std::string::npos) << e.what();
  }
  try {
    pha::project::TrainingConfig::from_json({{"steps", 10}, {"warmup_steps", 9}, {"schedule", "wsd"}, {"cooldown", 0.5}});
    FAIL() << "warmup past the stable phase";
  } catch (const pha::core::Error& e) {
    EXPECT_EQ(e.where(), "training.warmup_steps");
    EXPECT_NE(std::string(e.what()).find("stable phase"), std::string::npos) << e.what();
  }
}

// A 12-step WSD run keeps its step-10 (pre-cooldown) checkpoint; a 20-step run branched off it
// ends exactly where a 20-step WSD run trained from scratch ends.
TEST(Training, AWsdCooldownBranchedOffTheStablePhaseEqualsAFinishedRunOfThatLength) {
  pha::test::TempProject p;
  p.write_project(p.text_project({{"steps", 20}, {"warmup_steps", 2}, {"eval_every", 0}, {"schedule", "wsd"},
                                  {"cooldown", 0.2}}));
  NoOutput obs;
  RunControl ctl;
  const JobResult full = run_job(pha::test::job_spec(p), obs, ctl);
  ASSERT_EQ(full.status, JobStatus::Finished) << full.reason;

  const pha::project::Project project = pha::project::load_project(p.dir().string());
  auto shorter = std::make_shared<pha::project::RunPlan>(
      pha::project::patched_run(project, project.runs.front(), {{"training", {{"steps", 12}}}}, "rung-12", "test"));
  EXPECT_EQ(shorter->training.stable_end(), 10);
  JobSpec a = pha::test::job_spec(p);
  a.plan = shorter;
  a.final_checkpoint = false;
  const JobResult r12 = run_job(a, obs, ctl);
  ASSERT_EQ(r12.status, JobStatus::Finished) << r12.reason;
  auto st = pha::store::Store::open(p.store());
  std::string pre;
  for (const auto& c : st.checkpoints(r12.run_id)) {
    EXPECT_NE(c.step, 12) << "final_checkpoint false: no checkpoint at the end";
    if (c.step == 10) pre = c.path;
  }
  ASSERT_FALSE(pre.empty()) << "the pre-cooldown checkpoint";

  JobSpec b = pha::test::job_spec(p);
  b.plan = std::make_shared<pha::project::RunPlan>(
      pha::project::patched_run(project, project.runs.front(), {{"training", {{"steps", 20}}}}, "rung-20", "test"));
  b.branch_from = pre;
  const JobResult r20 = run_job(b, obs, ctl);
  ASSERT_EQ(r20.status, JobStatus::Finished) << r20.reason;
  const auto losses = st.read_metric_full(r20.run_id, "train/loss");
  ASSERT_EQ(losses.size(), 10u) << "the branch trains steps 11..20 only";
  EXPECT_EQ(losses.front().step, 11);
  const double branched = st.summary(r20.run_id, "val/bpb")->last;
  const double scratch = st.summary(full.run_id, "val/bpb")->last;
  EXPECT_NEAR(branched, scratch, 1e-4);
  const auto full_losses = st.read_metric_full(full.run_id, "train/loss");
  EXPECT_NEAR(losses.back().value, full_losses.back().value, 1e-4);
}

}  // namespace
