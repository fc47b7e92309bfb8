// A tiny PHA must learn Zoology MQAR (T = 64, 4 key-value pairs; vocabulary 128 for the CPU)
// to at least 95% accuracy on the held-out set (seed + 10, 1000 sequences) within the step
// budget. Label slow: about 20 s on one core (500 steps of 64 x 64 tokens). The budget was 1500
// steps (2.5 minutes) while the model needed about 1000 to leave the 25% plateau; with the
// sqrt(d) input scale it is at 99.6% by step 250 and 100% at 500 (step 25 measured both
// budgets: 1.000 after 1500 steps, 1.000 after 500), so 500 steps check the same claim.
//
// Recipe (docs/runtime.md, "MQAR: why the tiny PHA stalled at 25%"): the model as specified
// (DeepNorm on), AdamW lr 3e-3 with 30 warmup steps, and batch 64. With batch 32 the same
// model stays at the 25% plateau (one of the four values in context, picked at random) for
// 1500+ steps: only 4 of the 64 positions of a sequence are counted, so the gradient is noisy,
// and DeepNorm's beta init doubles the effective step of the RMS-normalised branches' weights.
#include <cstdio>
#include <cstdlib>

#include <gtest/gtest.h>

#include "runtime/job.h"
#include "runtime_test_util.h"
#include "store/store.h"

using nlohmann::json;

TEST(MqarLearning, TinyPhaReaches95Percent) {
  // With step 7's embedding std 1/d alone this recipe stayed at the 25% plateau for all 1500
  // steps (held-out 0.2562 fp32, 0.2595 bf16); the embedding's sqrt(d) input scale
  // (model.embed_scale "sqrt_d", docs/model.md "Initialisation") brought it back (0.983 at
  // step 1000 and 1.000 at step 1500 in this test).
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
       {{"steps", PHA_MQAR_STEPS}, {"batch_size", 64}, {"lr", 0.003}, {"warmup_steps", 30}, {"eval_every", 250},
        {"eval_examples", 256}, {"mixer_every", 50}, {"seed", 0}, {"threads", 1}}}};
  p.write_project(project);
  pha::runtime::RunObserver obs;
  pha::runtime::RunControl ctl;
  const auto r = pha::runtime::run_job(pha::test::job_spec(p), obs, ctl);
  ASSERT_EQ(r.status, pha::runtime::JobStatus::Finished) << r.reason;
  auto s = pha::store::Store::open(p.store());
  double acc = -1;
  for (const auto& e : s.evals(r.run_id))
    if (e.task == "test" && e.metric == "accuracy") acc = e.value;
  std::string curve;  // the validation accuracy along the run, for the failure message
  for (const auto& pt : s.read_metric_full(r.run_id, "val/accuracy"))
    curve += " " + std::to_string(pt.step) + ":" + std::to_string(pt.value);
  std::printf("MQAR held-out accuracy %.4f after %d steps; val/accuracy by step:%s\n", acc, PHA_MQAR_STEPS, curve.c_str());
  EXPECT_GE(acc, 0.95) << "MQAR held-out accuracy after " << PHA_MQAR_STEPS << " steps; val/accuracy by step:" << curve;
}
