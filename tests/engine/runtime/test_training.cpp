// Training runs on a tiny model and a small corpus the test writes: the schedule, exact resume,
// divergence, cancel with a checkpoint, pause, and what reaches the store and the observer.
#include <cmath>
#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "core/error.h"
#include "runtime/job.h"
#include "runtime/trainer.h"
#include "runtime_test_util.h"
#include "store/store.h"

using nlohmann::json;
using namespace pha::runtime;

namespace {

class Recorder : public RunObserver {
 public:
  void on_step(const StepMetrics& m) override {
    losses.push_back(m.loss);
    if (cancel_at > 0 && m.step == cancel_at && control) control->request_cancel();
  }
  void on_mixer(const MixerEvent& e) override { mixers.push_back(e); }
  void on_eval(const EvalEvent& e) override { evals.push_back(e); }
  void on_status(const StatusEvent& e) override { statuses.push_back(e.status); }
  std::vector<double> losses;
  std::vector<MixerEvent> mixers;
  std::vector<EvalEvent> evals;
  std::vector<JobStatus> statuses;
  int64_t cancel_at = 0;
  RunControl* control = nullptr;
};

std::vector<double> store_losses(const std::string& store, int64_t run) {
  auto s = pha::store::Store::open(store);
  std::vector<double> out;
  for (const auto& p : s.read_metric_full(run, "train/loss")) out.push_back(p.value);
  return out;
}

TEST(Schedule, WarmupThenCosineToTheFloor) {
  pha::project::TrainingConfig c;
  c.steps = 100;
  c.warmup_steps = 10;
  c.min_lr_ratio = 0.1;
  EXPECT_DOUBLE_EQ(lr_factor(c, 1), 0.1);
  EXPECT_DOUBLE_EQ(lr_factor(c, 10), 1.0);
  EXPECT_NEAR(lr_factor(c, 55), 0.55, 1e-12);
  EXPECT_NEAR(lr_factor(c, 100), 0.1, 1e-12);
  EXPECT_GT(lr_factor(c, 30), lr_factor(c, 31));
}

TEST(Trainer, ParameterGroupsFollowTheRoles) {
  json m = pha::test::TempProject::tiny_model();
  m["vocab_size"] = 64;
  const auto cfg = pha::model::model_config_from_json(m, "model");
  pha::project::TrainingConfig tc;
  Trainer t(cfg, tc, "cpu");
  const json g = t.group_summary();
  EXPECT_GT(g["decay"].get<int64_t>(), 0);
  EXPECT_GT(g["no_decay"].get<int64_t>(), 0);
  EXPECT_GT(g["dss"].get<int64_t>(), 0);
  EXPECT_GT(g["mixer"].get<int64_t>(), 0);
  EXPECT_EQ(g["decay"].get<int64_t>() + g["no_decay"].get<int64_t>() + g["dss"].get<int64_t>() + g["mixer"].get<int64_t>(),
            t.num_parameters());
}

// A fixed random batch for the tiny model (vocabulary 64).
pha::data::Batch random_batch(int B, int T) {
  pha::data::Batch b;
  b.B = B;
  b.T = T;
  uint64_t x = 99;
  for (int i = 0; i < 2 * B * T; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    (i < B * T ? b.inputs : b.targets).push_back(static_cast<int32_t>((x >> 33) % 64));
  }
  return b;
}

double max_departure_from_uniform(const pha::model::ModelIntrospection& m) {
  double worst = 0.0;
  for (float w : m.mixer_weights.values) worst = std::max(worst, std::abs(static_cast<double>(w) - 1.0 / 3.0));
  return worst;
}

// Weights trained with one model.embed_scale are refused by a model with the other, with the
// value to set; a checkpoint from before the key existed (no embed_scale) counts as "none".
TEST(Trainer, CheckpointWithAnotherEmbedScaleIsRefusedWithTheValueToSet) {
  json m = pha::test::TempProject::tiny_model();
  m["vocab_size"] = 64;
  m["embed_scale"] = "none";
  pha::project::TrainingConfig tc;
  Trainer legacy(pha::model::model_config_from_json(m, "model"), tc, "cpu");
  const std::string path = (std::filesystem::temp_directory_path() / "pha_test_embed_scale.safetensors").string();
  legacy.save_checkpoint(path, 1, json::object());
  m["embed_scale"] = "sqrt_d";
  Trainer current(pha::model::model_config_from_json(m, "model"), tc, "cpu");
  for (int weights_only = 0; weights_only < 2; ++weights_only) {
    try {
      weights_only ? current.load_weights(path) : (void)current.load_checkpoint(path);
      ADD_FAILURE() << "no error loading a \"none\" checkpoint into a \"sqrt_d\" model";
    } catch (const pha::core::Error& e) {
      EXPECT_EQ(e.where(), path);
      EXPECT_NE(std::string(e.what()).find("set model.embed_scale to \"none\""), std::string::npos) << e.what();
    }
  }
  m["embed_scale"] = "none";
  Trainer same(pha::model::model_config_from_json(m, "model"), tc, "cpu");
  EXPECT_EQ(same.load_checkpoint(path), 1);
  std::filesystem::remove(path);
}

TEST(Trainer, MixerLogitsHaveTheirOwnGroupAndLearningRate) {
  json m = pha::test::TempProject::tiny_model();
  m["vocab_size"] = 64;
  const auto cfg = pha::model::model_config_from_json(m, "model");
  pha::project::TrainingConfig tc;
  tc.lr = 1e-3;
  tc.dss_lr = 2e-3;
  tc.mixer_lr = 5e-2;
  Trainer t(cfg, tc, "cpu");
  EXPECT_EQ(t.group_summary()["mixer"].get<int64_t>(), 2 * 3) << "2 layers x 3 branches";
  t.train_step({random_batch(2, 16)}, /*lr_scale=*/0.5);
  std::map<std::string, OptimizerGroup> groups;
  for (const auto& g : t.optimizer_groups()) groups[g.name] = g;
  ASSERT_EQ(groups.size(), 4u);
  EXPECT_DOUBLE_EQ(groups["mixer"].lr, 0.5 * 5e-2);
  EXPECT_DOUBLE_EQ(groups["mixer"].weight_decay, 0.0);
  EXPECT_EQ(groups["mixer"].numel, 6);
  EXPECT_DOUBLE_EQ(groups["decay"].lr, 0.5 * 1e-3);
  EXPECT_DOUBLE_EQ(groups["decay"].weight_decay, 0.1);
  EXPECT_DOUBLE_EQ(groups["no_decay"].lr, 0.5 * 1e-3);
  EXPECT_DOUBLE_EQ(groups["dss"].lr, 0.5 * 2e-3);
}

TEST(Trainer, OnlyMixerLrMovesTheMixerWeights) {
  json m = pha::test::TempProject::tiny_model();
  m["vocab_size"] = 64;
  const auto cfg = pha::model::model_config_from_json(m, "model");
  const auto batch = random_batch(2, 16);
  {  // Everything frozen but the mixers: the mixer weights leave 1/3.
    pha::project::TrainingConfig tc;
    tc.lr = 0.0;
    tc.dss_lr = 0.0;
    tc.mixer_lr = 0.1;
    Trainer t(cfg, tc, "cpu");
    for (int i = 0; i < 3; ++i) t.train_step({batch}, 1.0);
    EXPECT_GT(max_departure_from_uniform(t.introspect()), 0.02);
  }
  {  // Everything trains but the mixers: they stay exactly uniform.
    pha::project::TrainingConfig tc;
    tc.lr = 1e-2;
    tc.mixer_lr = 0.0;
    Trainer t(cfg, tc, "cpu");
    for (int i = 0; i < 3; ++i) t.train_step({batch}, 1.0);
    EXPECT_LT(max_departure_from_uniform(t.introspect()), 1e-7);
  }
}

TEST(Training, RunRecordsMetricsMixerEvalsAndCheckpoint) {
  pha::test::TempProject p;
  p.write_project(p.text_project());
  Recorder rec;
  RunControl ctl;
  const JobResult r = run_job(pha::test::job_spec(p), rec, ctl);
  ASSERT_EQ(r.status, JobStatus::Finished) << r.reason;
  EXPECT_EQ(rec.losses.size(), 6u);
  EXPECT_FALSE(rec.mixers.empty());
  EXPECT_EQ(rec.mixers[0].layers, 2);
  EXPECT_EQ(rec.mixers[0].branches, 3);
  auto s = pha::store::Store::open(p.store());
  const auto info = s.get_run(r.run_id);
  ASSERT_TRUE(info);
  EXPECT_EQ(info->status, pha::store::RunStatus::Finished);
  EXPECT_GT(info->n_params, 0);
  EXPECT_EQ(json::parse(info->config_json)["training"]["steps"], 6);
  for (const char* k : {"train/loss", "train/ppl", "train/lr", "train/grad_norm", "train/tokens_per_s", "val/loss",
                        "val/ppl", "val/bpb", "test/bpb"})
    EXPECT_TRUE(s.summary(r.run_id, k)) << k;
  EXPECT_EQ(s.summary(r.run_id, "val/loss")->count, 2) << "eval at step 3 and the final one";
  EXPECT_FALSE(s.read_mixer_all(r.run_id).empty());
  EXPECT_FALSE(s.evals(r.run_id).empty());
  const auto ck = s.checkpoints(r.run_id);
  ASSERT_EQ(ck.size(), 1u);
  EXPECT_EQ(ck[0].step, 6);
  EXPECT_EQ(ck[0].sha256.size(), 64u);
  EXPECT_TRUE(std::filesystem::exists(ck[0].path));
  const double bpb = s.summary(r.run_id, "val/bpb")->last;
  EXPECT_GT(bpb, 0.0);
  EXPECT_LT(bpb, 9.0);
}

TEST(Training, ResumeContinuesWithExactlyTheSameLosses) {
  pha::test::TempProject p;
  p.write_project(p.text_project({{"steps", 8}, {"eval_every", 0}}));
  Recorder full;
  RunControl c1;
  const JobResult a = run_job(pha::test::job_spec(p), full, c1);
  ASSERT_EQ(a.status, JobStatus::Finished) << a.reason;

  Recorder first;
  RunControl c2;
  first.cancel_at = 3;
  first.control = &c2;
  const JobResult b = run_job(pha::test::job_spec(p), first, c2);
  ASSERT_EQ(b.status, JobStatus::Cancelled);
  EXPECT_EQ(b.steps_done, 3);
  ASSERT_FALSE(b.last_checkpoint.empty()) << "cancel writes a checkpoint";

  Recorder second;
  RunControl c3;
  JobSpec spec = pha::test::job_spec(p);
  spec.resume_run_id = b.run_id;
  const JobResult c = run_job(spec, second, c3);
  ASSERT_EQ(c.status, JobStatus::Finished) << c.reason;
  EXPECT_EQ(c.run_id, b.run_id);
  ASSERT_EQ(second.losses.size(), 5u);
  for (size_t i = 0; i < 5; ++i) EXPECT_EQ(second.losses[i], full.losses[i + 3]) << "step " << i + 4;
  EXPECT_EQ(store_losses(p.store(), b.run_id), store_losses(p.store(), a.run_id));
}

TEST(Training, AbsurdLearningRateDiverges) {
  pha::test::TempProject p;
  p.write_project(p.text_project({{"steps", 30}, {"lr", 1e6}, {"warmup_steps", 0}, {"eval_every", 0}}));
  Recorder rec;
  RunControl ctl;
  const JobResult r = run_job(pha::test::job_spec(p), rec, ctl);
  ASSERT_EQ(r.status, JobStatus::Diverged) << r.reason;
  EXPECT_NE(r.reason.find("at step"), std::string::npos) << r.reason;
  EXPECT_LT(r.steps_done, 30);
  auto s = pha::store::Store::open(p.store());
  const auto info = s.get_run(r.run_id);
  EXPECT_EQ(info->status, pha::store::RunStatus::Diverged);
  EXPECT_EQ(info->error, r.reason);
  EXPECT_EQ(s.integrity_check(), "ok");
}

TEST(Training, PauseWaitsAndCancelWhilePausedEndsCleanly) {
  pha::test::TempProject p;
  p.write_project(p.text_project({{"steps", 50}, {"eval_every", 0}}));
  struct PauseAt2 : Recorder {
    void on_step(const StepMetrics& m) override {
      Recorder::on_step(m);
      if (m.step == 2) control->set_paused(true);
    }
    void on_status(const StatusEvent& e) override {
      Recorder::on_status(e);
      if (e.status == JobStatus::Paused) control->request_cancel();
    }
  } rec;
  RunControl ctl;
  rec.control = &ctl;
  const JobResult r = run_job(pha::test::job_spec(p), rec, ctl);
  EXPECT_EQ(r.status, JobStatus::Cancelled);
  EXPECT_EQ(r.steps_done, 2);
  EXPECT_NE(std::find(rec.statuses.begin(), rec.statuses.end(), JobStatus::Paused), rec.statuses.end());
  auto s = pha::store::Store::open(p.store());
  EXPECT_EQ(s.get_run(r.run_id)->status, pha::store::RunStatus::Cancelled);
  EXPECT_EQ(s.checkpoints(r.run_id).back().step, 2);
}

TEST(Training, TaskRunRecordsAccuracyAndLengthSweep) {
  pha::test::TempProject p;
  json j = p.text_project({{"steps", 3}, {"eval_every", 2}, {"eval_examples", 8}, {"sweep_examples", 8}, {"batch_size", 4}});
  j["data"] = {{"kind", "task"},
               {"train", {{"task", "selective_copy"}, {"seq_len", 30}, {"seq_len_min", 20}, {"vocab_size", 8},
                          {"num_tokens_to_copy", 4}, {"num_examples", 1000}}},
               {"test", {{{"name", "copy_test"}, {"task", "selective_copy"}, {"seq_len", 30}, {"vocab_size", 8},
                          {"num_tokens_to_copy", 4}, {"num_examples", 16}, {"seed", 10}}}},
               {"sweeps", {"length"}}};
  p.write_project(j);
  Recorder rec;
  RunControl ctl;
  const JobResult r = run_job(pha::test::job_spec(p), rec, ctl);
  ASSERT_EQ(r.status, JobStatus::Finished) << r.reason;
  auto s = pha::store::Store::open(p.store());
  EXPECT_TRUE(s.summary(r.run_id, "val/accuracy"));
  std::set<int64_t> lengths;
  bool test_row = false;
  for (const auto& e : s.evals(r.run_id)) {
    if (e.task == "length" && e.metric == "accuracy") lengths.insert(e.seq_len);
    if (e.task == "copy_test" && e.metric == "exact_match") test_row = true;
    EXPECT_GE(e.value, 0.0);
    EXPECT_LE(e.value, 1.0);
  }
  EXPECT_TRUE(test_row);
  EXPECT_EQ(lengths, (std::set<int64_t>{50, 75, 100, 150, 200, 400}));
}

}  // namespace
