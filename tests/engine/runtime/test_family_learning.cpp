// Every baseline learns (docs/model.md, "Branch norms", "Embedding scale" and "Standard baselines"): each preset
// family trains on the quickstart's byte-level recipe (the Gutenberg books, 150 steps of 8 x 128
// tokens, AdamW, warmup 50, cosine, clip 1) at two learning rates, and its final validation bpb
// at each must be clearly below the byte-unigram level (~4.5 bpb): below 4.0. Label slow: 12
// cases, one per family and learning rate, so ctest runs them side by side, each on one thread
// (the README's `ctest -j2` runs two at once on 2 cores: a second BLAS thread per run only
// contended). Needs the Gutenberg data (installer/setup.sh installs it).
//
// Until step 25 a case was a family and asserted the better of its two learning rates; every
// family was below 4.0 at both (worst: gpt2-tiny 3.67 at 1e-3), so each rate is now asserted
// on its own, a stricter check in cases half as long.
//
// transformer-tiny (PHA's post-norm DeepNorm block with single attention / FFN sub-layers) sat at
// bpb 4.53 before the branch-norm rule and 4.03 with it; the normalised embedding (embed_scale
// "norm") brought it to 3.57 (docs/model.md, "Embedding scale"), so it is asserted like the rest.
#include <cstdio>
#include <string>
#include <tuple>

#include <gtest/gtest.h>

#include "runtime/job.h"
#include "engine/runtime/runtime_test_util.h"
#include "store/store.h"

using nlohmann::json;

// One case per family and learning rate.
class FamilyLearning : public ::testing::TestWithParam<std::tuple<std::string, double>> {};

TEST_P(FamilyLearning, GetsBelowTheUnigramLevel) {
  const auto& [family, lr] = GetParam();
  pha::test::TempProject p;
  const json project = {
      {"name", "family-learning"},
      {"data", {{"kind", "gutenberg"}, {"tokenizer", {{"kind", "byte"}}}}},
      {"model", {{"preset", family}}},
      {"training",
       {{"steps", 150}, {"batch_size", 8}, {"seq_len", 128}, {"lr", lr}, {"mixer_lr", 0.01},
        {"warmup_steps", 50}, {"grad_clip", 1.0}, {"eval_every", 150}, {"eval_tokens", 8192},
        {"final_eval_tokens", 8192}, {"mixer_every", 50}, {"seed", 1}, {"threads", 1}}}};
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
  EXPECT_LT(bpb, 4.0) << family << " at lr " << lr << " stays at the byte-unigram level";
}

INSTANTIATE_TEST_SUITE_P(EveryPresetFamily, FamilyLearning,
                         ::testing::Combine(::testing::Values("pha-tiny", "sequential-tiny", "gss-only-tiny",
                                                              "transformerpp-tiny", "gpt2-tiny", "transformer-tiny"),
                                            ::testing::Values(1e-3, 3e-3)),
                         [](const ::testing::TestParamInfo<std::tuple<std::string, double>>& info) {
                           std::string name = std::get<0>(info.param);
                           for (char& c : name)
                             if (c == '-') c = '_';
                           return name + (std::get<1>(info.param) < 2e-3 ? "_lr1e3" : "_lr3e3");
                         });
