// What a task study relies on: the Zoology suite from a project (its training mixture drawn in
// proportion, its seven test sets), the length sweep at the project's own T list (refused where
// the task cannot be made), the suites' default test sizes, held-out sets labelled by what they
// are, MAD compression refused, and early stopping on a plateau (the rule, its validation, a run
// that ends early as finished with the reason, and the same stop after a resume).
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "error_message.h"
#include "runtime/internal/early_stop.h"
#include "runtime/job.h"
#include "runtime/job_data.h"
#include "project/project.h"
#include "runtime_test_util.h"
#include "store/store.h"

using nlohmann::json;
using namespace pha::runtime;
using pha::test::error_message;

namespace {

std::string data_error(const json& data) { return error_message([&] { pha::project::DataSpec::from_json(data); }); }

const json kCopy = {{"task", "selective_copy"}, {"seq_len", 30}, {"seq_len_min", 20}, {"vocab_size", 8},
                    {"num_tokens_to_copy", 4}, {"num_examples", 1000}};

TEST(TaskData, ZoologySuiteExpandsToTheMixtureAndTheSevenTestSets) {
  const pha::project::DataSpec d = pha::project::DataSpec::from_json({{"kind", "task"}, {"suite", "zoology"}});
  ASSERT_EQ(d.train_sets.size(), 5u);
  ASSERT_EQ(d.test_tasks.size(), 7u);
  EXPECT_EQ(d.suite, "zoology");
  EXPECT_EQ(d.max_train_seq_len(), 256);
  EXPECT_EQ(d.train_sets[0].second["num_examples"], 100000);
  EXPECT_EQ(d.test_tasks[6].first, "mqar_test_T1024_kv256");
  EXPECT_EQ(d.test_tasks[6].second["seed"], 10);  // seed + 10
  EXPECT_EQ(d.test_tasks[6].second["vocab_size"], 8192);
  // The object form sets the seed and the vocabulary of every set; V must exceed every set's T.
  const pha::project::DataSpec e = pha::project::DataSpec::from_json({{"kind", "task"}, {"suite", {{"name", "zoology"}, {"seed", 3}, {"vocab_size", 2048}}}});
  EXPECT_EQ(e.train_sets[4].second["seed"], 3);
  EXPECT_EQ(e.test_tasks[0].second["seed"], 13);
  EXPECT_EQ(e.test_tasks[0].second["vocab_size"], 2048);
  EXPECT_NE(data_error({{"kind", "task"}, {"suite", {{"name", "zoology"}, {"vocab_size", 512}}}})
                .find("data.suite (mqar_test_T512_kv128).vocab_size: must be greater than seq_len"),
            std::string::npos);
  EXPECT_NE(data_error({{"kind", "task"}, {"suite", "zoology"}, {"train", kCopy}}).find("data.train: give either"),
            std::string::npos);
  EXPECT_NE(data_error({{"kind", "task"}, {"suite", "mad"}}).find("data.suite.name: \"mad\" is not allowed"),
            std::string::npos);
}

TEST(TaskData, ProjectOnTheSuiteTrainsAtTheLongestTAndDrawsSetsInProportion) {
  pha::test::TempProject p;
  json j = p.text_project();
  j["data"] = {{"kind", "task"}, {"suite", "zoology"}};
  const pha::project::Project project = pha::project::parse_project(j, p.dir().string(), "project.json");
  const pha::project::RunPlan& run = project.runs.front();
  EXPECT_EQ(run.training.seq_len, 256);
  EXPECT_EQ(run.model.vocab_size, 8192);
  const JobData data(run.data, run.training);
  std::map<int, int> by_T;
  const int steps = 3000;
  for (int64_t step = 1; step <= steps; ++step) {
    const auto batches = data.train_batches(step);
    for (const auto& b : batches) EXPECT_EQ(b.T, data.train_set_of_step(step).info().seq_len);
    ++by_T[batches.front().T];
  }
  // Sizes 100k (T 64), 20k (T 128), 3 x 20k (T 256): shares 5/9, 1/9, 3/9.
  EXPECT_NEAR(by_T[64] / double(steps), 5.0 / 9, 0.03);
  EXPECT_NEAR(by_T[128] / double(steps), 1.0 / 9, 0.03);
  EXPECT_NEAR(by_T[256] / double(steps), 3.0 / 9, 0.03);
  EXPECT_EQ(data.describe()["train"].size(), 5u);
}

TEST(TaskData, LengthSweepAtTheProjectsLengthsRefusesInvalidOnes) {
  const json mqar = {{"task", "mqar"}, {"seq_len", 64}, {"num_kv_pairs", 4}, {"vocab_size", 256}};
  const pha::project::DataSpec d =
      pha::project::DataSpec::from_json({{"kind", "task"}, {"train", mqar}, {"sweeps", {"length"}}, {"sweep_lengths", {32, 100, 250}}});
  EXPECT_EQ(d.sweep_lengths, (std::vector<int>{32, 100, 250}));
  EXPECT_NE(data_error({{"kind", "task"}, {"train", mqar}, {"sweeps", {"length"}}, {"sweep_lengths", {32, 75}}})
                .find("data.sweep_lengths[1]: the length sweep cannot remake the training task at T = 75"),
            std::string::npos);
  EXPECT_NE(data_error({{"kind", "task"}, {"train", mqar}, {"sweeps", {"length"}}, {"sweep_lengths", {300}}})
                .find("vocab_size: must be greater than seq_len"),
            std::string::npos);
  EXPECT_NE(data_error({{"kind", "task"}, {"train", mqar}, {"sweep_lengths", {32}}})
                .find("data.sweep_lengths: is the T list of the length sweep; add \"length\" to data.sweeps"),
            std::string::npos);
  // The default list has T = 75, which MQAR cannot be made at: the error says what to give.
  EXPECT_NE(data_error({{"kind", "task"}, {"train", mqar}, {"sweeps", {"length"}}}).find("give data.sweep_lengths"),
            std::string::npos);
}

TEST(TaskData, DefaultTestSetHasTheSuitesSizeAndALabelSayingWhatItIs) {
  const pha::project::DataSpec mad = pha::project::DataSpec::from_json({{"kind", "task"}, {"train", {{"task", "mad_selective_copy"}}}});
  ASSERT_EQ(mad.test_tasks.size(), 1u);
  EXPECT_EQ(mad.test_tasks[0].first, "test");  // the stored name is unchanged
  EXPECT_EQ(mad.test_tasks[0].second["num_examples"], 1280);
  const json section = {{"kind", "task"}, {"train", kCopy}};
  EXPECT_EQ(pha::project::DataSpec::from_json(section).test_tasks[0].second["num_examples"], 1000);
  const auto labels = held_out_labels(section);
  ASSERT_EQ(labels.size(), 1u);
  EXPECT_EQ(labels.at("test"), "held-out T 20-30, 1000 seq.");
  EXPECT_TRUE(held_out_labels({{"kind", "file"}, {"path", "/nonexistent"}}).empty());  // text runs have none
  EXPECT_EQ(held_out_labels({{"kind", "task"}, {"suite", "zoology"}}).at("mqar_test_T256_kv64"),
            "held-out T 256, 1000 seq.");
}

TEST(TaskData, MadCompressionIsRefusedInAProjectWithTheReason) {
  const std::string msg = data_error({{"kind", "task"}, {"train", {{"task", "mad_compression"}}}});
  EXPECT_NE(msg.find("data.train.task: \"mad_compression\" is not offered"), std::string::npos) << msg;
  EXPECT_NE(msg.find("echoing its input"), std::string::npos) << msg;
}

// ---- early stop ---------------------------------------------------------------------------

pha::project::EarlyStop rule(const std::string& metric, int64_t patience, double min_delta) {
  pha::project::EarlyStop e;
  e.metric = metric;
  e.patience = patience;
  e.min_delta = min_delta;
  return e;
}

TEST(EarlyStop, StopsAfterPatienceEvaluationsWithoutAnImprovementAboveMinDelta) {
  EarlyStopper up(rule("val/accuracy", 2, 0.01));
  EXPECT_FALSE(up.update(100, 0.50));  // best 0.50
  EXPECT_FALSE(up.update(200, 0.60));  // +0.10: best 0.60
  EXPECT_FALSE(up.update(300, 0.605)); // +0.005 <= min_delta: 1 without improvement, best stays 0.60
  EXPECT_FALSE(up.update(400, 0.62));  // +0.02 over 0.60: improvement, count reset
  EXPECT_FALSE(up.update(500, 0.61));  // 1
  EXPECT_TRUE(up.update(600, 0.625));  // +0.005: 2 = patience
  EXPECT_EQ(up.best_step(), 400);
  EXPECT_EQ(up.reason(600),
            "early stop at step 600: val/accuracy did not improve by more than 0.01 in 2 evaluations (best 0.62 at "
            "step 400)");
  EarlyStopper down(rule("val/loss", 1, 0.0));
  EXPECT_FALSE(down.update(10, 3.0));
  EXPECT_FALSE(down.update(20, 2.5));   // lower is better
  EXPECT_TRUE(down.update(30, 2.5));    // equal is no improvement
  EarlyStopper nan(rule("val/loss", 2, 0.0));
  EXPECT_FALSE(nan.update(10, std::nan("")));
  EXPECT_TRUE(nan.update(20, std::nan("")));  // a NaN never improves
  EXPECT_FALSE(EarlyStopper(pha::project::EarlyStop{}).update(10, 1.0));  // off
}

TEST(EarlyStop, ConfigIsValidatedAndMustFitTheData) {
  const json base = {{"eval_every", 10}};
  auto with = [&](const json& es) {
    json t = base;
    t["early_stop"] = es;
    return t;
  };
  const pha::project::TrainingConfig c = pha::project::TrainingConfig::from_json(with({{"metric", "val/accuracy"}, {"patience", 4}}));
  EXPECT_EQ(c.early_stop.metric, "val/accuracy");
  EXPECT_EQ(c.early_stop.patience, 4);
  EXPECT_TRUE(c.early_stop.maximize());
  EXPECT_EQ(c.used["early_stop"]["min_delta"], 0.0);
  EXPECT_EQ(pha::project::TrainingConfig::from_json(c.used).early_stop.patience, 4);  // what the store records reads back
  auto err = [](const json& t) { return error_message([&] { pha::project::TrainingConfig::from_json(t); }); };
  EXPECT_NE(err(with({{"patience", 3}})).find("training.early_stop.metric: is required; allowed: \"val/loss\""),
            std::string::npos);
  EXPECT_NE(err(with({{"metric", "val/acc"}})).find("training.early_stop.metric: \"val/acc\" is not allowed"),
            std::string::npos);
  EXPECT_NE(err(with({{"metric", "val/loss"}, {"patience", 0}})).find("training.early_stop.patience"), std::string::npos);
  EXPECT_NE(err(with({{"metric", "val/loss"}, {"patiense", 2}})).find("did you mean \"patience\""), std::string::npos);
  EXPECT_NE(err({{"eval_every", 0}, {"early_stop", {{"metric", "val/loss"}}}})
                .find("training.early_stop: watches the periodic evaluations, but training.eval_every is 0"),
            std::string::npos);
  // A text project cannot watch an accuracy.
  pha::test::TempProject p;
  json j = p.text_project({{"early_stop", {{"metric", "val/accuracy"}}}});
  EXPECT_NE(error_message([&] { pha::project::parse_project(j, p.dir().string(), "project.json"); })
                .find("training.early_stop.metric: \"val/accuracy\" is not measured on text runs; allowed: \"val/loss\""),
            std::string::npos);
}

struct Quiet : RunObserver {};

// A task run whose accuracy can never improve by more than 1: it stops at its second periodic
// evaluation, evaluated, checkpointed and finished, with the reason recorded.
json early_stop_project(pha::test::TempProject& p, int64_t steps) {
  json j = p.text_project({{"steps", steps}, {"eval_every", 2}, {"eval_examples", 8}, {"batch_size", 4},
                           {"early_stop", {{"metric", "val/accuracy"}, {"patience", 1}, {"min_delta", 1.0}}}});
  j["data"] = {{"kind", "task"}, {"train", kCopy}};
  return j;
}

TEST(EarlyStop, RunEndsFinishedAtThePlateauWithTheReason) {
  pha::test::TempProject p;
  p.write_project(early_stop_project(p, 50));
  Quiet obs;
  RunControl ctl;
  const JobResult r = run_job(pha::test::job_spec(p), obs, ctl);
  ASSERT_EQ(r.status, JobStatus::Finished) << r.reason;
  EXPECT_EQ(r.steps_done, 4);
  EXPECT_EQ(r.reason.rfind("early stop at step 4: val/accuracy did not improve by more than 1 in 1 evaluations", 0), 0u)
      << r.reason;
  auto s = pha::store::Store::open(p.store());
  const auto info = s.get_run(r.run_id);
  EXPECT_EQ(info->status, pha::store::RunStatus::Finished);
  EXPECT_EQ(info->error, r.reason);
  ASSERT_FALSE(s.checkpoints(r.run_id).empty());
  EXPECT_EQ(s.checkpoints(r.run_id).back().step, 4);
  bool final_test = false;
  for (const auto& e : s.evals(r.run_id)) final_test |= e.task == "test" && e.step == 4;
  EXPECT_TRUE(final_test) << "the held-out set is evaluated at the stop";
}

TEST(EarlyStop, AResumedRunCountsTheEvaluationsBeforeTheResume) {
  pha::test::TempProject p;
  json j = early_stop_project(p, 50);
  j["training"]["early_stop"]["patience"] = 2;  // would stop at step 6 (evaluations at 2, 4, 6)
  p.write_project(j);
  // Cancel after step 5: the run checkpoints there and resumes from step 5.
  struct CancelAt5 : RunObserver {
    RunControl* ctl = nullptr;
    void on_step(const StepMetrics& m) override {
      if (m.step == 5) ctl->request_cancel();
    }
  } obs;
  RunControl ctl;
  obs.ctl = &ctl;
  const JobResult first = run_job(pha::test::job_spec(p), obs, ctl);
  ASSERT_EQ(first.status, JobStatus::Cancelled) << first.reason;
  JobSpec spec = pha::test::job_spec(p);
  spec.resume_run_id = first.run_id;
  Quiet quiet;
  RunControl ctl2;
  const JobResult second = run_job(spec, quiet, ctl2);
  ASSERT_EQ(second.status, JobStatus::Finished) << second.reason;
  EXPECT_EQ(second.steps_done, 6) << "the evaluations at steps 2 and 4 (before the resume) still count";
}

}  // namespace
