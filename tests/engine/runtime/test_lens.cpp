// The hybrid lens on a run's checkpoint (runtime/lens.h, docs/lens.md): per-token losses average
// to the evaluator's loss on the same windows; effective weights of a model whose gains are all
// 1 are its raw weights; knock-outs are recorded and read back; a per-token comparison of a run
// with itself is zero everywhere; a GSS-only model has no attention map and says so; MQAR
// positions carry the task's roles; the copyable rule and the half-life on known inputs.
#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>

#include "core/error.h"
#include "runtime/job.h"
#include "runtime/lens.h"
#include "runtime/internal/lens_internal.h"
#include "runtime/run_eval.h"
#include "runtime_test_util.h"
#include "store/lens_store.h"
#include "store/store.h"

using nlohmann::json;
using namespace pha::runtime;

namespace {

int64_t train_lens_run(const pha::test::TempProject& p) {
  RunObserver quiet;
  RunControl ctl;
  const JobResult r = run_job(pha::test::job_spec(p), quiet, ctl);
  EXPECT_EQ(r.status, JobStatus::Finished) << r.reason;
  return r.run_id;
}

json lens_fp32(json training = json::object()) {
  training["precision"] = "fp32";  // the evaluator must not resolve "auto" to bf16 on a bf16 host
  return training;
}

TEST(Lens, PerTokenLossesAverageToTheEvaluatorsLossOnTheSameWindows) {
  pha::test::TempProject p;
  p.write_project(p.text_project(lens_fp32()));
  const int64_t run = train_lens_run(p);
  Lens lens(p.store(), run);
  LensSource src;
  src.tokens = 512;  // 16 windows of 32 = 8 batches of 2: exactly the evaluator's first 512 tokens
  const LensWindows w = lens.windows(src);
  ASSERT_EQ(w.B, 16);
  ASSERT_EQ(w.counted(), 512);
  const TokenLosses t = lens.token_losses(w);
  RunEvalOptions o;
  o.record = false;
  o.splits = {"valid"};
  o.max_tokens = 512;
  const pha::runtime::RunEvalResult r = evaluate_run(p.store(), run, o);
  ASSERT_EQ(r.rows.size(), 1u);
  ASSERT_EQ(r.rows[0].tokens, 512);
  EXPECT_NEAR(t.mean_nll, r.rows[0].loss, 1e-5 * r.rows[0].loss);
  EXPECT_EQ(t.counted, 512);
  // Contributions for every layer and branch of the PHA model, one per position.
  ASSERT_EQ(t.contribution.size(), 2u);
  for (const auto& layer : t.contribution)
    for (const auto& c : layer) EXPECT_EQ(c.size(), w.inputs.size());
  // The CSV has one row per counted position plus the header.
  const std::string csv = token_losses_csv(t);
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 513);
}

TEST(Lens, EffectiveWeightsOfAModelWithAllGainsOneAreItsRawWeights) {
  pha::test::TempProject p;
  // Only the mixers learn (lr ~ 0 for everything else): the branch norms' gains stay 1 while the
  // mixer weights move away from uniform.
  p.write_project(p.text_project(lens_fp32({{"lr", 1e-12}, {"mixer_lr", 0.2}, {"steps", 8}})));
  const int64_t run = train_lens_run(p);
  Lens lens(p.store(), run);
  const EffectiveWeights e = lens.effective_weights(lens.windows({}));
  double moved = 0;
  for (int l = 0; l < e.layers; ++l)
    for (int b = 0; b < 3; ++b) {
      EXPECT_NEAR(e.share.at(l, b), e.raw.at(l, b), 1e-3) << "layer " << l << " branch " << b;
      EXPECT_NEAR(e.gain_rms.at(l, b), 1.0, 1e-3);
      moved = std::max(moved, std::fabs(e.raw.at(l, b) - 1.0 / 3.0));
    }
  EXPECT_GT(moved, 0.01) << "the mixers must have moved, or the test proves nothing";
  // Stored and read back as the report's claims read them.
  auto s = pha::store::Store::open(p.store());
  pha::store::record_lens(s, run, lens.rows(e));
  const auto rows = pha::store::read_lens(s, run);
  ASSERT_EQ(rows.size(), 2u * 3u * 3u);  // raw, effective, share x 2 layers x 3 branches
  EXPECT_EQ(rows.front().kind, "effective_share");
}

TEST(Lens, KnockoutsComparedWithTheIntactModelAndRecorded) {
  pha::test::TempProject p;
  p.write_project(p.text_project(lens_fp32()));
  const int64_t run = train_lens_run(p);
  Lens lens(p.store(), run);
  LensSource src;
  src.tokens = 256;
  src.ngram = 2;  // 33-byte windows of random words rarely repeat a 4-gram; bigrams they do
  const LensWindows w = lens.windows(src);
  const KnockoutResult k = lens.knockouts(w);
  EXPECT_EQ(k.passes, 1 + 2 * 3 + 3);  // intact, each layer's three branches, each branch everywhere
  EXPECT_NEAR(k.base_loss, lens.token_losses(w).mean_nll, 1e-6);
  ASSERT_EQ(k.class_names, (std::vector<std::string>{"copyable", "novel"}));
  EXPECT_EQ(k.class_tokens[0] + k.class_tokens[1], 256);
  EXPECT_GT(k.class_tokens[0], 0) << "a repetitive corpus has copyable tokens";
  // Removing the FFN from every layer of a trained model costs loss.
  EXPECT_GT(k.delta.at(2, 2), 0.0);
  auto s = pha::store::Store::open(p.store());
  pha::store::record_lens(s, run, lens.rows(k));
  int knockouts = 0, all_layers = 0;
  for (const auto& r : pha::store::read_lens(s, run)) {
    knockouts += r.kind == "knockout";
    all_layers += r.kind == "knockout" && r.layer == -1 && r.cls.empty();
  }
  EXPECT_EQ(knockouts, 9 * 3);  // 9 knock-outs x (all tokens, copyable, novel)
  EXPECT_EQ(all_layers, 3);
}

TEST(Lens, ComparingARunWithItselfGivesZeroDifferenceInEveryBin) {
  pha::test::TempProject p;
  p.write_project(p.text_project(lens_fp32()));
  const int64_t run = train_lens_run(p);
  LensSource src;
  src.tokens = 256;
  const TokenComparison c = compare_tokens(p.store(), {run}, {run}, src, {}, 200);
  EXPECT_EQ(c.overall.tokens, 256);
  EXPECT_EQ(c.overall.mean_diff, 0.0);
  EXPECT_EQ(c.overall.lo, 0.0);
  EXPECT_EQ(c.overall.hi, 0.0);
  int64_t by_pos = 0;
  for (const auto& b : c.by_position) by_pos += b.tokens;
  EXPECT_EQ(by_pos, 256);
  EXPECT_EQ(c.by_position.front().label, "1");
  EXPECT_EQ(c.by_position.back().label, "32");
  // A user's text: tokenized with the run's tokenizer, one shorter window.
  src.text = "the model mixes three branches and the model mixes three branches";
  const TokenComparison t = compare_tokens(p.store(), {run}, {run}, src, {}, 0);
  EXPECT_EQ(t.overall.tokens, static_cast<int64_t>(src.text.size()) - 1);
}

TEST(Lens, GssOnlyModelHasNoAttentionMapAndSaysSo) {
  pha::test::TempProject p;
  json proj = p.text_project(lens_fp32({{"steps", 2}}));
  proj["model"]["variant"] = "gss-only";
  p.write_project(proj);
  const int64_t run = train_lens_run(p);
  Lens lens(p.store(), run);
  const LensWindows w = lens.windows({});
  try {
    lens.attention(w, 0, 0, 0);
    FAIL() << "a GSS-only model has no attention map";
  } catch (const pha::core::Error& e) {
    EXPECT_NE(std::string(e.what()).find("has no attention branch"), std::string::npos) << e.what();
  }
  const KernelSpectrum s = lens.spectrum();
  EXPECT_TRUE(s.none_reason.empty());
  ASSERT_EQ(s.layers.size(), 2u);
  EXPECT_EQ(s.horizon, 4 * 32);
  EXPECT_EQ(s.layers[0].half_life.size(), 16u);
}

TEST(Lens, MqarPositionsCarryTheTasksRoles) {
  pha::test::TempProject p;
  p.write_project({{"name", "mqar"},
                   {"data",
                    {{"kind", "task"},
                     {"train", {{"task", "mqar"}, {"seq_len", 32}, {"num_kv_pairs", 4}, {"vocab_size", 64},
                                {"num_examples", 1000}, {"seed", 0}}}}},
                   {"model", pha::test::TempProject::tiny_model()},
                   {"training", lens_fp32({{"steps", 2}, {"batch_size", 4}, {"lr", 0.003}, {"warmup_steps", 1},
                                      {"eval_every", 2}, {"eval_examples", 8}, {"seed", 0}, {"threads", 1}})}});
  const int64_t run = train_lens_run(p);
  Lens lens(p.store(), run);
  LensSource src;
  src.examples = 3;
  const LensWindows w = lens.windows(src);
  ASSERT_EQ(w.class_names, (std::vector<std::string>{"key", "value", "query", "filler"}));
  ASSERT_EQ(w.B, 3);
  EXPECT_EQ(w.cls[0], 0);
  EXPECT_EQ(w.cls[1], 1);
  EXPECT_EQ(w.cls[7], 1);
  int queries = 0;
  for (int t = 8; t < 32; ++t) queries += w.cls[static_cast<size_t>(t)] == 2;
  EXPECT_EQ(queries, 4) << "4 pairs queried once each";
  LensSource text;
  text.text = "text";
  EXPECT_THROW(lens.windows(text), pha::core::Error) << "a task run reads its held-out examples";
  const KnockoutResult k = lens.knockouts(w);
  EXPECT_EQ(k.class_tokens[2], 12);
  EXPECT_EQ(k.tokens, 12) << "the overall figures are over the task's own targets (the queries)";
  EXPECT_EQ(k.class_tokens[3], 3 * (32 - 8 - 4 - 1)) << "filler: every other position after the pairs but the last";
}

TEST(Lens, CopyableRuleAndHalfLifeOnKnownInputs) {
  const std::string s = "abcXabcY";
  const std::vector<int32_t> ids(s.begin(), s.end());
  EXPECT_EQ(detail::copyable_classes(ids, 3), (std::vector<int8_t>{0, 0, 0, 0, 0, 1, 0}));
  std::vector<float> k(100);
  k[0] = 5.0f;  // the skip D at lag 0 does not count
  for (int t = 1; t < 100; ++t) k[static_cast<size_t>(t)] = std::pow(0.5f, (t - 1) / 10.0f);
  EXPECT_EQ(detail::half_life(k.data(), 100), 10.0f);  // peak at lag 1, at or below half of it from lag 11 on
  std::vector<float> flat(50, 1.0f);
  EXPECT_TRUE(std::isinf(detail::half_life(flat.data(), 50)));
  EXPECT_EQ(detail::display_token("\n"), "\\n");
  EXPECT_EQ(detail::display_token("\xc3"), "\\xc3") << "half a UTF-8 character";
  EXPECT_EQ(detail::display_token("\xc3\xa9"), "\xc3\xa9");
}

}  // namespace
