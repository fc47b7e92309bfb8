// Every baseline learns (docs/model.md, "Branch norms", "Embedding scale" and "Standard baselines"): each preset
// family trains on the quickstart's byte-level recipe (the Gutenberg books, 150 steps of 8 x 128
// tokens, AdamW, warmup 50, cosine, clip 1) at two learning rates, and its best final validation
// bpb must be clearly below the byte-unigram level (~4.5 bpb): below 4.0. Label slow: 12 runs,
// 6 cases of about 40-55 s each on 2 cores. Needs the Gutenberg data (installer/setup.sh installs it).
//
// transformer-tiny (PHA's post-norm DeepNorm block with single attention / FFN sub-layers) sat at
// bpb 4.53 before the branch-norm rule and 4.03 with it; the normalised embedding (embed_scale
// "norm") brought it to 3.57 (docs/model.md, "Embedding scale"), so it is asserted like the rest.
#include <algorithm>
#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "runtime/job.h"
#include "engine/runtime/runtime_test_util.h"
#include "store/store.h"

using nlohmann::json;

// One case per family, so ctest runs them side by side (the 12 runs in one case took 255-330 s of
// a README test run alone on one core).
class FamilyLearning : public ::testing::TestWithParam<std::string> {};

TEST_P(FamilyLearning, GetsBelowTheUnigramLevel) {
  const std::string family = GetParam();
  double best = 1e9;
  for (double lr : {1e-3, 3e-3}) {
    pha::test::TempProject p;
    const json project = {
        {"name", "family-learning"},
        {"data", {{"kind", "gutenberg"}, {"tokenizer", {{"kind", "byte"}}}}},
        {"model", {{"preset", family}}},
        {"training",
         {{"steps", 150}, {"batch_size", 8}, {"seq_len", 128}, {"lr", lr}, {"mixer_lr", 0.01},
          {"warmup_steps", 50}, {"grad_clip", 1.0}, {"eval_every", 150}, {"eval_tokens", 8192},
          {"final_eval_tokens", 8192}, {"mixer_every", 50}, {"seed", 1}}}};
    p.write_project(project);
    pha::runtime::RunObserver obs;
    pha::runtime::RunControl ctl;
    const auto r = pha::runtime::run_job(pha::test::job_spec(p), obs, ctl);
    ASSERT_EQ(r.status, pha::runtime::JobStatus::Finished) << family << " lr " << lr << ": " << r.reason;
    auto s = pha::store::Store::open(p.store());
    double bpb = 1e9;
    for (const auto& e : s.evals(r.run_id))
      if (e.task == "valid" && e.metric == "bpb") bpb = e.value;
    std::printf("%-20s lr %.0e  final valid bpb %.4f\n", family.c_str(), lr, bpb);
    best = std::min(best, bpb);
  }
  EXPECT_LT(best, 4.0) << family << " stays at the byte-unigram level (best of lr 1e-3, 3e-3)";
}

INSTANTIATE_TEST_SUITE_P(EveryPresetFamily, FamilyLearning,
                         ::testing::Values("pha-tiny", "sequential-tiny", "gss-only-tiny", "transformerpp-tiny",
                                           "gpt2-tiny", "transformer-tiny"),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           for (char& c : name)
                             if (c == '-') c = '_';
                           return name;
                         });
