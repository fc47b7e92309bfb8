// A tiny PHA must learn Zoology MQAR (T = 64, 4 key-value pairs; vocabulary 128 for the CPU)
// to at least 95% accuracy on the held-out set (seed + 10, 1000 sequences) within the step
// budget. Label slow: a few minutes on 2 cores.
#include <gtest/gtest.h>

#include "runtime/job.h"
#include "runtime_test_util.h"
#include "store/store.h"

using nlohmann::json;

// DISABLED (shown by ctest as "Not Run (Disabled)"): the target is not reached yet. In trials
// a tiny PHA stayed at 25-27% test accuracy after 750 steps (docs/roadmap.md, issue notes).
// Run it by hand: test_runtime_mqar --gtest_also_run_disabled_tests
TEST(MqarLearning, DISABLED_TinyPhaReaches95Percent) {
  pha::test::TempProject p;
  json model = pha::test::TempProject::tiny_model();
  model.merge_patch({{"d_model", 64}, {"attention", {{"heads", 2}, {"kv_heads", 1}}},
                     {"gss", {{"expanded", 128}, {"reduced", 32}, {"state", 32}}}, {"ffn", {{"d_ff", 128}}}});
  const json project = {
      {"name", "mqar-test"},
      {"data",
       {{"kind", "task"},
        {"train", {{"task", "mqar"}, {"seq_len", 64}, {"num_kv_pairs", 4}, {"vocab_size", 128},
                   {"num_examples", 100000}, {"seed", 0}}}}},
      {"model", model},
      {"training",
       {{"steps", PHA_MQAR_STEPS}, {"batch_size", 32}, {"lr", 0.003}, {"warmup_steps", 30}, {"eval_every", 0},
        {"mixer_every", 50}, {"seed", 0}}}};
  p.write_project(project);
  pha::runtime::RunObserver obs;
  pha::runtime::RunControl ctl;
  const auto r = pha::runtime::run_job(pha::test::job_spec(p), obs, ctl);
  ASSERT_EQ(r.status, pha::runtime::JobStatus::Finished) << r.reason;
  auto s = pha::store::Store::open(p.store());
  double acc = -1;
  for (const auto& e : s.evals(r.run_id))
    if (e.task == "test" && e.metric == "accuracy") acc = e.value;
  EXPECT_GE(acc, 0.95) << "MQAR test accuracy after " << PHA_MQAR_STEPS << " steps";
}
